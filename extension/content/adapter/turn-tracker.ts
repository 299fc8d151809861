// The conversation's turn containers, kept up to date from mutation records instead of being queried again on every
// scan: a long thread (thousands of elements) is walked only when tracking cannot be sure (see `TurnTracker`).
import { documentOrder, innermost, isElement, matchesAny, queryAll, startsAfter } from "./dom.ts";

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
 * follows an uncertain change queries the whole document; otherwise the list is kept from mutation records, read as
 * they are delivered (`note`): a turn added after the newest is appended, and anything else that could change the list
 * (a removed subtree holding a turn, a turn added before or inside the newest, a turn attribute changed, a thread
 * remounted, records dropped) makes the next call query afresh. The records must come from an observer of the whole
 * document with childList, subtree and attributes; `reset()` whenever records may have been missed.
 */
export class TurnTracker {
  private list: Element[] = [];
  private tracked = new Set<Element>();
  /** Whether `list` was handed out by `turns()` (then it is copied before it changes). */
  private shared = false;
  private valid = false;
  /** Whether a record since the last `turns()` fell outside the newest turn or changed the list. */
  private changedOutside = false;
  private readonly joined: string;
  private readonly attrs: Set<string> | undefined;
  /** Full queries made so far (tests check that tracking did not fall back when it should not). */
  fullQueries = 0;
  /**
   * Whether every record between the last two `turns()` calls was inside the newest turn (including characterData and
   * any attribute), with the list unchanged: the page outside that turn is as it was at the previous call (page-scan.ts
   * reuses what it found there). False after a full query, so after a reset.
   */
  insideNewest = false;

  constructor(private readonly chain: readonly string[]) {
    this.joined = chain.join(", ");
    this.attrs = watchedAttributes(chain);
  }

  /**
   * Reads records as they are delivered, in the observer's callback: a scan then finds the list up to date instead of
   * reading a whole turn's worth of records in one go (each record getter is a call into the browser).
   */
  note(records: readonly MutationRecord[]): void {
    if (!this.valid || this.attrs === undefined || records.length === 0) return;
    if (!this.apply(records)) this.valid = false;
  }

  /** Forget everything: the next `turns()` queries the document. */
  reset(): void {
    this.valid = false;
  }

  /** The current turn list; the caller may keep it (it is never changed in place). */
  turns(doc: Document): readonly Element[] {
    if (!this.valid || this.attrs === undefined) this.full(doc);
    else this.insideNewest = !this.changedOutside;
    this.changedOutside = false;
    // Shared until the next append copies it (scans far outnumber new turns; a long thread's list is thousands long).
    this.shared = true;
    return this.list;
  }

  private full(doc: Document): void {
    this.fullQueries++;
    this.insideNewest = false;
    this.list = innermost(queryAll(doc, this.chain));
    this.shared = false;
    this.tracked = new Set(this.list);
    this.valid = true;
  }

  /**
   * Applies a batch of records; false when the list could be wrong and must be queried again. A record whose target
   * is inside a turn (the newest, or one added by an earlier record of the batch: streaming text, most of a long
   * answer's records) is not read node by node. Turns are innermost matches, so nothing removed from inside one was
   * a turn, and one query per such turn at the end finds a turn added inside it. Containment is judged at the end,
   * not when the record was made, so a removal is trusted only if nothing between its target and the turn was added
   * after it (a subtree moved into the turn later in the batch could have lost a turn first); otherwise every tracked
   * turn must still be connected.
   */
  private apply(records: readonly MutationRecord[]): boolean {
    const last = this.list[this.list.length - 1];
    const found = new Set<Element>();
    /** The turn (newest or found) each record target is in, null for none; judged once per target. */
    const turnOf = new Map<Node, Element | null>();
    /** Indexes of the records inside turns, by target; the first removal of each such target. */
    const byTarget = new Map<Node, number[]>();
    const firstRemoval = new Map<Node, { index: number; turn: Element }>();
    /** Turns to query for a nested turn at the end (something was added inside, or an attribute changed there). */
    const checkInside = new Set<Element>();
    /** The record that last added each element outside turns (found turns among them). */
    const addedAt = new Map<Node, number>();
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      const target = r.target;
      let turn = turnOf.get(target);
      if (turn === undefined) {
        turn = null;
        if (found.size === 0) {
          // The common case (streaming): one native call instead of a step per ancestor.
          if (last?.contains(target)) turn = last;
        } else {
          for (let cur: Node | null = target; cur; cur = cur.parentNode) {
            if (cur === last || found.has(cur as Element)) {
              turn = cur as Element;
              break;
            }
          }
        }
        turnOf.set(target, turn);
      }
      const type = r.type;
      // An attribute of a turn itself can make it stop being one: that record takes the full path.
      if (turn !== null && !(type === "attributes" && target === turn)) {
        if (turn !== last) this.changedOutside = true;
        if (type === "childList") {
          let indexes = byTarget.get(target);
          if (!indexes) byTarget.set(target, (indexes = []));
          indexes.push(i);
          if (!checkInside.has(turn) && r.addedNodes.length > 0) checkInside.add(turn);
          if (!firstRemoval.has(target) && r.removedNodes.length > 0)
            firstRemoval.set(target, { index: i, turn });
        } else if (
          type === "attributes" &&
          !checkInside.has(turn) &&
          this.attrs!.has(r.attributeName ?? "")
        ) {
          checkInside.add(turn); // an element inside may have become a turn
        }
        continue;
      }
      this.changedOutside = true;
      if (type === "attributes") {
        if (!this.attrs!.has(r.attributeName ?? "") || !isElement(target)) continue;
        const matches = this.matches(target);
        if (this.tracked.has(target) !== matches) {
          if (!matches) return false; // a turn stopped being one
          found.add(target);
        }
      } else if (type === "childList") {
        for (const node of r.removedNodes) {
          if (!isElement(node)) continue;
          if (this.tracked.has(node) || this.matches(node) || this.holdsMatch(node)) return false;
        }
        for (const node of r.addedNodes) {
          addedAt.set(node, i);
          if (!isElement(node) || !node.isConnected) continue;
          if (this.matches(node)) found.add(node);
          for (const el of this.queryIn(node)) found.add(el);
        }
      }
    }
    for (const turn of checkInside) if (turn.isConnected && this.holdsMatch(turn)) return false;
    if (this.movedIn(records, byTarget, firstRemoval, addedAt) && this.list.some((el) => !el.isConnected))
      return false;
    if (found.size === 0) return true;
    this.changedOutside = true;
    const added: Element[] = [];
    for (const el of found) {
      if (!el.isConnected) continue; // added and removed again within the records: its removal was checked
      if (this.tracked.has(el)) return false; // moved: its place in the list is unknown
      // Only turns after the newest (not inside it: that would make the newest no longer innermost).
      if (last && (last.contains(el) || !startsAfter(el, last))) return false;
      added.push(el);
    }
    added.sort(documentOrder);
    if (this.shared && added.length > 0) {
      this.list = this.list.slice();
      this.shared = false;
    }
    for (const el of innermost(added)) {
      this.list.push(el);
      this.tracked.add(el);
    }
    return true;
  }

  /**
   * Whether a node between a removal's target and its turn (the turn included) was added after that removal: then the
   * target may have been outside any turn when the removal happened, and what it removed is unknown.
   */
  private movedIn(
    records: readonly MutationRecord[],
    byTarget: ReadonlyMap<Node, number[]>,
    firstRemoval: ReadonlyMap<Node, { index: number; turn: Element }>,
    addedAt: ReadonlyMap<Node, number>,
  ): boolean {
    for (const [target, { index, turn }] of firstRemoval) {
      for (let cur: Node | null = target; cur; cur = cur.parentNode) {
        if ((addedAt.get(cur) ?? -1) > index) return true;
        if (cur === turn) break;
        const parent: Node | null = cur.parentNode;
        const later: readonly number[] = (parent ? byTarget.get(parent) : undefined) ?? [];
        for (const i of later) {
          if (i > index && [...records[i]!.addedNodes].includes(cur)) return true;
        }
      }
    }
    return false;
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
