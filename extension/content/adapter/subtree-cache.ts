// Query results kept per subtree across scans, dropped as soon as a mutation record touches the subtree: a scan then
// walks only the parts of the page that changed since the last one (the composer, the newest turn), not the rest.
/**
 * Whether a chain's matches inside a subtree depend only on that subtree and its ancestors, and only on what mutation
 * records report: no sibling combinator (`~`, `+`), no `:has()` reaching elsewhere, and no pseudo-class but `:not()`
 * (`:hover`, `:checked`, `:focus`… change without a record). A chain that fails this is queried on every scan.
 */
export function cacheableChain(chain: readonly string[]): boolean {
  return chain.every((css) => {
    // Attribute selectors may hold anything (`[href*="a:b"]`): check what is outside them.
    const outside = css.replace(/\[[^\]]*\]/g, "[]");
    return !/[~+]/.test(outside) && !/:(?!not\()/.test(outside);
  });
}

/**
 * Results by subtree root and key. The records must come from an observer of the whole document with childList,
 * subtree, characterData and every attribute. A record invalidates each root it is inside (its target or an ancestor
 * of the target is the root). A record on an ancestor of a cached root (the "spine") is different: an attribute there
 * can change what a descendant combinator matches below, and a removal there can detach a root, which then changes
 * without records; either drops everything. Nodes added to the spine add new subtrees and change nothing cached.
 */
export class SubtreeCache {
  private readonly entries = new Map<Element, Map<string, unknown>>();
  private readonly spine = new Set<Node>();
  /**
   * Nodes whose ancestors' entries are all dropped already, since the last entry was added: streaming delivers its
   * records in many small batches on the same few targets, and a walk to the root for each would cost more than the
   * scan it saves. A node moved elsewhere later gets a record on its new parent, whose walk covers the new ancestors.
   */
  private readonly walked = new Set<Node>();
  /**
   * Changes whenever a record lands on the spine or everything is dropped: what depends only on the spine's elements
   * and their children (the page region around the thread) is still valid while it is unchanged.
   */
  spineVersion = 0;
  /** Results answered from the cache / computed (for tests). */
  hits = 0;
  misses = 0;

  /** Drops everything (records may have been missed: the observer was not attached). */
  clear(): void {
    this.spineVersion++;
    this.entries.clear();
    this.spine.clear();
    this.walked.clear();
  }

  /**
   * Applies records as they are delivered, in the observer's callback (a scan must not start with records of its
   * own still undelivered: take them from the observer and note them first). Doing it here rather than at the scan
   * keeps a scan from reading a whole turn's records in one go.
   */
  note(records: readonly MutationRecord[]): void {
    // With nothing kept and no spine no record matters. (Records can drop every entry while the spine stays: records on
    // the spine must still move `spineVersion`.)
    if (this.entries.size === 0 && this.spine.size === 0) return;
    // Streaming makes many records, nearly all on a few targets, and each getter of a record is a call into the
    // browser: only `target` is read, except on the spine. A removal elsewhere cannot detach a cached root (every
    // root's parent is on the spine), so it only invalidates what its target is inside. Each node's ancestors are
    // walked once between scans.
    const walked = this.walked;
    let previous: Node | undefined;
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      const target = r.target;
      if (target === previous) continue;
      previous = target;
      if (this.spine.has(target)) {
        this.spineVersion++;
        if (r.type === "attributes" || r.removedNodes.length > 0) {
          this.clear();
          return;
        }
        previous = undefined; // the next record on it may be a removal
      }
      // Nodes added under the spine are new subtrees, but the target and its ancestors now hold them.
      for (let cur: Node | null = target; cur && !walked.has(cur); cur = cur.parentNode) {
        walked.add(cur);
        this.entries.delete(cur as Element);
      }
    }
  }

  /** `compute()`'s result for `root` under `key`, from the cache while nothing under `root` changed. */
  get<T>(root: Element, key: string, compute: () => T): T {
    const kept = this.entries.get(root);
    if (kept?.has(key)) {
      this.hits++;
      return kept.get(key) as T;
    }
    this.misses++;
    const value = compute();
    if (!root.isConnected) return value; // a detached subtree changes without records
    this.walked.clear(); // a new entry: its ancestors must be walked again
    if (kept) kept.set(key, value);
    else {
      this.entries.set(root, new Map([[key, value]]));
      for (let cur = root.parentNode; cur && !this.spine.has(cur); cur = cur.parentNode) this.spine.add(cur);
    }
    return value;
  }
}
