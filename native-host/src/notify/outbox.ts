// The notification outbox (docs/operator-guide.md, "Notifications"): one row per episode and channel in the store's
// `notify_outbox` table (migration 5), so a notification decided before a crash is still sent after it, and once.
// Its own small writer: only this file touches the table.
import type { ChannelStatus, NotificationPayload } from "../../../shared/notify-settings.ts";
import type { DurableStore } from "../store/durable-store.ts";
import type { WriteTx } from "../store/store-types.ts";

export type Outcome = "pending" | "delivered" | "failed" | "dropped";

export interface OutboxRow {
  readonly episodeKey: string;
  readonly channelId: string;
  readonly kind: NotificationPayload["kind"];
  readonly payload: NotificationPayload;
  readonly decidedAt: number;
  readonly outcome: Outcome;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly lastAttemptAt: number | null;
  readonly lastError: string | null;
  readonly deliveredAt: number | null;
  readonly endedAt: number | null;
}

/** A notification decided for one channel. */
export interface Decision {
  readonly channelId: string;
  readonly payload: NotificationPayload;
}

/** A Needs-you episode that is over: its rows get `ended_at`; one still pending is dropped (no longer true). */
export interface Ending {
  readonly episodeKey: string;
  readonly channelId: string;
}

/** The outcome of one delivery attempt, as the sender records it. */
export type AttemptRecord =
  | { readonly outcome: "delivered" }
  | { readonly outcome: "retry"; readonly error: string; readonly nextAttemptAt: number }
  | { readonly outcome: "failed"; readonly error: string }
  | { readonly outcome: "dropped"; readonly error: string | null };

interface DbRow {
  episode_key: string;
  channel_id: string;
  kind: string;
  payload: string;
  decided_at: number;
  outcome: string;
  attempts: number;
  next_attempt_at: number;
  last_attempt_at: number | null;
  last_error: string | null;
  delivered_at: number | null;
  ended_at: number | null;
}

function toRow(r: DbRow): OutboxRow {
  return {
    episodeKey: r.episode_key,
    channelId: r.channel_id,
    kind: r.kind as OutboxRow["kind"],
    payload: JSON.parse(r.payload) as NotificationPayload,
    decidedAt: r.decided_at,
    outcome: r.outcome as Outcome,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastAttemptAt: r.last_attempt_at,
    lastError: r.last_error,
    deliveredAt: r.delivered_at,
    endedAt: r.ended_at,
  };
}

const INSERT =
  "INSERT INTO notify_outbox (episode_key, channel_id, kind, payload, decided_at, outcome, attempts, next_attempt_at) " +
  "VALUES (?, ?, ?, ?, ?, 'pending', 0, ?) ON CONFLICT (episode_key, channel_id) DO NOTHING";

/** Kinds whose episode can end while the host watches (and so be dropped undelivered, or followed by "resolved"). */
const ENDING_KINDS = "('needs_you')";

export class Outbox {
  constructor(private readonly store: DurableStore) {}

  /** Which of `keys` already have a row for each channel: "key\nchannel". */
  existing(keys: readonly string[]): Set<string> {
    const out = new Set<string>();
    if (keys.length === 0) return out;
    // Chunked: SQLite binds at most 999 parameters per statement in older builds.
    for (let i = 0; i < keys.length; i += 500) {
      const chunk = keys.slice(i, i + 500);
      const rows = this.store.read((q) =>
        q.all<{ episode_key: string; channel_id: string }>(
          `SELECT episode_key, channel_id FROM notify_outbox WHERE episode_key IN (${chunk.map(() => "?").join(",")})`,
          chunk,
        ),
      );
      for (const r of rows) out.add(`${r.episode_key}\n${r.channel_id}`);
    }
    return out;
  }

  /** Needs-you rows whose episode has not been seen to end yet. */
  unended(): OutboxRow[] {
    return this.store.read((q) =>
      q
        .all<DbRow>(`SELECT * FROM notify_outbox WHERE kind IN ${ENDING_KINDS} AND ended_at IS NULL`)
        .map(toRow),
    );
  }

  /**
   * One transaction: new decisions (a row that exists already is left alone: that is the deduplication), and the
   * episodes that ended (a row still pending is dropped). Resolves with the number of rows inserted, once durable.
   */
  decide(decisions: readonly Decision[], endings: readonly Ending[], now: number): Promise<number> {
    return this.store.write((tx) => {
      let inserted = 0;
      for (const d of decisions) {
        const exists = tx.get("SELECT 1 AS x FROM notify_outbox WHERE episode_key = ? AND channel_id = ?", [
          d.payload.episode,
          d.channelId,
        ]);
        if (exists) continue;
        tx.run(INSERT, [d.payload.episode, d.channelId, d.payload.kind, JSON.stringify(d.payload), now, now]);
        inserted++;
      }
      for (const e of endings) endRow(tx, e, now);
      return inserted;
    });
  }

  /** Rows waiting to be sent whose time has come, oldest decision first. */
  due(now: number): OutboxRow[] {
    return this.store.read((q) =>
      q
        .all<DbRow>(
          "SELECT * FROM notify_outbox WHERE outcome = 'pending' AND next_attempt_at <= ? ORDER BY decided_at, episode_key",
          [now],
        )
        .map(toRow),
    );
  }

  /** When the earliest pending row is next due; null when nothing waits. */
  nextDueAt(): number | null {
    const row = this.store.read((q) =>
      q.get<{ at: number | null }>(
        "SELECT MIN(next_attempt_at) AS at FROM notify_outbox WHERE outcome = 'pending'",
      ),
    );
    return row?.at ?? null;
  }

  /** Records one attempt (or a drop) of a pending row; a row that is no longer pending is left alone. */
  record(episodeKey: string, channelId: string, record: AttemptRecord, now: number): Promise<void> {
    return this.store.write((tx) => {
      const where = "WHERE episode_key = ? AND channel_id = ? AND outcome = 'pending'";
      const key = [episodeKey, channelId];
      switch (record.outcome) {
        case "delivered":
          tx.run(
            `UPDATE notify_outbox SET outcome = 'delivered', attempts = attempts + 1, last_attempt_at = ?, ` +
              `delivered_at = ?, last_error = NULL ${where}`,
            [now, now, ...key],
          );
          return;
        case "retry":
          tx.run(
            `UPDATE notify_outbox SET attempts = attempts + 1, last_attempt_at = ?, last_error = ?, ` +
              `next_attempt_at = ? ${where}`,
            [now, record.error, record.nextAttemptAt, ...key],
          );
          return;
        case "failed":
          tx.run(
            `UPDATE notify_outbox SET outcome = 'failed', attempts = attempts + 1, last_attempt_at = ?, ` +
              `last_error = ? ${where}`,
            [now, record.error, ...key],
          );
          return;
        case "dropped":
          tx.run(
            `UPDATE notify_outbox SET outcome = 'dropped', last_error = COALESCE(?, last_error) ${where}`,
            [record.error, ...key],
          );
          return;
      }
    });
  }

  /**
   * Each channel's delivery status from its rows: the last attempt and delivery, the error of the last attempt if it
   * failed (null once one succeeded after it), and how many still wait.
   */
  statuses(): Map<string, ChannelStatus> {
    const rows = this.store.read((q) =>
      q.all<{
        channel_id: string;
        last_attempt_at: number | null;
        last_delivered_at: number | null;
        pending: number;
      }>(
        "SELECT channel_id, MAX(last_attempt_at) AS last_attempt_at, MAX(delivered_at) AS last_delivered_at, " +
          "SUM(CASE WHEN outcome = 'pending' THEN 1 ELSE 0 END) AS pending FROM notify_outbox GROUP BY channel_id",
      ),
    );
    const out = new Map<string, ChannelStatus>();
    for (const r of rows) {
      let lastError: string | null = null;
      if (r.last_attempt_at !== null && r.last_attempt_at !== r.last_delivered_at) {
        const latest = this.store.read((q) =>
          q.get<{ last_error: string | null }>(
            "SELECT last_error FROM notify_outbox WHERE channel_id = ? AND last_attempt_at = ? " +
              "AND last_error IS NOT NULL ORDER BY decided_at DESC LIMIT 1",
            [r.channel_id, r.last_attempt_at],
          ),
        );
        lastError = latest?.last_error ?? null;
      }
      out.set(r.channel_id, {
        lastAttemptAt: r.last_attempt_at,
        lastDeliveredAt: r.last_delivered_at,
        lastError,
        pending: r.pending,
      });
    }
    return out;
  }

  /**
   * Forgets rows that are settled and old: decided before `before`, no longer pending, and (for Needs-you rows) seen
   * to end, so that no open episode can be decided again for want of its row.
   */
  prune(before: number): Promise<void> {
    const where =
      `decided_at < ? AND outcome <> 'pending' ` +
      `AND (kind NOT IN ${ENDING_KINDS} OR ended_at IS NOT NULL)`;
    // Nothing to forget, nothing written: an idle backend's store (and its journal) stays as it is.
    const any = this.store.read((q) =>
      q.get(`SELECT 1 AS x FROM notify_outbox WHERE ${where} LIMIT 1`, [before]),
    );
    if (!any) return Promise.resolve();
    return this.store.write((tx) => tx.run(`DELETE FROM notify_outbox WHERE ${where}`, [before]));
  }

  /** Every row, for tests and diagnostics. */
  all(): OutboxRow[] {
    return this.store.read((q) =>
      q.all<DbRow>("SELECT * FROM notify_outbox ORDER BY decided_at, episode_key, channel_id").map(toRow),
    );
  }
}

function endRow(tx: WriteTx, e: Ending, now: number): void {
  tx.run(
    "UPDATE notify_outbox SET ended_at = ?, " +
      "outcome = CASE WHEN outcome = 'pending' THEN 'dropped' ELSE outcome END " +
      "WHERE episode_key = ? AND channel_id = ? AND ended_at IS NULL",
    [now, e.episodeKey, e.channelId],
  );
}
