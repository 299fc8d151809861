// DOM helpers of the adapter: chain lookups, the visibility rule every source uses, labels and order.
// Realm-neutral on purpose (no `instanceof` against globals): content scripts and jsdom run in other realms.

import type { PageWindow } from "./types.ts";

const ELEMENT_NODE = 1;

export function isElement(node: Node | null | undefined): node is Element {
  return node?.nodeType === ELEMENT_NODE;
}

/**
 * All elements matching any selector of the chain, deduplicated, in document order. Each selector is queried on
 * its own: Chromium answers one selector through its fast paths (id, class, tag, one attribute) but matches a
 * comma list against every element with its generic matcher, which bench:adapter measured 2–60× slower on a
 * long conversation. A selector this engine cannot parse (a remotely supplied one) is skipped.
 */
export function queryAll(root: ParentNode, chain: readonly string[]): Element[] {
  const lists: Element[][] = [];
  for (const css of chain) {
    let found: NodeListOf<Element>;
    try {
      found = root.querySelectorAll(css);
    } catch {
      continue;
    }
    if (found.length > 0) lists.push([...found]);
  }
  if (lists.length <= 1) return lists[0] ?? [];
  return lists.reduce(mergeInOrder);
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

export function matchesAny(el: Element, chain: readonly string[]): boolean {
  if (chain.length === 0) return false;
  try {
    return el.matches(chain.join(", "));
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

/**
 * The visibility rule of research §2: laid out with a non-empty box, not display:none/visibility:hidden,
 * no hidden/aria-hidden/inert ancestor, not inside a screen-reader-only container (`hiddenContainer`).
 */
export function isVisible(el: Element, win: PageWindow, hiddenContainer: (el: Element) => boolean): boolean {
  if (!el.isConnected) return false;
  for (let cur: Element | null = el; cur; cur = cur.parentElement) {
    if (cur.hasAttribute("hidden") || cur.hasAttribute("inert")) return false;
    if (cur.getAttribute("aria-hidden") === "true") return false;
    if (hiddenContainer(cur)) return false;
  }
  const rect = el.getBoundingClientRect();
  if (!(rect.width > 0 && rect.height > 0)) return false;
  // checkVisibility covers display:none ancestors and visibility in one call; computed style is the fallback.
  const withCheck = el as Element & { checkVisibility?: (this: Element, o?: object) => boolean };
  if (typeof withCheck.checkVisibility === "function") {
    return withCheck.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
  }
  const style = win.getComputedStyle(el);
  return !(style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse");
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
