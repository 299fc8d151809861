// Bounds the `worker_progress` summaries kept in the events table: a worker's newest 50 keep their text, older
// progress events keep everything but it (docs/privacy.md). Runs in the transaction that writes a new summary.
import type { WriteTx } from "./store-types.ts";

/** Progress summaries kept per worker (docs/privacy.md). */
export const KEPT_PROGRESS_SUMMARIES = 50;

// Through events_worker (worker_id, seq): the worker's rows only, read once per worker and process.
const SUMMARISED =
  "SELECT seq FROM events WHERE worker_id = ? AND type = 'worker.progress' " +
  "AND json_type(data, '$.summary') IS NOT NULL ORDER BY seq";
const STRIP = "UPDATE events SET data = json_remove(data, '$.summary') WHERE seq = ?";

/** What one transaction did to a worker's summaries: which seqs still hold one, and which lost theirs. */
export interface SummaryChange {
  readonly workerId: string;
  readonly kept: readonly number[];
  readonly stripped: readonly number[];
}

/**
 * Which events of each worker still hold a summary, so bounding them costs one UPDATE by primary key and no query
 * per worker_progress (docs/store.md, "Progress summaries"). The table stays the truth: a worker not yet seen is read
 * from it, and the repository starts over (or `forget`s workers) whenever the table changed other than through here.
 */
export class KeptSummaries {
  private readonly kept = new Map<string, readonly number[]>();

  /**
   * In the write transaction that inserted the worker's new summaries at `added`: strips those beyond the newest 50.
   * Memory is not changed here; `commit` the result once the transaction's callback has gone through.
   */
  bound(tx: WriteTx, workerId: string, added: readonly number[]): SummaryChange {
    const known = this.kept.get(workerId);
    // Read from the table, the list already holds the rows just inserted; more than 51 there (older data) are cut too.
    const all = known
      ? [...known, ...added]
      : tx.all<{ seq: number }>(SUMMARISED, [workerId]).map((r) => r.seq);
    const cut = Math.max(0, all.length - KEPT_PROGRESS_SUMMARIES);
    const stripped = all.slice(0, cut);
    // By primary key with the seq bound: replaying the journal strips the same rows.
    for (const seq of stripped) tx.run(STRIP, [seq]);
    return { workerId, kept: all.slice(cut), stripped };
  }

  commit(changes: readonly SummaryChange[]): void {
    for (const c of changes) this.kept.set(c.workerId, c.kept);
  }

  /** Drops what is known of these workers (their events left the live table). */
  forget(workerIds: Iterable<string>): void {
    for (const id of workerIds) this.kept.delete(id);
  }
}
