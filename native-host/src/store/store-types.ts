// Public types of the durable store: SQL values and parameters, the read/write transaction handles, options, stats.
import type { Migration } from "./migrations.ts";

/** A value SQLite hands back or accepts: INTEGER/REAL as number, TEXT as string, BLOB as Uint8Array. */
export type SqlValue = string | number | null | Uint8Array;

/**
 * Positional (`?`) parameters, or named ones keyed with their prefix (`{ ":id": 1 }`, `{ "$id": 1 }`).
 * Numbers must be finite: they are journalled as JSON and must replay to the same value.
 */
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, string | number | null>>;

export type Row = Record<string, SqlValue>;

export interface ReadTx {
  all<R = Row>(sql: string, params?: SqlParams): R[];
  get<R = Row>(sql: string, params?: SqlParams): R | undefined;
}

export interface WriteTx extends ReadTx {
  /** Runs one statement (or, without params, a `;`-separated script) and records it in the transaction's journal record. */
  run(sql: string, params?: SqlParams): void;
}

export interface StoreLogger {
  warn(msg: string): void;
  info(msg: string): void;
}

/** Named moments at which a crash test may kill the process (see `StoreOptions.faultHook`). */
export type StoreFaultPoint =
  | "journal-writing" // a batch is about to be written to the journal (a throwing hook acts as a failed write)
  | "journal-written" // a batch is in the journal's page cache, fdatasync not yet done (a throw: a failed sync)
  | "journal-probe" // after the disk refused a batch, the store is about to try it again
  | "snapshot-written" // the snapshot temp file is complete and fsynced, not yet renamed
  | "snapshot-renamed" // the new snapshot is in place, the journal not yet reset
  | "archive-appended"; // rows are fsynced in the archive, their delete not yet journalled

export interface StoreOptions {
  /** Data directory (created if missing, mode 0700). */
  dir: string;
  /** Schema migrations, applied once each, in version order. */
  migrations: readonly Migration[];
  /** Where warnings (e.g. a cut journal tail) go; defaults to stderr for warn and nowhere for info. */
  log?: StoreLogger;
  /** Journal size that triggers a snapshot (default 1 MiB: bounds the replay at startup). */
  snapshotAfterBytes?: number;
  /**
   * Zeros written ahead of the journal's records, so a commit's fdatasync overwrites allocated blocks instead of
   * growing the file (default 1.5 × snapshotAfterBytes, between 64 KiB and 8 MiB; 0 turns preallocation off).
   */
  journalPreallocateBytes?: number;
  /**
   * After the disk refused a batch, the first retry waits this long (default 1 s), each later one twice as long up to
   * 10 s. Writes are refused with STORE_IO meanwhile.
   */
  ioRetryMs?: number;
  /**
   * Called when the files hold fewer transactions than the store had acknowledged (see StoreLoss); resolving true opens
   * the store anyway (`orchestrator repair --accept-loss`). Without it such a directory is refused with STORE_CORRUPT.
   */
  acceptLoss?: (loss: StoreLoss) => boolean | Promise<boolean>;
  /**
   * Test-only: called at the named points so a crash test can SIGKILL the process exactly there, or throw an
   * operating-system error (e.g. `code: "ENOSPC"`) to stand for the disk refusing that step.
   */
  faultHook?: (point: StoreFaultPoint) => void;
}

/**
 * Whether the store takes writes. After a write or fdatasync the disk refused (full, quota, I/O error) it holds the
 * state that is on disk, answers reads, refuses writes with `error` (STORE_IO) and retries by itself.
 */
export type StoreHealth =
  | { readonly writable: true }
  | {
      readonly writable: false;
      readonly code: "STORE_IO";
      readonly message: string;
      readonly path: string;
      /** When writes were first refused (ms since the epoch). */
      readonly since: number;
      /** When the store tries the disk again. */
      readonly nextRetryAt: number;
    };

/** Transactions that were acknowledged but are no longer in the store's files. */
export interface StoreLoss {
  /** The highest seq store.mark says was acknowledged (null: unknown, the mark is gone with the files). */
  readonly acknowledgedSeq: number | null;
  /** The highest seq the files still hold. */
  readonly keptSeq: number;
  /** What is missing and what to do, naming the files. */
  readonly message: string;
  /** The file at fault. */
  readonly path: string;
}

export interface StoreStats {
  /** Bytes of store.journal up to the end of its records, header included (the preallocated zeros after them not). */
  journalBytes: number;
  /** Size of the last snapshot file written or loaded (0 if none). */
  snapshotBytes: number;
  /** Sequence number of the last committed transaction (durable or not yet). */
  lastSeq: number;
  /** Every transaction with seq <= durableSeq is on disk. */
  durableSeq: number;
  /** Last transaction contained in the snapshot on disk. */
  snapshotSeq: number;
  /** Owner generation (see owner.json). */
  generation: number;
  /** Size of the in-memory database image (page_count * page_size): what a snapshot writes. */
  liveDbBytes: number;
  /** Committed length of events-archive.log. */
  archiveBytes: number;
  /** Snapshots taken since open. */
  snapshotsTaken: number;
  /** How long the last snapshot's synchronous export blocked the event loop, in ms. */
  lastSnapshotStallMs: number;
  /** Transactions committed in memory whose journal record is not yet fdatasync'ed. */
  pendingTransactions: number;
  /** A snapshot (export, write, rename, journal reset) is under way. */
  snapshotInProgress: boolean;
  /** Journal batches made durable since open, by how their fdatasync ran (see journal-writer.ts). */
  journalSyncs: { blocking: number; threadPool: number; lastSyncMs: number };
}
