// The conversation's turn containers, kept up to date from mutation records instead of being queried again on every
// scan: a long thread (thousands of elements) is walked only when tracking cannot be sure (see `TurnTracker`).
import { innermost, isElement, matchesAny, queryAll, startsAfter } from "./dom.ts";

/** Past this many buffered records between scans the tracker stops buffering and queries afresh. */
const MAX_PENDING = 20_000;

/**
 * Attributes a chain's matches depend on, or undefined when a match can depend on anything else (combinators,
 * pseudo-classes: an ancestor's or sibling's change could make an element match without a record for it).
 */
export function watchedAttributes(chain: readonly string[]): Set<string> | undefined {
  const names = new Set<string>();
  for (const css of chain) {
    // Only one compound (tag, #id, .class, [attr…]) per selector: outside brackets no space, >, +, ~, : or comma.
    const outside = css.replace(/\[[^\]]*\]/g, "[]").trim();
    if (!/^[\w-]*([#.][\w-]+|\[\])*$/.test(outside) || outside === "") return undefined;
    for (const m of css.matchAll(/\[\s*([\w-]+)/g)) names.add(m[1]!.toLowerCase());
    if (outside.includes("#")) names.add("id");
    if (outside.includes(".")) names.add("class");
  }
  return names;
}

/**
 * Turn containers (the innermost matches of the turn chain, in document order). The first `turns()` and any that
 * follows an uncertain change queries the whole document; otherwise only the mutation records since the last
 * call are read: a turn added after the newest is appended, and anything else that could change the list (a
 * removed subtree holding a turn, a turn added before or inside the newest, a turn attribute changed, a thread
 * remounted, records dropped) makes the next call query afresh. The records must come from an observer of the
 * whole document with childList, subtree and attributes; `reset()` whenever records may have been missed.
 */
export class TurnTracker {
  private list: Element[] = [];
  private tracked = new Set<Element>();
  private valid = false;
  private pending: MutationRecord[] = [];
  private readonly joined: string;
  private readonly attrs: Set<string> | undefined;
  /** Full queries made so far (tests check that tracking did not fall back when it should not). */
  fullQueries = 0;

  constructor(private readonly chain: readonly string[]) {
    this.joined = chain.join(", ");
    this.attrs = watchedAttributes(chain);
  }

  /** Buffers records for the next `turns()` (cheap: the observer callback stays a push). */
  note(records: readonly MutationRecord[]): void {
    if (!this.valid || this.attrs === undefined) return;
    if (this.pending.length + records.length > MAX_PENDING) {
      this.reset();
      return;
    }
    for (const r of records) this.pending.push(r);
  }

  /** Forget everything: the next `turns()` queries the document. */
  reset(): void {
    this.valid = false;
    this.pending = [];
  }

  /** The current turn list. The array is the caller's to keep (a copy). */
  turns(doc: Document): Element[] {
    if (!this.valid || this.attrs === undefined || !this.apply()) this.full(doc);
    return this.list.slice();
  }

  private full(doc: Document): void {
    this.fullQueries++;
    this.list = innermost(queryAll(doc, this.chain));
    this.tracked = new Set(this.list);
    this.pending = [];
    this.valid = true;
  }

  /** Applies the buffered records; false when the list could be wrong and must be queried again. */
  private apply(): boolean {
    const records = this.pending;
    this.pending = [];
    const found = new Set<Element>();
    for (const r of records) {
      if (r.type === "attributes") {
        if (!this.attrs!.has(r.attributeName ?? "") || !isElement(r.target)) continue;
        const el = r.target;
        const matches = this.matches(el);
        if (this.tracked.has(el) !== matches) {
          if (!matches) return false; // a turn stopped being one
          found.add(el);
        }
      } else if (r.type === "childList") {
        for (const node of r.removedNodes) {
          if (!isElement(node)) continue;
          if (this.tracked.has(node) || this.matches(node) || this.holdsMatch(node)) return false;
        }
        for (const node of r.addedNodes) {
          if (!isElement(node) || !node.isConnected) continue;
          if (this.matches(node)) found.add(node);
          for (const el of this.queryIn(node)) found.add(el);
        }
      }
    }
    if (found.size === 0) return true;
    const last = this.list[this.list.length - 1];
    const added: Element[] = [];
    for (const el of found) {
      if (!el.isConnected) continue; // added and removed again within the records: its removal was checked
      if (this.tracked.has(el)) return false; // moved: its place in the list is unknown
      // Only turns after the newest (not inside it: that would make the newest no longer innermost).
      if (last && (last.contains(el) || !startsAfter(el, last))) return false;
      added.push(el);
    }
    added.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & 4 ? -1 : 1));
    for (const el of innermost(added)) {
      this.list.push(el);
      this.tracked.add(el);
    }
    return true;
  }

  private matches(el: Element): boolean {
    return matchesAny(el, this.chain);
  }

  private holdsMatch(el: Element): boolean {
    if (el.firstElementChild === null) return false;
    try {
      return el.querySelector(this.joined) !== null;
    } catch {
      return queryAll(el, this.chain).length > 0;
    }
  }

  private queryIn(el: Element): Iterable<Element> {
    if (el.firstElementChild === null) return [];
    try {
      return el.querySelectorAll(this.joined);
    } catch {
      return queryAll(el, this.chain);
    }
  }
}
