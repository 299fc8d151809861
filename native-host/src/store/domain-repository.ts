// Persists the pure core's state: commits what the engine hands it (previous state, next state, events) as one durable
// transaction holding the changed records and their events, and answers the reads of what was committed.
import type { DomainEvent } from "../core/events.ts";
import type { Attempt, DomainState, Message, Run, Worker } from "../core/model.ts";
import { dispositionOf } from "../core/policy.ts";
import { AttemptCache } from "./attempt-cache.ts";
import type { DurableStore } from "./durable-store.ts";
import { KeptSummaries, type SummaryChange } from "./progress-summaries.ts";
import { type EventFilter, RecentEvents, type StoredEvent } from "./recent-events.ts";
import type { ReadTx, WriteTx } from "./store-types.ts";

export type { StoredEvent } from "./recent-events.ts";

const EVENT_SEQ_KEY = "event_seq";
/** The popup's global Auto Resume switch, Off when "1". */
const AUTO_RESUME_OFF_KEY = "auto_resume_off";

/**
 * The only writer of domain tables. `commit` writes what a transition changed in the same store transaction as the
 * events describing it; it resolves once that is on disk, so the transition's effects may leave the process.
 */
export class DomainRepository {
  /** What agents re-read most, kept in memory and updated with every write (the tables stay the truth). */
  private recent: RecentEvents;
  private attemptCache = new AttemptCache();
  /** Which events still hold a progress summary, per worker (bounded to the newest 50: docs/privacy.md). */
  private summaries = new KeptSummaries();

  private constructor(
    private readonly store: DurableStore,
    private current: DomainState,
    private eventSeq: number,
  ) {
    this.recent = new RecentEvents(eventSeq);
  }

  static open(store: DurableStore): DomainRepository {
    const { state, eventSeq } = store.read((q) => ({ state: loadState(q), eventSeq: loadEventSeq(q) }));
    return new DomainRepository(store, state, eventSeq);
  }

  get state(): DomainState {
    return this.current;
  }

  /**
   * Reads the state again from the store, dropping what is kept in memory: after the store rolled back writes the
   * disk refused, the state, the event counter and the caches must not keep the transactions that were refused.
   */
  reload(): void {
    const { state, eventSeq } = this.store.read((q) => ({ state: loadState(q), eventSeq: loadEventSeq(q) }));
    this.current = state;
    this.eventSeq = eventSeq;
    this.recent = new RecentEvents(eventSeq);
    this.attemptCache = new AttemptCache();
    this.summaries = new KeptSummaries();
  }

  get lastEventSeq(): number {
    return this.eventSeq;
  }

  /**
   * Commits one transition the engine computed: the records that changed from `prev` (the state this repository
   * holds) to `next`, and the events describing it, in one store transaction. The state, the event counter and the
   * caches change at once, before this returns, so the next transition starts from it; the promise resolves once the
   * transaction is on disk (only then may the transition's effects leave the process).
   */
  commit(prev: DomainState, next: DomainState, events: readonly DomainEvent[]): Promise<void> {
    if (prev !== this.current) throw new Error("commit: the transition did not start from the current state");
    const firstSeq = this.eventSeq + 1;
    let written: WrittenEvents = { dataJson: [], attempts: [], summaries: [] };
    let ran = false;
    const durable = this.store.write((tx) => {
      ran = true;
      writeChanges(tx, prev, next);
      written = writeEvents(tx, events, firstSeq, this.summaries);
    });
    // A store that takes no writes (closed, failed, or the disk refusing data) rejects without running the callback:
    // then nothing may change in memory either.
    if (!ran) return durable;
    this.current = next;
    this.eventSeq += events.length;
    this.recent.add(events, written.dataJson, firstSeq);
    this.summaries.commit(written.summaries);
    this.recent.dropSummaries(written.summaries.flatMap((c) => c.stripped));
    for (const a of written.attempts) this.attemptCache.written(a.workerId, a.json);
    return durable;
  }

  /** Events after a cursor, oldest first, from the live database. */
  eventsAfter(cursor: number, limit: number, filter: EventFilter = {}): StoredEvent[] {
    const recent = this.recent.after(cursor, limit, filter);
    if (recent) return recent;
    const where = ["seq > ?"];
    const params: (string | number)[] = [cursor];
    if (filter.runId) {
      where.push("run_id = ?");
      params.push(filter.runId);
    }
    if (filter.workerId) {
      where.push("worker_id = ?");
      params.push(filter.workerId);
    }
    params.push(limit);
    return this.store.read((q) =>
      q
        .all<EventRow>(`SELECT * FROM events WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ?`, params)
        .map(toStoredEvent),
    );
  }

  attempts(workerId: string): Attempt[] {
    const kept = this.attemptCache.get(workerId);
    if (kept) return kept;
    const attempts = this.store.read((q) =>
      q
        .all<{ data: string }>("SELECT data FROM attempts WHERE worker_id = ? ORDER BY seq", [workerId])
        .map((r) => JSON.parse(r.data) as Attempt),
    );
    this.attemptCache.remember(workerId, attempts);
    return attempts;
  }

  inbox(workerId: string, afterSeq: number): Message[] {
    return this.store.read((q) =>
      q
        .all<{ data: string }>("SELECT data FROM messages WHERE to_worker = ? AND seq > ? ORDER BY seq", [
          workerId,
          afterSeq,
        ])
        .map((r) => JSON.parse(r.data) as Message),
    );
  }

  /**
   * Finished runs' events leave the live database for the append-only archive, so snapshots and memory stay
   * bounded. Only runs ended at least `retainMs` ago: their last events must stay readable by events_wait.
   */
  async archiveEndedRuns(now: number, retainMs: number): Promise<number> {
    let moved = 0;
    let cursorSaved = false;
    for (const run of Object.values(this.current.runs)) {
      if (run.status === "active" || run.endedAt === undefined || run.endedAt + retainMs > now) continue;
      const live = this.store.read((q) =>
        q.get("SELECT 1 AS x FROM events WHERE run_id = ? LIMIT 1", [run.id]),
      );
      if (!live) continue;
      // Archived events leave the live table: keep the cursor past them, or a restart would hand out their seqs
      // again. Once per call: the events archived below are all older than this cursor.
      if (!cursorSaved) {
        const cursor = this.eventSeq;
        await this.store.write((tx) =>
          tx.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [EVENT_SEQ_KEY, String(cursor)]),
        );
        cursorSaved = true;
      }
      // The run's events leave the live table when the move commits: forget the kept ones first, so no read in
      // between answers from memory what the table no longer holds (the move is all or nothing).
      this.recent.clear(this.eventSeq);
      this.summaries.forget(
        Object.values(this.current.workers).flatMap((w) => (w.runId === run.id ? [w.id] : [])),
      );
      moved += await this.store.moveToArchive(
        { sql: "SELECT * FROM events WHERE run_id = ? ORDER BY seq", params: [run.id] },
        { sql: "DELETE FROM events WHERE run_id = ?", params: [run.id] },
      );
      this.recent.clear(this.eventSeq);
    }
    return moved;
  }
}

interface EventRow {
  seq: number;
  run_id: string;
  worker_id: string | null;
  type: string;
  at: number;
  data: string;
}

function toStoredEvent(r: EventRow): StoredEvent {
  return {
    seq: r.seq,
    type: r.type as DomainEvent["type"],
    at: r.at,
    runId: r.run_id,
    ...(r.worker_id ? { workerId: r.worker_id } : {}),
    data: JSON.parse(r.data) as Record<string, unknown>,
  };
}

function loadState(q: ReadTx): DomainState {
  const runs: Record<string, Run> = {};
  for (const r of q.all<{ data: string }>("SELECT data FROM runs")) {
    const run = JSON.parse(r.data) as Run;
    runs[run.id] = run;
  }
  const workers: Record<string, Worker> = {};
  for (const r of q.all<{ data: string }>("SELECT data FROM workers")) {
    const w = JSON.parse(r.data) as Worker;
    workers[w.id] = w;
  }
  const unread: Record<string, Message> = {};
  for (const w of Object.values(workers)) {
    for (const r of q.all<{ data: string }>("SELECT data FROM messages WHERE to_worker = ? AND seq > ?", [
      w.id,
      w.inboxReadSeq,
    ])) {
      const m = JSON.parse(r.data) as Message;
      unread[m.id] = m;
    }
  }
  const off = q.get<{ value: string }>("SELECT value FROM meta WHERE key = ?", [AUTO_RESUME_OFF_KEY]);
  return { runs, workers, unread, ...(off?.value === "1" ? { autoResumeOff: true } : {}) };
}

/**
 * The event cursor: the newest live event, or the newest archived one (recorded before each archiving) when the live
 * table holds nothing newer. Not written on every commit: one statement less on the commit path.
 */
function loadEventSeq(q: ReadTx): number {
  const row = q.get<{ value: string }>("SELECT value FROM meta WHERE key = ?", [EVENT_SEQ_KEY]);
  const live = q.get<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM events", [])?.seq ?? 0;
  return Math.max(row ? Number(row.value) : 0, live);
}

/** Upserts exactly the records the transition replaced (immer keeps unchanged ones identical). */
function writeChanges(tx: WriteTx, prev: DomainState, next: DomainState): void {
  if ((prev.autoResumeOff ?? false) !== (next.autoResumeOff ?? false)) {
    tx.run(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [AUTO_RESUME_OFF_KEY, next.autoResumeOff === true ? "1" : "0"],
    );
  }
  // An upsert, not INSERT OR REPLACE: that deletes the row and inserts it again under a new rowid, rewriting every
  // index page it is in, where updating the unindexed columns in place changes just the row's own page.
  for (const [id, run] of Object.entries(next.runs)) {
    if (prev.runs[id] === run) continue;
    tx.run(
      "INSERT INTO runs (id, status, created_at, data) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT (id) DO UPDATE SET status = excluded.status, data = excluded.data",
      [id, run.status, run.createdAt, JSON.stringify(run)],
    );
  }
  for (const [id, w] of Object.entries(next.workers)) {
    if (prev.workers[id] === w) continue;
    tx.run(
      "INSERT INTO workers (id, run_id, path, disposition, data) VALUES (?, ?, ?, ?, ?) " +
        "ON CONFLICT (id) DO UPDATE SET disposition = excluded.disposition, data = excluded.data",
      [id, w.runId, w.path, dispositionOf(w), JSON.stringify(w)],
    );
  }
  for (const [id, m] of Object.entries(next.unread)) {
    if (prev.unread[id]) continue;
    tx.run("INSERT INTO messages (id, run_id, to_worker, seq, data) VALUES (?, ?, ?, ?, ?)", [
      id,
      m.runId,
      m.to,
      m.seq,
      JSON.stringify(m),
    ]);
  }
}

/**
 * The stored text of what writeEvents wrote: each event's data, each attempt row with its worker, and what it did to
 * the progress summaries kept.
 */
interface WrittenEvents {
  dataJson: string[];
  attempts: { workerId: string; json: string }[];
  summaries: SummaryChange[];
}

/**
 * Appends events and projects execution attempts (every attempt change carries its snapshot). A new progress summary
 * bounds its worker's kept summaries in the same transaction (docs/privacy.md).
 */
function writeEvents(
  tx: WriteTx,
  events: readonly DomainEvent[],
  firstSeq: number,
  summaries: KeptSummaries,
): WrittenEvents {
  const written: WrittenEvents = { dataJson: [], attempts: [], summaries: [] };
  const summarised = new Map<string, number[]>();
  events.forEach((e, i) => {
    const data = JSON.stringify(e.data);
    written.dataJson.push(data);
    tx.run("INSERT INTO events (seq, run_id, worker_id, type, at, data) VALUES (?, ?, ?, ?, ?, ?)", [
      firstSeq + i,
      e.runId,
      e.workerId ?? null,
      e.type,
      e.at,
      data,
    ]);
    const attempt = e.data.execution as Attempt | undefined;
    if (attempt) {
      const json = JSON.stringify(attempt);
      written.attempts.push({ workerId: attempt.workerId, json });
      tx.run(
        "INSERT INTO attempts (id, run_id, worker_id, seq, state, data) VALUES (?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT (id) DO UPDATE SET state = excluded.state, data = excluded.data",
        [attempt.id, attempt.runId, attempt.workerId, attempt.seq, attempt.state, json],
      );
    }
    if (e.type === "worker.progress" && e.workerId && typeof e.data.summary === "string") {
      summarised.set(e.workerId, [...(summarised.get(e.workerId) ?? []), firstSeq + i]);
    }
  });
  for (const [workerId, added] of summarised) written.summaries.push(summaries.bound(tx, workerId, added));
  return written;
}
