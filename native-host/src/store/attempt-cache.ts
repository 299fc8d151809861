// Execution-attempt histories of recently read workers, kept equal to the attempts table by the repository's writes:
// worker_get returns a worker's history on every call, and a sql.js query per call was most of that call's cost.
import { freeze } from "immer";
import type { Attempt } from "../core/model.ts";

/** Workers whose history is kept, and the longest history kept (a longer one is read from the table each time). */
export const CACHED_WORKERS = 128;
export const CACHED_ATTEMPTS_PER_WORKER = 256;

export class AttemptCache {
  /** Least recently used first (Map keeps insertion order; a hit moves its worker to the end). */
  private readonly byWorker = new Map<string, Attempt[]>();

  constructor(
    private readonly maxWorkers = CACHED_WORKERS,
    private readonly maxPerWorker = CACHED_ATTEMPTS_PER_WORKER,
  ) {}

  /** A copy of the worker's history, oldest first; undefined when it is not kept. */
  get(workerId: string): Attempt[] | undefined {
    const list = this.byWorker.get(workerId);
    if (list === undefined) return undefined;
    this.byWorker.delete(workerId);
    this.byWorker.set(workerId, list);
    return [...list];
  }

  /** Keeps a history just read from the table (ordered by seq). */
  remember(workerId: string, attempts: readonly Attempt[]): void {
    if (attempts.length > this.maxPerWorker) return;
    this.byWorker.delete(workerId);
    this.byWorker.set(
      workerId,
      attempts.map((a) => freeze(a, true)),
    );
    for (const oldest of this.byWorker.keys()) {
      if (this.byWorker.size <= this.maxWorkers) break;
      this.byWorker.delete(oldest);
    }
  }

  /**
   * Mirrors the upsert into `attempts` of `json` (the stored text of one of `workerId`'s attempts) in a kept
   * history: the row replaced is the one with the same id (an attempt's id is `<worker>:<seq>`, so also the same
   * (worker, seq); the table's unique constraint would refuse any other).
   */
  written(workerId: string, json: string): void {
    const list = this.byWorker.get(workerId);
    if (list === undefined) return; // not kept: nothing to parse or update
    const attempt = JSON.parse(json) as Attempt;
    const kept = list.filter((a) => a.id !== attempt.id && a.seq !== attempt.seq);
    const at = kept.findIndex((a) => a.seq > attempt.seq);
    kept.splice(at < 0 ? kept.length : at, 0, freeze(attempt, true));
    if (kept.length > this.maxPerWorker) this.byWorker.delete(workerId);
    else this.byWorker.set(workerId, kept);
  }

  clear(): void {
    this.byWorker.clear();
  }
}
