// The lookups one scan shares: visibility (hidden markup checked once per element), labels, buttons, the page-wide
// hits outside the old turns, and lookups kept across scans under subtrees that did not change (subtree-cache.ts).
import { hiddenByMarkup, labelOf, matchesAny, queryAll, queryByPriority, renderedByStyle } from "./dom.ts";
import { queryRegionChains, regionWithoutOldTurns, type RegionMemo } from "./page-region.ts";
import type { MarkupMemo } from "./markup-memo.ts";
import { cacheableChain, type SubtreeCache } from "./subtree-cache.ts";
import { weakMemo } from "./weak-memo.ts";
import type { SelectorTable } from "./selectors.ts";
import type { PageWindow } from "./types.ts";

/** What the adapter keeps across scans that a scope's lookups use (part of page-scan.ts `ScanKept`). */
export interface ScopeKept {
  /** Lookups per subtree, kept current by the records. */
  subtrees?: SubtreeCache;
  /** Each element's own hidden markup, kept current by the records. */
  markup?: MarkupMemo;
  /** The page region around the thread, kept while the subtree cache's spine is unchanged (needs `subtrees`). */
  regions?: RegionMemo;
}

/** The page-wide lookups of a scan, made together over the page without its old turns (page-region.ts). */
export interface PageWide {
  editor: Element[];
  workMode: Element[];
  dialog: Element[];
  notice: Element[];
  loginControl: Element[];
  composerContainer: Element[];
  liveStatus: Element[];
}

export const DIALOGS = ['[role="dialog"]', '[role="alertdialog"]'];

/** The page-wide chains of a table (one object per table: lookups memoize on it). */
const pageWideChains = weakMemo((table: SelectorTable): Record<keyof PageWide, readonly string[]> => ({
  editor: table.editor,
  workMode: table.workModeSelected,
  dialog: DIALOGS,
  notice: table.notice,
  loginControl: table.loginControl,
  composerContainer: table.composerContainer,
  liveStatus: table.liveStatus,
}));

/** Every page-wide chain in one list (memoized per table, so `matchesAny` reuses its joined selector). */
const pageWideAll = weakMemo((table: SelectorTable): string[] => Object.values(pageWideChains(table)).flat());

/**
 * The page-wide chains whose hits inside the newest turn would be read from it (a Log in link, an alert): while that
 * turn holds one, what was found around it cannot be reused. Live status regions are read outside the turns only.
 */
const readInTurn = weakMemo((table: SelectorTable): string[] =>
  Object.entries(pageWideChains(table)).flatMap(([key, chain]) => (key === "liveStatus" ? [] : chain)),
);

/** Whether anything a page-wide lookup reads from the newest turn is inside `el` (or is `el`). */
export function holdsPageWide(el: Element, table: SelectorTable): boolean {
  const all = readInTurn(table);
  return matchesAny(el, all) || queryAll(el, all).length > 0;
}

/** `cacheableChain`, memoized per chain array (the table's arrays live as long as the adapter). */
const isCacheable = weakMemo(cacheableChain);

/**
 * Per-scan lookups shared by every check: the visually hidden containers, a visibility cache, page-wide hits, and
 * the adapter's `SubtreeCache` (lookups under a subtree that did not change since an earlier scan are not made again)
 * and `MarkupMemo` (each element's own hidden markup, while its attributes did not change).
 */
export class ScanScope {
  private readonly isHidden: (el: Element) => boolean;
  /** `hiddenByMarkup` of the element itself (from `MarkupMemo` when the hidden classes are the element's own). */
  private readonly selfHidden: (el: Element) => boolean;
  private readonly cache = new Map<Element, boolean>();
  private readonly markup = new Map<Element, boolean>();
  private readonly labels = new Map<Element, string>();
  private readonly buttonLists = new Map<Element, readonly Element[]>();
  private readonly subtrees: SubtreeCache | undefined;
  private readonly regions: RegionMemo | undefined;
  private pageHits: PageWide | undefined;

  /**
   * `turns`: the conversation's turns (their old ones are left out of page-wide lookups); none = whole page. `kept`:
   * what the adapter keeps across scans (none: everything is looked up afresh).
   */
  constructor(
    readonly doc: Document,
    readonly win: PageWindow,
    readonly table: SelectorTable,
    private readonly turns: readonly Element[] = [],
    kept: ScopeKept = {},
  ) {
    this.subtrees = kept.subtrees;
    this.regions = kept.regions;
    const markupMemo = kept.markup;
    // Plain class selectors (the built-in `.sr-only`) are checked on each ancestor's class list; anything
    // else a remote table supplies is resolved once per scan.
    const classes = table.visuallyHidden.map((css) => /^\.([\w-]+)$/.exec(css)?.[1]);
    const isHidden = classes.every((c): c is string => c !== undefined)
      ? (el: Element) => classes.some((c) => el.classList.contains(c))
      : undefined;
    if (isHidden) {
      this.isHidden = isHidden;
      this.selfHidden = markupMemo
        ? (el) => markupMemo.selfHidden(el, isHidden)
        : (el) => hiddenByMarkup(el, isHidden);
    } else {
      // A selector that depends on other elements can change without a record on this one: nothing is remembered.
      const hidden = new Set(queryAll(doc, table.visuallyHidden));
      this.isHidden = (el) => hidden.has(el);
      this.selfHidden = (el) => hiddenByMarkup(el, this.isHidden);
    }
  }

  /** Editors, Work mode, dialogs, notices, login controls and composer containers outside the old turns. */
  pageWide(): PageWide {
    if (this.pageHits) return this.pageHits;
    const cache = this.subtrees;
    const kept = cache !== undefined && isCacheable(pageWideAll(this.table));
    // The region is kept only where its subtrees' lookups are: that is what puts its elements on the cache's spine.
    const region =
      kept && this.regions
        ? this.regions.region(this.doc, this.turns, cache.spineVersion)
        : regionWithoutOldTurns(this.doc, this.turns);
    const memo = kept
      ? <T>(root: Element, compute: () => T) => cache.get(root, "pageWide", compute)
      : undefined;
    this.pageHits = queryRegionChains(region, pageWideChains(this.table), memo);
    return this.pageHits;
  }

  /**
   * `compute()` (a lookup of `chain` under `root`, `key` naming it), kept from an earlier scan while nothing under
   * `root` changed. The same key must always mean the same lookup.
   */
  under<T>(root: Element, key: string, chain: readonly string[], compute: () => T): T {
    const cache = this.subtrees;
    return cache && isCacheable(chain) ? cache.get(root, key, compute) : compute();
  }

  /** The table's chain `key` under `root` (in priority order when `byPriority`), through `under`. */
  lookup(root: Element, key: keyof SelectorTable, byPriority = false): Element[] {
    const chain = this.table[key];
    return this.under(root, key, chain, () =>
      byPriority ? queryByPriority(root, chain) : queryAll(root, chain),
    );
  }

  /** `labelOf`, read once per element in a scan: the newest turn's buttons are looked at by several checks. */
  label(el: Element): string {
    let label = this.labels.get(el);
    if (label === undefined) {
      label = labelOf(el);
      this.labels.set(el, label);
    }
    return label;
  }

  /** The buttons under `root`, queried once per scan. */
  buttons(root: Element): readonly Element[] {
    let found = this.buttonLists.get(root);
    if (!found) {
      found = [...root.querySelectorAll("button")];
      this.buttonLists.set(root, found);
    }
    return found;
  }

  /** The visibility rule (dom.ts, above `hiddenByMarkup`), with shared ancestors' markup checked once per scan. */
  visible(el: Element): boolean {
    let v = this.cache.get(el);
    if (v === undefined) {
      v = el.isConnected && !this.markupHidden(el) && renderedByStyle(el, this.win);
      this.cache.set(el, v);
    }
    return v;
  }

  /** Whether the element or an ancestor is hidden by markup (`hiddenByMarkup`), memoized per element. */
  private markupHidden(el: Element): boolean {
    let hidden = this.markup.get(el);
    if (hidden === undefined) {
      const parent = el.parentElement;
      hidden = this.selfHidden(el) || (parent !== null && this.markupHidden(parent));
      this.markup.set(el, hidden);
    }
    return hidden;
  }

  visibleOf(els: Iterable<Element>): Element[] {
    return [...els].filter((el) => this.visible(el));
  }

  /** The first element that passes `test` (cheap, checked first) and is visible. */
  firstVisible(els: Iterable<Element>, test: (el: Element) => boolean = () => true): Element | undefined {
    for (const el of els) if (test(el) && this.visible(el)) return el;
    return undefined;
  }

  inHidden(el: Element): boolean {
    for (let cur: Element | null = el; cur; cur = cur.parentElement) if (this.isHidden(cur)) return true;
    return false;
  }
}

/** The turn and message chains as one (a notice inside either is the turn's own; one walk up instead of two). */
export const turnOrMessage = weakMemo((table: SelectorTable): string[] => [...table.turn, ...table.message]);
