// DurableStore: sql.js in memory, made durable by a checksummed journal of every write transaction (group-committed,
// fdatasync'ed before the write resolves) and periodic atomic snapshots; the contract is docs/store.md.
// Opening is in open-phases.ts and the write handle in write-handle.ts. The rest stays one class on purpose (over 400
// lines): its states (open, degraded, closing, closed, failed) gate every write, snapshot, archive move and disk retry,
// and the orderings between those (no commit between export and retainAfter, rollback before anyone sees a failed
// batch) can only be checked when read together.
import { fdatasyncSync, openSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { SqlJsStatic } from "sql.js";
import { AckMarkWriter } from "./ack-mark.ts";
import { type ArchiveReadOptions, EventArchive } from "./archive.ts";
import { frameText } from "./frame-codec.ts";
import { JournalWriter } from "./journal-writer.ts";
import { applyMigrations, checkMigrations } from "./migration-runner.ts";
import { recoverState, repairFiles } from "./open-phases.ts";
import { acquireOwnerLock, type OwnerLock } from "./owner-lock.ts";
import { encodeRows, txRecordText } from "./record-codec.ts";
import { inspectDataFiles, replayJournal } from "./recovery.ts";
import { encodeSnapshotBody, writeSnapshotFile } from "./snapshot-file.ts";
import { loadSqlJs, SqlEngine } from "./sql-engine.ts";
import { isPlainSelect } from "./sql-guards.ts";
import { StoreError, describeError, isStoreError } from "./store-error.ts";
import { ARCHIVE_END_KEY, dataFilePaths, JOURNAL_FILE, SNAPSHOT_FILE } from "./store-files.ts";
import type {
  ReadTx,
  Row,
  SqlParams,
  StoreFaultPoint,
  StoreHealth,
  StoreLoss,
  StoreLogger,
  StoreOptions,
  StoreStats,
  WriteTx,
} from "./store-types.ts";
import { assertLive, isThenable, WriteHandle } from "./write-handle.ts";

export { ARCHIVE_FILE, JOURNAL_FILE, SNAPSHOT_FILE } from "./store-files.ts";

/**
 * Startup replays the whole journal: about 0.12 s per MiB of small transactions on an idle 2-core machine (JSON
 * decode plus SQLite on Liftoff), two to three times that when the machine is busy, while a snapshot costs about one
 * export of the live database (~2 ms per MB). 1 MiB keeps a worst-case open well under half a second.
 */
const DEFAULT_SNAPSHOT_AFTER_BYTES = 1024 * 1024;
/** Pages given back per event-loop turn before a snapshot (8 KiB pages: 1 MiB, about a millisecond). */
const VACUUM_PAGES_PER_STEP = 128;
/** An export blocking the loop longer than this is worth a warning: the live database has grown too large. */
const STALL_WARN_MS = 50;
/** Rows per archive record, so one record stays well under a MiB. */
const ARCHIVE_ROWS_PER_RECORD = 500;
const ARCHIVE_MAX_ATTEMPTS = 5;

/** After the disk refused a batch: first retry after this long, then doubling up to the maximum. */
const DEFAULT_IO_RETRY_MS = 1_000;
const MAX_IO_RETRY_MS = 10_000;
/** Zeros a retry writes and syncs after the records: room for the next commits and proof the disk takes data. */
const RESUME_PROBE_BYTES = 64 * 1024;

const defaultLogger: StoreLogger = {
  // stderr, never stdout: stdout carries the native-messaging wire.
  warn: (msg) => console.warn(`[store] ${msg}`),
  info: () => undefined,
};

/** "degraded": the disk refused a batch; memory was rolled back to the disk, reads work, writes wait for a retry. */
type State = "open" | "degraded" | "closing" | "closed" | "failed";

/** Thrown inside moveToArchive's delete transaction when the selected rows changed meanwhile (then it retries). */
class RowsChanged extends Error {}

export class DurableStore {
  private state: State = "open";
  private failure: StoreError | undefined;
  private inWrite = false;
  private snapshotChain: Promise<void> = Promise.resolve();
  private snapshotRunning = false;
  /** Journal size at which the next automatic snapshot starts (pushed back after a failed attempt). */
  private nextAutoSnapshotAt: number;
  private archiveChain: Promise<void> = Promise.resolve();
  private closeRequested = false;
  private closing: Promise<void> | undefined;
  private snapshotsTaken = 0;
  private lastSnapshotStallMs = 0;
  private degraded: { error: StoreError; since: number; nextRetryAt: number } | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs: number;
  private readonly healthListeners = new Set<(health: StoreHealth) => void>();

  private constructor(
    private readonly dir: string,
    private readonly log: StoreLogger,
    private readonly snapshotAfterBytes: number,
    private readonly fault: (point: StoreFaultPoint) => void,
    private readonly ownerLock: OwnerLock,
    private readonly sql: SqlJsStatic,
    private readonly ioRetryMs: number,
    private engine: SqlEngine,
    private readonly journal: JournalWriter,
    private readonly mark: AckMarkWriter,
    private readonly archive: EventArchive,
    private lastSeq: number,
    private snapshotSeq: number,
    private snapshotBytes: number,
    /** The loss the operator accepted at this open (`acceptLoss`), for the caller to record; else undefined. */
    readonly acceptedLoss: StoreLoss | undefined,
  ) {
    this.nextAutoSnapshotAt = snapshotAfterBytes;
    this.retryDelayMs = ioRetryMs;
  }

  /**
   * Takes the directory's lock, recovers snapshot + journal (refusing damaged files without touching them), then
   * applies pending migrations. Rejects with StoreError STORE_LOCKED, STORE_CORRUPT, STORE_VERSION or STORE_MIGRATION.
   */
  static async open(options: StoreOptions): Promise<DurableStore> {
    const log = options.log ?? defaultLogger;
    const snapshotAfterBytes = options.snapshotAfterBytes ?? DEFAULT_SNAPSHOT_AFTER_BYTES;
    if (!(snapshotAfterBytes > 0)) {
      throw new StoreError("STORE_MISUSE", `snapshotAfterBytes must be positive, got ${snapshotAfterBytes}`);
    }
    const preallocate = options.journalPreallocateBytes;
    if (preallocate !== undefined && !(Number.isSafeInteger(preallocate) && preallocate >= 0)) {
      throw new StoreError(
        "STORE_MISUSE",
        `journalPreallocateBytes must be a whole number ≥ 0, got ${preallocate}`,
      );
    }
    checkMigrations(options.migrations);
    const dir = options.dir;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const lock = await acquireOwnerLock(dir);
    const fault = options.faultHook ?? (() => undefined);
    let engine: SqlEngine | undefined;
    try {
      const paths = dataFilePaths(dir);
      const sql = await loadSqlJs();
      // Phase 1, read-only: prove the files consistent and rebuild the state in memory.
      const recovered = await recoverState(sql, paths, lock.generation, options.acceptLoss, log);
      const { plan, loss, existingMark, archiveEnd } = recovered;
      engine = recovered.engine;
      // Phase 2: repair what a crash legitimately leaves behind.
      const journalBytes = await repairFiles(paths, recovered, lock, log);

      const fd = openSync(paths.journal, "r+", 0o600);
      // Records a crashed process wrote but never synced are read back as valid: sync them before the mark names them.
      fdatasyncSync(fd);
      const markWarn = (message: string) => log.warn(message);
      // A new file when there is none, or it named more than the files hold (a loss just accepted) or was damaged.
      const mark =
        existingMark && !loss
          ? AckMarkWriter.open(paths.mark, existingMark, plan.lastSeq, markWarn)
          : await AckMarkWriter.create(
              paths.mark,
              { seq: plan.lastSeq, generation: lock.generation },
              () => lock.assertOwner(),
              markWarn,
            );
      // The journal's callbacks only fire after the first append, by which time `store` is initialised.
      const journal = new JournalWriter({
        path: paths.journal,
        fd,
        bytes: journalBytes,
        preallocateBytes: options.journalPreallocateBytes ?? preallocationFor(snapshotAfterBytes),
        baseSeq: plan.snapshotSeq,
        durableSeq: plan.lastSeq,
        generation: lock.generation,
        fence: () => lock.assertOwner(),
        fault,
        onFlushed: (durableSeq) => {
          mark.advance(durableSeq);
          store.maybeAutoSnapshot();
        },
        onFailure: (error) => store.fail(error),
        onSuspended: (error) => store.suspend(error),
        warn: (message) => log.warn(message),
      });
      const archive = new EventArchive(paths.archive, archiveEnd, () => lock.assertOwner());
      const store = new DurableStore(
        dir,
        log,
        snapshotAfterBytes,
        fault,
        lock,
        sql,
        options.ioRetryMs ?? DEFAULT_IO_RETRY_MS,
        engine,
        journal,
        mark,
        archive,
        plan.lastSeq,
        plan.snapshotSeq,
        plan.snapshot?.fileBytes ?? 0,
        loss,
      );
      try {
        await applyMigrations(store, options.migrations, log, dir);
      } catch (error) {
        await store.abandon();
        throw error;
      }
      return store;
    } catch (error) {
      engine?.close();
      await lock.release();
      throw error;
    }
  }

  /** Owner generation from owner.json (incremented by every open). */
  get generation(): number {
    return this.ownerLock.generation;
  }

  /** The single-owner lock; its `server` is where the IPC relay of a later issue listens. */
  get lock(): OwnerLock {
    return this.ownerLock;
  }

  /**
   * Runs `fn` synchronously inside one SQL transaction; if it throws, rolls back, journals nothing and rejects with its
   * error. Otherwise every statement it ran through `tx` (sql + bound params) goes to the journal as one record and the
   * promise resolves with fn's result once that record is fdatasync'ed. The changes are visible to read() at once.
   * Statements must be deterministic: bind clock values and ids as parameters (random(), 'now', CURRENT_TIMESTAMP,
   * changes() and friends are refused), and do not depend on rowids of tables without an INTEGER PRIMARY KEY.
   * Calling write() or snapshot() inside the callback throws STORE_MISUSE there (so the transaction rolls back).
   */
  write<T>(fn: (tx: WriteTx) => T): Promise<T> {
    if (this.state !== "open") return Promise.reject(this.unavailable());
    // A programming error inside a callback: throw there, so the enclosing transaction rolls back and rejects.
    if (this.inWrite) {
      throw new StoreError("STORE_MISUSE", "write() called inside a write() callback; use its tx");
    }
    try {
      this.engine.begin();
    } catch (error) {
      return Promise.reject(toError(error));
    }
    const tx = new WriteHandle(this.engine);
    this.inWrite = true;
    let result: T;
    try {
      result = fn(tx);
      if (isThenable(result)) {
        throw new StoreError(
          "STORE_MISUSE",
          "write() callbacks must be synchronous; await the returned promise instead of awaiting inside",
        );
      }
      this.engine.commit();
    } catch (error) {
      this.abortTransaction();
      return Promise.reject(toError(error));
    } finally {
      tx.live = false;
      this.inWrite = false;
    }
    if (tx.recorded.length === 0) return this.sync().then(() => result);
    const seq = ++this.lastSeq;
    return this.journal.append(seq, frameText(txRecordText(seq, tx.recorded)), result);
  }

  /** Synchronous read of the in-memory state (which may include transactions not yet durable: see sync()). */
  read<T>(fn: (q: ReadTx) => T): T {
    if (this.state === "failed" || this.state === "closed") throw this.unavailable();
    let live = true;
    const q: ReadTx = {
      all: <R>(sql: string, params?: SqlParams) => {
        assertLive(live, "read");
        if (isPlainSelect(sql)) return this.engine.all<R>(sql, params);
        return this.underQueryOnly(() => this.engine.all<R>(sql, params));
      },
      get: <R>(sql: string, params?: SqlParams) => {
        assertLive(live, "read");
        if (isPlainSelect(sql)) return this.engine.get<R>(sql, params);
        return this.underQueryOnly(() => this.engine.get<R>(sql, params));
      },
    };
    try {
      const result = fn(q);
      if (isThenable(result)) throw new StoreError("STORE_MISUSE", "read() callbacks must be synchronous");
      return result;
    } finally {
      live = false;
    }
  }

  /**
   * Runs a read statement that is not a plain SELECT with query_only on, so SQLite refuses it if it would write: a
   * write outside write() would never reach the journal. A plain SELECT (sql-guards' conservative test) cannot change
   * the database, and switching the pragma on and off around each of those was a fifth of the cost of a small read.
   */
  private underQueryOnly<R>(run: () => R): R {
    this.engine.setQueryOnly(true);
    try {
      return run();
    } finally {
      this.engine.setQueryOnly(false);
    }
  }

  /** Resolves when every transaction committed so far is durable (use before replying about state read via read()). */
  sync(): Promise<void> {
    // Degraded: memory was rolled back to the disk, so everything readable is durable and this resolves.
    if (this.state === "failed" || this.state === "closed") return Promise.reject(this.unavailable());
    return this.journal.whenDurable();
  }

  /** Takes a snapshot now (also done automatically past snapshotAfterBytes and on close). */
  snapshot(): Promise<void> {
    if (this.state !== "open" && this.state !== "closing") return Promise.reject(this.unavailable());
    if (this.inWrite) throw new StoreError("STORE_MISUSE", "snapshot() called inside a write() callback");
    const run = this.snapshotChain.then(() => this.takeSnapshot()).catch(this.failIfFenced);
    // The chain only orders snapshots; each caller gets its own outcome through `run`.
    this.snapshotChain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Moves rows out of the live database: the rows `select` returns are appended to events-archive.log and fdatasync'ed,
   * then `del` runs in one journalled write transaction. If another transaction committed in between, that
   * transaction first re-runs `select` and starts over if the rows changed. It checks that `del` removed exactly
   * that many rows (else STORE_ARCHIVE_MISMATCH, nothing deleted). Resolves with the number of rows moved, once the
   * delete is durable. Each call blocks the event loop in proportion to its rows: move ~1000 rows per call (LIMIT).
   * A crash after the append but before the delete is durable leaves the rows live; the unconfirmed archive bytes
   * are cut at the next open, so the archive never holds a row twice. Calls run one at a time.
   */
  moveToArchive(
    select: { sql: string; params?: SqlParams },
    del: { sql: string; params?: SqlParams },
  ): Promise<number> {
    if (this.closeRequested || this.state !== "open") return Promise.reject(this.unavailable());
    const run = this.archiveChain.then(() => this.archiveOnce(select, del)).catch(this.failIfFenced);
    this.archiveChain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Streams archived rows, oldest first, that pass `filter`, skipping a row whose `dedupeKey` column (default "seq",
   * the events table's key) was already yielded. Reads up to what was committed when iteration starts, straight from
   * disk in 1 MiB chunks. Throws STORE_CORRUPT on a damaged record, STORE_CLOSED after close().
   */
  async *readArchive(filter?: (row: Row) => boolean, options: ArchiveReadOptions = {}): AsyncGenerator<Row> {
    if (this.state !== "open") throw this.unavailable();
    yield* this.archive.read(filter, options);
  }

  /** Flushes the journal, finishes any moveToArchive, takes a final snapshot and releases the lock. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** stats().journalSyncs alone, without stats()'s queries of the database (the benchmark reads it around commits). */
  journalSyncs(): StoreStats["journalSyncs"] {
    return this.journal.syncCounts;
  }

  stats(): StoreStats {
    const usable = this.state === "open" || this.state === "degraded" || this.state === "closing";
    return {
      journalBytes: this.journal.bytes,
      snapshotBytes: this.snapshotBytes,
      lastSeq: this.lastSeq,
      durableSeq: this.journal.durableSeq,
      snapshotSeq: this.snapshotSeq,
      generation: this.generation,
      liveDbBytes: usable ? this.engine.imageBytes() : 0,
      archiveBytes: this.archive.end,
      snapshotsTaken: this.snapshotsTaken,
      lastSnapshotStallMs: this.lastSnapshotStallMs,
      pendingTransactions: this.journal.pendingCount,
      snapshotInProgress: this.snapshotRunning,
      journalSyncs: this.journal.syncCounts,
    };
  }

  private maybeAutoSnapshot(): void {
    if (this.state !== "open" || this.snapshotRunning) return;
    if (this.journal.bytes < this.nextAutoSnapshotAt) return;
    this.snapshot().then(
      () => {
        this.nextAutoSnapshotAt = this.snapshotAfterBytes;
        // Commits go on while a snapshot is written; if they filled the new journal past the threshold meanwhile,
        // take the next one now rather than at some later commit that may never come.
        this.maybeAutoSnapshot();
      },
      (error: unknown) => {
        // The journal still holds everything, so a failed snapshot costs only replay time; retry a bit later.
        this.nextAutoSnapshotAt = this.journal.bytes + this.snapshotAfterBytes / 4;
        if (this.state === "open") this.log.warn(`automatic snapshot failed: ${describeError(error)}`);
      },
    );
  }

  private async takeSnapshot(): Promise<void> {
    if (this.state !== "open" && this.state !== "closing") throw this.unavailable();
    this.snapshotRunning = true;
    try {
      // Give freed pages back a little per turn, so that the export below is small and nothing blocks for long.
      while (this.engine.freelistPages() > 0) {
        if (this.engine.vacuumStep(VACUUM_PAGES_PER_STEP) > 0) await yieldToLoop();
        if (this.state !== "open" && this.state !== "closing") throw this.unavailable();
      }
      if (this.lastSeq === this.snapshotSeq && this.journal.baseSeq === this.snapshotSeq) return; // nothing new
      // Synchronous from export to retainAfter: no transaction can commit in between, so the image holds exactly
      // the transactions up to `seq`, and every later one is retained for the next journal.
      const seq = this.lastSeq;
      const started = performance.now();
      const image = this.engine.exportImage();
      this.lastSnapshotStallMs = performance.now() - started;
      this.journal.retainAfter(seq);
      if (this.lastSnapshotStallMs > STALL_WARN_MS) {
        this.log.warn(
          `snapshot export of ${image.length} bytes blocked the event loop for ${Math.round(this.lastSnapshotStallMs)} ms; ` +
            "archive more rows to keep the live database small",
        );
      }
      // The image may hold transactions whose batch is still being synced. Only a durable image may reach the disk:
      // if that batch fails, its transactions are rolled back and must not come back from the snapshot.
      const durable = this.journal.whenDurable();
      let bytes: number;
      let endIo = (): void => undefined;
      try {
        const [body] = await Promise.all([encodeSnapshotBody(image), durable]);
        if (this.state !== "open" && this.state !== "closing") throw this.unavailable();
        endIo = this.journal.beginBackgroundIo();
        bytes = await writeSnapshotFile(
          join(this.dir, SNAPSHOT_FILE),
          { generation: this.generation, lastSeq: seq },
          body,
          () => this.ownerLock.assertOwner(),
          this.fault,
        );
      } catch (error) {
        this.journal.stopRetaining();
        throw error;
      } finally {
        endIo();
      }
      this.snapshotSeq = seq;
      this.snapshotBytes = bytes;
      this.fault("snapshot-renamed");
      await this.journal.rotate(seq);
      this.snapshotsTaken++;
    } finally {
      this.snapshotRunning = false;
    }
  }

  private async archiveOnce(
    select: { sql: string; params?: SqlParams },
    del: { sql: string; params?: SqlParams },
  ): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const rows = this.read((q) => q.all<Row>(select.sql, select.params));
      if (rows.length === 0) return 0;
      const selectedAt = this.lastSeq;
      const frames = toArchiveFrames(rows);
      const endIo = this.journal.beginBackgroundIo();
      const end = await this.archive.append(frames).finally(endIo);
      this.fault("archive-appended");
      const moved = await this.write((tx) => {
        // Only a transaction committed since the select can have changed the rows; then compare them again.
        if (this.lastSeq !== selectedAt) {
          const again = toArchiveFrames(tx.all<Row>(select.sql, select.params));
          if (again.length !== frames.length || again.some((f, i) => !f.equals(frames[i]!)))
            throw new RowsChanged();
        }
        tx.run(del.sql, del.params);
        const deleted = this.engine.changes();
        if (deleted !== rows.length) {
          throw new StoreError(
            "STORE_ARCHIVE_MISMATCH",
            `moveToArchive: the select returned ${rows.length} rows but the delete removed ${deleted}; nothing was deleted`,
          );
        }
        tx.run(
          "INSERT INTO _store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          [ARCHIVE_END_KEY, String(end)],
        );
        return rows.length;
      }).catch((error: unknown) => {
        if (error instanceof RowsChanged) return -1;
        throw error;
      });
      if (moved >= 0) {
        this.archive.commit(end);
        return moved;
      }
      if (attempt >= ARCHIVE_MAX_ATTEMPTS) {
        throw new StoreError(
          "STORE_ARCHIVE_MISMATCH",
          `moveToArchive: the selected rows changed during each of ${attempt} attempts; nothing was deleted`,
        );
      }
    }
  }

  /** ROLLBACK after a callback or COMMIT failed. If even that fails, the in-memory state is unknown: fail closed. */
  private abortTransaction(): void {
    try {
      this.engine.rollbackIfActive();
    } catch (error) {
      this.fail(
        new StoreError("STORE_FAILED", `ROLLBACK failed, in-memory state unknown: ${describeError(error)}`, {
          cause: error,
        }),
      );
    }
  }

  /** Losing ownership is fatal wherever it is noticed: another process owns the files now. Rethrows. */
  private readonly failIfFenced = (error: unknown): never => {
    if (isStoreError(error, "STORE_FENCED")) this.fail(error);
    throw error;
  };

  /** Whether writes are taken now; when not, why, since when and when the disk is tried again. */
  health(): StoreHealth {
    const d = this.degraded;
    if (this.state !== "degraded" || !d) return { writable: true };
    return {
      writable: false,
      code: "STORE_IO",
      message: d.error.message,
      path: d.error.path ?? this.dir,
      since: d.since,
      nextRetryAt: d.nextRetryAt,
    };
  }

  /** Calls `listener` whenever writes stop being taken (after the rollback) or are taken again. Returns the unsubscribe. */
  onHealth(listener: (health: StoreHealth) => void): () => void {
    this.healthListeners.add(listener);
    return () => this.healthListeners.delete(listener);
  }

  /**
   * The disk refused a batch (the journal already cut it off the file): bring memory back to exactly what is on disk,
   * so nothing the callers were told failed can be read, snapshotted or built upon, then retry the disk on a timer.
   * Runs synchronously inside the journal's failure handling, before any other code can see the rolled-back state.
   */
  private suspend(error: StoreError): void {
    if (this.state !== "open") return; // closing: close() reports the failure; failed/closed: nothing to keep
    try {
      this.rollBackToDisk();
    } catch (rollback) {
      this.fail(
        new StoreError(
          "STORE_FAILED",
          `${error.message}; reloading the state on disk then failed too (${describeError(rollback)})`,
          { path: this.dir, cause: rollback },
        ),
      );
      return;
    }
    this.state = "degraded";
    this.retryDelayMs = this.ioRetryMs;
    const since = Date.now();
    this.degraded = { error, since, nextRetryAt: since + this.retryDelayMs };
    this.log.warn(
      `store in ${this.dir} cannot save changes: ${error.message}; every transaction since seq ${this.lastSeq} was ` +
        "refused and rolled back, reads go on, and writes resume by themselves once the disk takes data again",
    );
    this.armRetry();
    this.emitHealth();
  }

  /** Rebuilds the in-memory database from the snapshot and the journal's durable records (not the failed tail). */
  private rollBackToDisk(): void {
    const journalPath = join(this.dir, JOURNAL_FILE);
    const plan = inspectDataFiles(join(this.dir, SNAPSHOT_FILE), journalPath, {
      journalEnd: this.journal.bytes,
    });
    if (plan.lastSeq !== this.journal.durableSeq) {
      throw new StoreError(
        "STORE_CORRUPT",
        `the files hold transactions up to ${plan.lastSeq}, but ${this.journal.durableSeq} were made durable`,
        { path: journalPath },
      );
    }
    const engine = SqlEngine.create(this.sql, plan.snapshot?.body);
    try {
      replayJournal(engine, plan, journalPath);
    } catch (error) {
      engine.close();
      throw error;
    }
    this.engine.close();
    this.engine = engine;
    this.lastSeq = plan.lastSeq;
  }

  private armRetry(): void {
    const d = this.degraded;
    if (!d) return;
    this.retryTimer = setTimeout(() => void this.retryDisk(), Math.max(0, d.nextRetryAt - Date.now()));
    // A full disk must not keep a finished process alive; the host's servers do that.
    this.retryTimer.unref();
  }

  private async retryDisk(): Promise<void> {
    this.retryTimer = undefined;
    if (this.state !== "degraded" || !this.degraded) return;
    const still = await this.journal.resume(RESUME_PROBE_BYTES);
    if (this.state !== "degraded" || !this.degraded) return; // closed meanwhile
    if (still) {
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, MAX_IO_RETRY_MS);
      const changed = still.message !== this.degraded.error.message;
      this.degraded = {
        error: still,
        since: this.degraded.since,
        nextRetryAt: Date.now() + this.retryDelayMs,
      };
      if (changed) {
        this.log.warn(`store in ${this.dir} still cannot save changes: ${still.message}`);
        this.emitHealth();
      }
      this.armRetry();
      return;
    }
    const downMs = Date.now() - this.degraded.since;
    this.degraded = undefined;
    this.state = "open";
    this.log.info(`store in ${this.dir} takes writes again after ${Math.round(downMs / 1000)} s`);
    this.emitHealth();
  }

  private emitHealth(): void {
    const health = this.health();
    for (const listener of this.healthListeners) {
      try {
        listener(health);
      } catch (error) {
        this.log.warn(`a store health listener failed: ${describeError(error)}`);
      }
    }
  }

  private fail(error: StoreError): void {
    if (this.state === "failed" || this.state === "closed") return;
    this.state = "failed";
    this.failure = error;
    this.journal.fail(error);
    this.log.warn(`store in ${this.dir} failed closed: ${error.message}`);
  }

  private unavailable(): StoreError {
    if (this.state === "degraded" && this.degraded) {
      const { error, nextRetryAt } = this.degraded;
      return new StoreError(
        "STORE_IO",
        `cannot save changes: ${error.message}; nothing was changed, reads still work, and writes resume by ` +
          `themselves once the disk takes data again (next try in ${Math.max(0, Math.ceil((nextRetryAt - Date.now()) / 1000))} s)`,
        { path: error.path ?? this.dir, cause: error },
      );
    }
    if (this.state === "failed" && this.failure) {
      return new StoreError("STORE_FAILED", `store in ${this.dir} failed earlier: ${this.failure.message}`, {
        path: this.dir,
        cause: this.failure,
      });
    }
    return new StoreError("STORE_CLOSED", `store in ${this.dir} is closed`, { path: this.dir });
  }

  private async shutdown(): Promise<void> {
    this.closeRequested = true;
    let problem: Error | undefined;
    try {
      await this.archiveChain;
      if (this.state === "open") {
        this.state = "closing";
        await this.journal.whenDurable();
        await this.snapshot();
      }
    } catch (error) {
      problem = toError(error);
    }
    await this.abandon();
    if (problem !== undefined) throw problem;
  }

  /** Releases everything without a final snapshot (the journal already holds every durable transaction). */
  private async abandon(): Promise<void> {
    if (this.state === "closed") return;
    this.state = "closed";
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.degraded = undefined;
    this.closeRequested = true;
    await this.journal.close();
    this.mark.advance(this.journal.durableSeq);
    this.mark.close();
    await this.archive.close();
    this.engine.close();
    await this.ownerLock.release();
  }
}

/** Archive records (framed) for `rows`, a bounded number of rows each. */
function toArchiveFrames(rows: readonly Row[]): Buffer[] {
  const frames: Buffer[] = [];
  for (let i = 0; i < rows.length; i += ARCHIVE_ROWS_PER_RECORD) {
    frames.push(frameText(encodeRows(rows.slice(i, i + ARCHIVE_ROWS_PER_RECORD))));
  }
  return frames;
}

/**
 * Zeros kept ahead of the journal's records: enough that a journal usually reaches its snapshot threshold, and is
 * replaced, without another preallocation (which is background I/O the commits then wait behind).
 */
function preallocationFor(snapshotAfterBytes: number): number {
  return Math.min(8 * 1024 * 1024, Math.max(64 * 1024, Math.ceil(snapshotAfterBytes * 1.5)));
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(describeError(error));
}
