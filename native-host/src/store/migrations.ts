// Numbered schema migrations of the host database. Append new ones; never edit one that has shipped.
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * Entities are stored as JSON documents (`data`) next to the columns queries filter on, so the
 * pure core's records round-trip without a hand-written mapping per field.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    sql: `
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE TABLE workers (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        path TEXT NOT NULL,
        disposition TEXT NOT NULL,
        data TEXT NOT NULL,
        UNIQUE (run_id, path)
      );
      CREATE TABLE attempts (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        worker_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        data TEXT NOT NULL,
        UNIQUE (worker_id, seq)
      );
      CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        to_worker TEXT NOT NULL,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX messages_inbox ON messages (to_worker, seq);
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        run_id TEXT,
        worker_id TEXT,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX events_run ON events (run_id, seq);
      CREATE INDEX events_worker ON events (worker_id, seq);
    `,
  },
  {
    version: 2,
    name: "completion-signal-policy",
    // Runs stored before version 2 (written by 0.1.0) get the new ContinuationPolicy fields with their defaults (json_type is
    // NULL only for a missing key; a stored JSON null is kept).
    sql: `
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.completionSignal', 'mcp')
        WHERE json_type(data, '$.defaultPolicy.completionSignal') IS NULL;
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.pauseAfterInvalidBlocks', 3)
        WHERE json_type(data, '$.defaultPolicy.pauseAfterInvalidBlocks') IS NULL;
    `,
  },
  {
    version: 3,
    name: "caps-and-rate-limit-policy",
    // Runs stored before the per-worker caps and the rate-limit buffer get the defaults (no caps, 2 min buffer).
    sql: `
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.maxAutoTurns', json('null'))
        WHERE json_type(data, '$.defaultPolicy.maxAutoTurns') IS NULL;
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.maxWallTimeMs', json('null'))
        WHERE json_type(data, '$.defaultPolicy.maxWallTimeMs') IS NULL;
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.rateLimitBufferMs', 120000)
        WHERE json_type(data, '$.defaultPolicy.rateLimitBufferMs') IS NULL;
    `,
  },
  {
    version: 4,
    name: "rollover-policy",
    // Runs stored before conversation rollover get its defaults: roll over at the length limit, no size budget,
    // 10 min for the handoff brief.
    sql: `
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.rolloverOnLimit', json('true'))
        WHERE json_type(data, '$.defaultPolicy.rolloverOnLimit') IS NULL;
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.rolloverAfterTurns', json('null'))
        WHERE json_type(data, '$.defaultPolicy.rolloverAfterTurns') IS NULL;
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.rolloverAtChars', json('null'))
        WHERE json_type(data, '$.defaultPolicy.rolloverAtChars') IS NULL;
      UPDATE runs SET data = json_set(data, '$.defaultPolicy.rolloverBriefTimeoutMs', 600000)
        WHERE json_type(data, '$.defaultPolicy.rolloverBriefTimeoutMs') IS NULL;
    `,
  },
  {
    version: 5,
    name: "notify-outbox",
    // Notifications decided and their delivery, one row per episode and channel (docs/operator-guide.md,
    // "Notifications"): the primary key makes deciding the same episode again a no-op, across restarts too.
    // outcome: pending, delivered, failed (given up) or dropped (resolved or channel off before delivery).
    sql: `
      CREATE TABLE notify_outbox (
        episode_key TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        decided_at INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        next_attempt_at INTEGER NOT NULL,
        last_attempt_at INTEGER,
        last_error TEXT,
        delivered_at INTEGER,
        ended_at INTEGER,
        PRIMARY KEY (episode_key, channel_id)
      ) WITHOUT ROWID;
      CREATE INDEX notify_outbox_pending ON notify_outbox (outcome, next_attempt_at);
    `,
  },
];
