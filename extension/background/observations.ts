// What each worker's page shows, as last reported: owns the `observed` table. Every report gets the next per-worker
// sequence number, updates the generating count and goes to the host as `conversation.state` (docs/extension.md).
import type { StateReport } from "../lib/content-protocol.ts";
import type { ObservedRecord, OrchestratorDb } from "./db.ts";
import type { GeneratingSlots } from "./generating-slots.ts";
import type { Timers } from "./native-connection.ts";
import type { Outbox } from "./outbox.ts";

/** Sequence numbers come from the clock, so dropping an old worker's last observation loses nothing. */
const OBSERVED_KEEP_MS = 7 * 24 * 60 * 60_000;

export interface ObservationsDeps {
  readonly db: OrchestratorDb;
  readonly timers: Timers;
  readonly outbox: Outbox;
  readonly slots: GeneratingSlots;
}

export class Observations {
  private readonly lastSeq = new Map<string, number>();

  constructor(private readonly deps: ObservationsDeps) {}

  /** At start-up: sequence numbers continue from the stored ones. */
  async load(): Promise<void> {
    for (const o of await this.deps.db.observed.toArray()) this.lastSeq.set(o.workerId, o.seq);
  }

  /**
   * Records an observation with the next per-worker sequence number and forwards it. A page's `closed` (it is going
   * away: reload, navigation) ends nothing: the binding follows the browser's tab events, and a reloaded page
   * reports its own state once it is back. Without `report` (recovery, before `hello`) an unchanged state is not
   * stored again and nothing is sent: `hello` carries it.
   */
  observe(workerId: string, report: StateReport, how: { report: boolean }): Promise<void> {
    if (report.state === "closed") return Promise.resolve();
    this.deps.slots.reported(workerId, report.state);
    return this.deps.outbox.step(async () => {
      const { db } = this.deps;
      const previous = await db.observed.get(workerId);
      if (
        !how.report &&
        previous?.state === report.state &&
        previous.errorCode === report.errorCode &&
        previous.continuationStatus === report.continuationStatus
      )
        return;
      const seq = this.nextSeq(workerId);
      const record: ObservedRecord = {
        workerId,
        state: report.state,
        seq,
        ...(report.errorCode !== undefined ? { errorCode: report.errorCode } : {}),
        ...(report.url !== undefined ? { url: report.url } : {}),
        ...(report.continuationStatus !== undefined ? { continuationStatus: report.continuationStatus } : {}),
        at: this.deps.timers.now(),
      };
      await db.observed.put(record);
      if (!how.report) return;
      this.deps.outbox.send({
        kind: "conversation.state",
        workerId,
        state: record.state,
        seq,
        ...(record.errorCode !== undefined ? { errorCode: record.errorCode } : {}),
        ...(record.url !== undefined ? { url: record.url } : {}),
        ...(record.continuationStatus !== undefined ? { continuationStatus: record.continuationStatus } : {}),
        // Forwarded, never stored here: the host decides what the block means for the worker.
        ...(report.continuationBlock !== undefined ? { continuationBlock: report.continuationBlock } : {}),
        ...(report.resetAt !== undefined ? { resetAt: report.resetAt } : {}),
        // The idle grace counts from the page's own end of turn, not from this report's arrival.
        ...(report.since !== undefined ? { since: report.since } : {}),
        // A turn's end only (the content bridge sends them with nothing else). The brief is transcript text: it goes
        // to the host and is never part of `record` (docs/extension.md, "What the extension stores").
        ...(report.handoffBrief !== undefined ? { handoffBrief: report.handoffBrief } : {}),
        ...(report.visibleChars !== undefined ? { visibleChars: report.visibleChars } : {}),
      });
    });
  }

  /** The worker's last observation, if any. */
  latest(workerId: string): Promise<ObservedRecord | undefined> {
    return this.deps.db.observed.get(workerId);
  }

  /** Every last observation (for `hello`). */
  all(): Promise<ObservedRecord[]> {
    return this.deps.db.observed.toArray();
  }

  /** The worker was released: nothing of it is kept. */
  async forget(workerId: string): Promise<void> {
    await this.deps.db.observed.delete(workerId);
  }

  /** Last observations of workers this browser no longer holds (`held`) are kept a while, then dropped. */
  async prune(held: ReadonlySet<string>): Promise<void> {
    const { db } = this.deps;
    const cutoff = this.deps.timers.now() - OBSERVED_KEEP_MS;
    const stale = (await db.observed.toArray()).filter((o) => !held.has(o.workerId) && o.at < cutoff);
    await db.observed.bulkDelete(stale.map((o) => o.workerId));
  }

  /** Strictly increasing per worker across restarts: never below the clock in microseconds. */
  private nextSeq(workerId: string): number {
    const seq = Math.max((this.lastSeq.get(workerId) ?? 0) + 1, Math.floor(this.deps.timers.now()) * 1000);
    this.lastSeq.set(workerId, seq);
    return seq;
  }
}
