// The page without its old turns: where page-wide lookups (composer editor, Work mode, dialogs, notices, login
// controls, banners) look, so their cost does not grow with the length of the conversation.
import { matchesAny, queryAll } from "./dom.ts";
import { weakMemo } from "./weak-memo.ts";

/**
 * Subtrees to search, in document order. `self` entries are the thread container and its ancestors: only the element
 * itself is checked (its descendants are covered by the other entries).
 */
export interface PageRegion {
  readonly whole: Document | null;
  readonly parts: readonly { el: Element; self: boolean }[];
}

/** The ancestor of `el` that is a child of `container` (or `el` itself). */
function childOf(container: Element, el: Element): Element {
  let cur = el;
  while (cur.parentElement && cur.parentElement !== container) cur = cur.parentElement;
  return cur;
}

function commonAncestor(a: Element, b: Element): Element | null {
  const up = new Set<Element>();
  for (let cur: Element | null = a; cur; cur = cur.parentElement) up.add(cur);
  for (let cur: Element | null = b; cur; cur = cur.parentElement) if (up.has(cur)) return cur;
  return null;
}

/**
 * Everything but the old turns: the thread container `T` (the nearest common ancestor of the first and the newest
 * turn) keeps its children before the first turn's and from the newest turn's on; the children between (the old
 * turns, and anything rendered between them) are skipped; everything outside `T` is searched. With fewer than two
 * turns this is the whole document.
 */
export function regionWithoutOldTurns(doc: Document, turns: readonly Element[]): PageRegion {
  return buildRegion(doc, turns).region;
}

/** Where the old turns were cut out: the thread container and its children holding the first and the newest turn. */
interface Cut {
  readonly first: Element;
  readonly newest: Element;
  readonly thread: Element;
  readonly firstChild: Element;
  readonly newestChild: Element;
}

const WHOLE = (doc: Document) => ({ region: { whole: doc, parts: [] } });

function buildRegion(doc: Document, turns: readonly Element[]): { region: PageRegion; cut?: Cut } {
  const first = turns[0];
  const newest = turns[turns.length - 1];
  const root = doc.documentElement;
  if (!first || !newest || first === newest || !root) return WHOLE(doc);
  const thread = commonAncestor(first, newest);
  if (!thread || thread === first || thread === newest) return WHOLE(doc);
  const path: Element[] = [];
  for (let cur: Element | null = thread; cur; cur = cur.parentElement) path.push(cur);
  if (path[path.length - 1] !== root) return WHOLE(doc);
  path.reverse();
  type Part = { el: Element; self: boolean };
  const before: Part[] = [];
  const afterByLevel: Part[][] = [];
  for (let level = 0; level < path.length - 1; level++) {
    const el = path[level]!;
    const next = path[level + 1]!;
    before.push({ el, self: true });
    for (let child = el.firstElementChild; child && child !== next; child = child.nextElementSibling) {
      before.push({ el: child, self: false });
    }
    const after: Part[] = [];
    for (let child = next.nextElementSibling; child; child = child.nextElementSibling) {
      after.push({ el: child, self: false });
    }
    afterByLevel.push(after);
  }
  before.push({ el: thread, self: true });
  const firstChild = childOf(thread, first);
  const newestChild = childOf(thread, newest);
  for (
    let child = thread.firstElementChild;
    child && child !== firstChild;
    child = child.nextElementSibling
  ) {
    before.push({ el: child, self: false });
  }
  for (let child: Element | null = newestChild; child; child = child.nextElementSibling) {
    before.push({ el: child, self: false });
  }
  // Later siblings of inner levels come before those of outer levels.
  return {
    region: { whole: null, parts: [...before, ...afterByLevel.reverse().flat()] },
    cut: { first, newest, thread, firstChild, newestChild },
  };
}

/**
 * `regionWithoutOldTurns`, kept from scan to scan. The region is made of the children of the thread container and of
 * its ancestors, so it stays the same while the turns at both ends are the same elements, each still hangs from the
 * same child of the thread, and no mutation record touched the thread or an ancestor. The caller passes a `version`
 * that changes whenever such a record may have come: the subtree cache's `spineVersion`, which counts records on the
 * ancestors of its cached subtrees; the region's subtrees are among them once page-wide lookups were kept for them.
 */
export class RegionMemo {
  private kept: { cut: Cut; version: number; region: PageRegion } | undefined;
  /** Regions built rather than kept (tests check both ways). */
  builds = 0;

  region(doc: Document, turns: readonly Element[], version: number): PageRegion {
    const kept = this.kept;
    const first = turns[0];
    const newest = turns[turns.length - 1];
    if (
      kept &&
      kept.version === version &&
      kept.cut.first === first &&
      kept.cut.newest === newest &&
      // A turn moved under another child of the thread makes records on those children only (not the thread).
      childOf(kept.cut.thread, kept.cut.first) === kept.cut.firstChild &&
      childOf(kept.cut.thread, kept.cut.newest) === kept.cut.newestChild
    ) {
      return kept.region;
    }
    this.builds++;
    const built = buildRegion(doc, turns);
    this.kept = built.cut ? { cut: built.cut, version, region: built.region } : undefined;
    return built.region;
  }
}

/** The chains' keys, every selector in one list and joined (once per chains object: pass the same one each scan). */
const combinedOf = weakMemo((chains: Record<string, readonly string[]>) => {
  const keys = Object.keys(chains);
  const all = keys.flatMap((k) => chains[k]!);
  return { keys, all, joined: all.join(", ") };
});

function combined<K extends string>(
  chains: Record<K, readonly string[]>,
): { keys: K[]; all: string[]; joined: string } {
  return combinedOf(chains) as { keys: K[]; all: string[]; joined: string };
}

/** Keeps one lookup's result per subtree across scans while nothing in it changed (subtree-cache.ts). */
export type SubtreeMemo = <T>(root: Element, compute: () => T) => T;

/**
 * The elements of each chain found in the region, each list in document order. One query per subtree for all
 * chains together (the subtrees outside the thread are small), then each hit is sorted into its chains. `memo`
 * keeps each subtree's sorted hits while nothing in it changed.
 */
export function queryRegionChains<K extends string>(
  region: PageRegion,
  chains: Record<K, readonly string[]>,
  memo?: SubtreeMemo,
): Record<K, Element[]> {
  const { keys, all, joined } = combined(chains);
  const out = Object.fromEntries(keys.map((k) => [k, [] as Element[]])) as Record<K, Element[]>;
  if (region.whole) {
    for (const k of keys) out[k] = queryAll(region.whole, chains[k]);
    return out;
  }
  const sortIn = (into: Record<K, Element[]>, el: Element) => {
    if (!matchesAny(el, all)) return;
    for (const k of keys) if (matchesAny(el, chains[k])) into[k].push(el);
  };
  const inSubtree = (el: Element): Record<K, Element[]> => {
    const into = Object.fromEntries(keys.map((k) => [k, [] as Element[]])) as Record<K, Element[]>;
    sortIn(into, el);
    if (el.firstElementChild === null) return into;
    let hits: Iterable<Element>;
    try {
      hits = el.querySelectorAll(joined);
    } catch {
      hits = queryAll(el, all); // a selector this engine cannot parse (a remote one): each on its own
    }
    for (const hit of hits) sortIn(into, hit);
    return into;
  };
  // The region's own elements (the thread and its ancestors) are matched once per region object when lookups are
  // kept: `RegionMemo` hands back the same object only while no record landed on them (attributes included).
  let selfHits = memo ? selfMatches.get(region) : undefined;
  if (selfHits?.all !== all) selfHits = undefined;
  const matched = selfHits ? undefined : new Set<Element>();
  for (const { el, self } of region.parts) {
    if (self) {
      if (selfHits ? selfHits.matched.has(el) : matchesAny(el, all)) {
        matched?.add(el);
        sortIn(out, el);
      }
      continue;
    }
    const found = memo ? memo(el, () => inSubtree(el)) : inSubtree(el);
    for (const k of keys) if (found[k].length > 0) out[k].push(...found[k]);
  }
  if (memo && matched) selfMatches.set(region, { all, matched });
  return out;
}

/** Which of a region's own elements matched the chains (`all`), per region object (see `queryRegionChains`). */
const selfMatches = new WeakMap<PageRegion, { all: readonly string[]; matched: ReadonlySet<Element> }>();
