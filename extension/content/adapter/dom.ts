// DOM helpers of the adapter: chain lookups, the visibility rule every source uses, labels and order.
// Realm-neutral on purpose (no `instanceof` against globals): content scripts and jsdom run in other realms.

import type { PageWindow } from "./types.ts";
import { weakMemo } from "./weak-memo.ts";

const ELEMENT_NODE = 1;

export function isElement(node: Node | null | undefined): node is Element {
  return node?.nodeType === ELEMENT_NODE;
}

/**
 * All elements matching any selector of the chain, deduplicated, in document order. On the document each selector
 * is queried on its own: Chromium answers one selector through its fast paths (id, class, tag, one attribute) but
 * matches a comma list against every element with its generic matcher, which bench:adapter measured 2–60× slower
 * on a long conversation. Under an element the subtree is small and one pass for the whole list is cheaper than
 * one per selector. A selector this engine cannot parse (a remotely supplied one) is skipped.
 */
export function queryAll(root: ParentNode, chain: readonly string[]): Element[] {
  if (chain.length > 1 && isElement(root)) {
    // Under an element (a turn, the form, a region's subtree) the walk is small: one pass for the whole chain.
    try {
      return [...root.querySelectorAll(joinedChain(chain))];
    } catch {
      // a selector this engine cannot parse: each on its own below, skipping that one
    }
  }
  const lists: Element[][] = [];
  const parsed: string[] = [];
  let total = 0;
  for (const css of chain) {
    let found: Element[];
    try {
      found = queryOne(root, css);
    } catch {
      continue;
    }
    parsed.push(css);
    total += found.length;
    if (found.length > 0) lists.push(found);
  }
  if (lists.length <= 1) return lists[0] ?? [];
  // Merging compares positions, and Chromium orders two siblings by walking their parent's children from the first:
  // over the turns of a long thread that is quadratic (bench:adapter's marker search: 19 ms to merge 1,000 user and
  // 1,000 assistant messages). Past a few dozen matches one pass for the whole list, which the engine returns in
  // document order, costs less (about 3 ms on 21,000 elements).
  if (total > MERGE_LIMIT) return [...root.querySelectorAll(parsed.join(", "))];
  return lists.reduce(mergeInOrder);
}

/** Matches of several selectors merged in script up to this many; more are queried again as one list. */
export const MERGE_LIMIT = 64;

/**
 * One selector under `root`. Under an element, a selector with combinators (`.turn-action-controls button`) is
 * answered as its last compound (`button`) filtered by `matches` on the whole selector: the same elements, but
 * Chromium answers such a query under an element with a walk that grows with the whole document (bench:adapter
 * measured 0.36 ms per call on a 38,000-element page against 0.02 ms this way).
 */
function queryOne(root: ParentNode, css: string): Element[] {
  const last = isElement(root) ? lastCompoundOf(css) : undefined;
  if (last === undefined) return [...root.querySelectorAll(css)];
  const out: Element[] = [];
  for (const el of root.querySelectorAll(last)) if (el.matches(css)) out.push(el);
  return out;
}

/**
 * The last compound of a selector with combinators, or undefined when there is none or the selector is not plain
 * enough to split safely (functional pseudo-classes, escapes, a selector list).
 */
export function lastCompound(css: string): string | undefined {
  if (/[(),\\]/.test(css)) return undefined;
  let depth = 0;
  let quote = "";
  let cut = -1;
  for (let i = 0; i < css.length; i++) {
    const c = css[i]!;
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "[") depth++;
    else if (c === "]") depth--;
    else if (depth === 0 && (c === " " || c === ">" || c === "+" || c === "~")) cut = i;
  }
  if (cut < 0 || depth !== 0 || quote) return undefined;
  const last = css.slice(cut + 1).trim();
  return last === "" ? undefined : last;
}

/** Split selectors by text: a table's selectors are few and reused on every scan (the parse is a character loop). */
const splitSelectors = new Map<string, string | undefined>();

/** `lastCompound`, remembered per selector (bounded: a remote table could keep supplying new ones). */
function lastCompoundOf(css: string): string | undefined {
  if (splitSelectors.has(css)) return splitSelectors.get(css);
  if (splitSelectors.size >= 1_000) splitSelectors.clear();
  const last = lastCompound(css);
  splitSelectors.set(css, last);
  return last;
}

/** Merges two lists that are each in document order and without repeats into one (linear, not a sort). */
function mergeInOrder(a: Element[], b: Element[]): Element[] {
  const out: Element[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (documentOrder(x, y) < 0) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  for (; i < a.length; i++) out.push(a[i]!);
  for (; j < b.length; j++) out.push(b[j]!);
  return out;
}

/** Elements matching the chain, ordered by the first selector each matches (most specific first). */
export function queryByPriority(root: ParentNode, chain: readonly string[]): Element[] {
  const found = queryAll(root, chain);
  if (found.length < 2) return found;
  const rank = (el: Element) => {
    const i = chain.findIndex((css) => safeMatches(el, css));
    return i < 0 ? chain.length : i;
  };
  const ranked = found.map((el, order) => ({ el, order, rank: rank(el) }));
  ranked.sort((a, b) => a.rank - b.rank || a.order - b.order);
  return ranked.map((r) => r.el);
}

function safeMatches(el: Element, css: string): boolean {
  try {
    return el.matches(css);
  } catch {
    return false;
  }
}

/** Keeps the innermost of nested matches; `els` must be in document order (descendants follow at once). */
export function innermost(els: readonly Element[]): Element[] {
  return els.filter((el, i) => {
    const next = els[i + 1];
    return !(next && el !== next && el.contains(next));
  });
}

/** The chain as one selector list (memoized: tables are built once, and this runs on every ancestor walk). */
export const joinedChain = weakMemo((chain: readonly string[]): string => chain.join(", "));

export function matchesAny(el: Element, chain: readonly string[]): boolean {
  if (chain.length === 0) return false;
  try {
    return el.matches(joinedChain(chain));
  } catch {
    return chain.some((css) => safeMatches(el, css));
  }
}

export function closestAny(el: Element, chain: readonly string[]): Element | null {
  for (let cur: Element | null = el; cur; cur = cur.parentElement) {
    if (matchesAny(cur, chain)) return cur;
  }
  return null;
}

export function documentOrder(a: Node, b: Node): number {
  if (a === b) return 0;
  // DOCUMENT_POSITION_FOLLOWING = 4: b comes after a.
  return a.compareDocumentPosition(b) & 4 ? -1 : 1;
}

/** True when `later` starts after `earlier` in document order and is not one of its ancestors. */
export function startsAfter(later: Node, earlier: Node): boolean {
  if (later === earlier) return false;
  const pos = earlier.compareDocumentPosition(later);
  // FOLLOWING (4) and not CONTAINS (8, later is an ancestor of earlier); a descendant (16) starts after too.
  return (pos & 4) !== 0 && (pos & 8) === 0;
}

/*
 * The visibility rule (docs/adapter.md, "Selector table") as observation uses it (ScanScope.visible in scan-scope.ts
 * puts it together):
 * connected, `hiddenByMarkup` false for the element and every ancestor (no hidden/aria-hidden/inert ancestor, not
 * inside a screen-reader-only container), and `renderedByStyle` (not display:none or visibility:hidden, itself or
 * through an ancestor). Where `checkVisibility` exists it answers from style alone; the rule's non-empty-box test
 * needs the page's layout, and forcing that after every mutation batch cost most of a scan on a long conversation
 * (bench:adapter), so the box is checked only before a click (`hasBox`). Without `checkVisibility` the box and the
 * computed style are read.
 */

/** The element itself (not its ancestors) is hidden by markup: hidden, inert, aria-hidden, a screen-reader-only box. */
export function hiddenByMarkup(el: Element, hiddenContainer: (el: Element) => boolean): boolean {
  return (
    el.hasAttribute("hidden") ||
    el.hasAttribute("inert") ||
    el.getAttribute("aria-hidden") === "true" ||
    hiddenContainer(el)
  );
}

/** The style half of the visibility rule (display, visibility, itself or through an ancestor). */
export function renderedByStyle(el: Element, win: PageWindow): boolean {
  const withCheck = el as Element & { checkVisibility?: (this: Element, o?: object) => boolean };
  if (typeof withCheck.checkVisibility === "function") {
    return withCheck.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
  }
  if (!hasBox(el)) return false;
  const style = win.getComputedStyle(el);
  return !(style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse");
}

/** A laid-out box with a non-zero width and height (forces layout: used once before a click, not per scan). */
export function hasBox(el: Element): boolean {
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

/** What a control says: aria-label, else title, else its text with whitespace collapsed. */
export function labelOf(el: Element): string {
  const aria = el.getAttribute("aria-label");
  if (aria && aria.trim()) return aria.trim();
  const title = el.getAttribute("title");
  if (title && title.trim()) return title.trim();
  return collapse(el.textContent ?? "");
}

export function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function isDisabled(el: Element): boolean {
  return (
    el.hasAttribute("disabled") ||
    el.getAttribute("aria-disabled") === "true" ||
    el.getAttribute("data-disabled") === "true"
  );
}

export function isTextArea(el: Element): el is HTMLTextAreaElement {
  return el.tagName === "TEXTAREA";
}

export function isContentEditable(el: Element): boolean {
  const attr = el.getAttribute("contenteditable");
  return attr === "" || attr === "true" || attr === "plaintext-only";
}
