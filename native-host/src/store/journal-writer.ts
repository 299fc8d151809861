// Appends transaction records to store.journal with group commit: every transaction committed in one synchronous run
// of the event loop shares one write + fdatasync. Records overwrite zeros written ahead of them (preallocation), and
// a fresh journal replaces this one after a snapshot.
// One class over 400 lines on purpose: the pump, the preallocated zeros, the rotation between two batches and the
// suspension after a failed batch all move the same file offsets, and their invariants must be read together.
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  write,
  writeSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { fsyncDir, replaceWithTemp, writeTempFile } from "./atomic-file.ts";
import { encodeJournalHeader, JOURNAL_HEADER_BYTES } from "./file-headers.ts";
import { StoreError, describeError, diskWriteError } from "./store-error.ts";
import type { StoreFaultPoint } from "./store-types.ts";

/**
 * A blocking fdatasync slower than this means the disk is busy (another process, or the kernel writing back our own
 * snapshot): stop blocking the event loop on it for a while and sync on the thread pool instead.
 */
const SLOW_SYNC_MS = 4;
/** Batches synced on the thread pool after a slow blocking sync, before blocking is tried again. */
const ASYNC_BATCHES_AFTER_SLOW_SYNC = 64;

interface PendingTx {
  seq: number;
  frame: Buffer;
  /** What the append's promise resolves with. */
  value: unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** A prepared journal replacement, waiting for the pump to switch to it between two batches. */
interface Rotation {
  baseSeq: number;
  /** The new journal under its temp name: header, the first `carriedCount` retained frames and zeros, fsynced. */
  temp: string;
  carriedBytes: number;
  carriedCount: number;
  /** Its size: the zeros after the carried frames are preallocated space. */
  fileBytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** How the batches were made durable since open (the store reports these in stats()). */
export interface SyncCounts {
  /** Batches fdatasync'ed in place, blocking the event loop (the fast path: no thread-pool round trip). */
  blocking: number;
  /** Batches fdatasync'ed on the thread pool (background disk work of the store running, or the disk was slow). */
  threadPool: number;
  /** How long the latest batch's fdatasync took, in ms (tells a slow disk from a slow commit path). */
  lastSyncMs: number;
}

export interface JournalWriterOptions {
  path: string;
  /** Descriptor opened read-write on `path`; records end at `bytes`, and anything after that is zeros. */
  fd: number;
  bytes: number;
  /**
   * Zeros kept written and synced ahead of the records. Overwriting allocated blocks in place needs no file-system
   * metadata in the fdatasync (appending changes the size and allocates blocks, which a journal commit must record),
   * so a commit's fdatasync is cheaper and does not queue behind other files' metadata.
   */
  preallocateBytes: number;
  baseSeq: number;
  /** Highest seq already on disk. */
  durableSeq: number;
  generation: number;
  /** Owner fencing, run before the journal is replaced. */
  fence: () => void;
  fault: (point: StoreFaultPoint) => void;
  /** After each durable batch, with the highest durable seq (the store advances its mark, checks the snapshot size). */
  onFlushed: (durableSeq: number) => void;
  /** The journal can no longer guarantee durability; the store must fail closed. */
  onFailure: (error: StoreError) => void;
  /**
   * A batch's write or fdatasync failed (a full disk, an I/O error): its transactions were rejected and the file is
   * back at the last durable record. The store must bring its memory back to what is on disk, synchronously, and
   * call resume() later. Appends are refused until then.
   */
  onSuspended: (error: StoreError) => void;
  warn: (message: string) => void;
}

export class JournalWriter {
  private queue: PendingTx[] = [];
  private pumping = false;
  /** The running pump; it never rejects (failures go through fail()). */
  private pumped: Promise<void> = Promise.resolve();
  /** Frames with seq > retainAfterSeq written since a snapshot's export: they must be copied into the next journal. */
  private retained: Buffer[] | null = null;
  private retainAfterSeq = 0;
  private rotation: Rotation | null = null;
  private failure: StoreError | null = null;
  /** Set while a failed batch keeps the journal from taking appends; resume() clears it once the disk accepts data. */
  private suspension: StoreError | null = null;
  /** Whether the failed batch's bytes are known to be gone from the file (cut and synced) since the suspension. */
  private tailCut = true;
  /** Settles when the most recently appended transaction is durable (or has failed). */
  private lastAppended: Promise<unknown> = Promise.resolve();
  private fd: number;
  private _bytes: number;
  private _baseSeq: number;
  private _durableSeq: number;
  /** Background file work of the store (snapshot, journal copy, archive append) in progress. */
  private backgroundIo = 0;
  private asyncBatchesLeft = 0;
  private readonly counts: SyncCounts = { blocking: 0, threadPool: 0, lastSyncMs: 0 };
  /** Size of the journal file: zeros from `_bytes` up to here (only records are ever written over them). */
  private allocated: number;
  /** Zeros being written past `allocated`; a batch that would reach them waits for it. */
  private extending: Promise<void> | null = null;
  private preallocationFailed = false;

  constructor(private readonly o: JournalWriterOptions) {
    this.fd = o.fd;
    this._bytes = o.bytes;
    this._baseSeq = o.baseSeq;
    this._durableSeq = o.durableSeq;
    this.allocated = fstatSync(o.fd).size;
    this.ensureRoom();
  }

  get bytes(): number {
    return this._bytes;
  }

  get baseSeq(): number {
    return this._baseSeq;
  }

  get durableSeq(): number {
    return this._durableSeq;
  }

  get syncCounts(): SyncCounts {
    return { ...this.counts };
  }

  /**
   * Marks the start of store file work that fsyncs a lot of data; returns the function that marks its end. Meanwhile
   * batches are synced on the thread pool: on one disk their fdatasync waits for that data, and must not block the loop.
   */
  beginBackgroundIo(): () => void {
    this.backgroundIo++;
    let ended = false;
    return () => {
      if (!ended) this.backgroundIo--;
      ended = true;
    };
  }

  get pendingCount(): number {
    return this.queue.length;
  }

  /** True when the journal holds no record (only its header). */
  get isEmpty(): boolean {
    return this._bytes === JOURNAL_HEADER_BYTES && this.queue.length === 0;
  }

  /**
   * Queues one transaction's frame; resolves with `value` once it is fdatasync'ed (or contained in a durable
   * snapshot). Resolving with the caller's value directly saves the commit path a promise and a microtask.
   */
  append<T>(seq: number, frame: Buffer, value: T): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.suspension) return Promise.reject(this.suspension);
    const done = new Promise<T>((resolve, reject) =>
      this.queue.push({ seq, frame, value, resolve: resolve as (value: unknown) => void, reject }),
    );
    this.lastAppended = done;
    this.kick();
    return done;
  }

  /** Resolves when everything appended so far is durable. */
  whenDurable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return this.lastAppended.then(() => undefined);
  }

  /** Starts writing zeros ahead of the records when less than a quarter of a preallocation is left. */
  private ensureRoom(): void {
    if (this.extending || this.failure || this.preallocationFailed || this.o.preallocateBytes <= 0) return;
    if (this.allocated - this._bytes >= this.o.preallocateBytes / 4) return;
    const fd = this.fd;
    const from = Math.max(this.allocated, this._bytes);
    const zeros = Buffer.alloc(this.o.preallocateBytes);
    const endIo = this.beginBackgroundIo();
    this.extending = (async () => {
      try {
        let done = 0;
        while (done < zeros.length) {
          done += await new Promise<number>((resolve, reject) =>
            write(fd, zeros, done, zeros.length - done, from + done, (error, n) =>
              error ? reject(error) : resolve(n),
            ),
          );
        }
        await new Promise<void>((resolve, reject) =>
          fdatasync(fd, (error) => (error ? reject(error) : resolve())),
        );
        if (fd === this.fd) this.allocated = from + zeros.length;
      } catch (error) {
        // Only an optimisation: records still append past the end. The disk is probably full or failing; the next
        // record's own write or fdatasync decides whether the journal can go on.
        this.preallocationFailed = true;
        this.o.warn(
          `preallocating ${this.o.path} failed (${describeError(error)}); records are appended instead`,
        );
      } finally {
        endIo();
        this.extending = null;
      }
    })();
  }

  /** Called synchronously right after a snapshot export that contains every seq <= seq. */
  retainAfter(seq: number): void {
    this.retained = [];
    this.retainAfterSeq = seq;
  }

  stopRetaining(): void {
    this.retained = null;
  }

  /**
   * Replaces the journal by one whose header says it follows the snapshot holding every seq <= baseSeq, carrying the
   * records written since that snapshot's export. The new file is written and fsynced under a temp name while batches
   * go on; only the switch (the last few records, rename, new descriptor, directory fsync) runs between two batches.
   */
  async rotate(baseSeq: number): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.suspension) throw this.suspension;
    const carried = this.retained ? [...this.retained] : [];
    const header = encodeJournalHeader({ generation: this.o.generation, baseSeq });
    const endIo = this.beginBackgroundIo();
    const zeros = Buffer.alloc(this.preallocationFailed ? 0 : this.o.preallocateBytes);
    let temp: string;
    try {
      // One write for the records, not one per record: each write is a thread-pool round trip, and with a few thousand
      // records carried (a long snapshot under load) this window lasted a second, every batch synced on the thread pool.
      temp = await writeTempFile(this.o.path, [Buffer.concat([header, ...carried]), zeros]);
    } catch (error) {
      this.retained = null;
      throw error;
    } finally {
      endIo();
    }
    // The rename did not happen if this rejects: the old journal is intact and still ours to append to (recovery skips
    // the records the newer snapshot already holds). The snapshot reports the error; the store decides if it is fatal.
    return new Promise<void>((resolve, reject) => {
      if (this.failure ?? this.suspension) {
        const failure = this.failure ?? this.suspension;
        void withTempRemoved(temp, failure).then(reject);
        return;
      }
      const carriedBytes = header.length + carried.reduce((n, b) => n + b.length, 0);
      this.rotation = {
        baseSeq,
        temp,
        carriedBytes,
        carriedCount: carried.length,
        fileBytes: carriedBytes + zeros.length,
        resolve,
        reject,
      };
      this.kick();
    });
  }

  /** Rejects everything pending; later appends reject at once. */
  fail(error: StoreError): void {
    if (this.failure) return;
    this.failure = error;
    for (const p of this.queue.splice(0)) p.reject(error);
    const rotation = this.rotation;
    this.rotation = null;
    if (rotation) void withTempRemoved(rotation.temp, error).then(rotation.reject);
  }

  /**
   * Rejects the failed batch and everything queued behind it, cuts the file back to the last durable record (a
   * partly written record must not be replayed at the next open: its callers were told it failed) and hands the
   * store the error, which rolls its memory back to the disk.
   */
  private suspend(inFlight: PendingTx[], error: unknown): void {
    const suspension = diskWriteError(this.o.path, dirname(this.o.path), error);
    this.suspension = suspension;
    const rejected = [...inFlight, ...this.queue.splice(0)];
    // A snapshot waiting to switch journals carries records of the old file only; it fails and is retried later.
    const rotation = this.rotation;
    this.rotation = null;
    if (rotation) void withTempRemoved(rotation.temp, suspension).then(rotation.reject);
    this.retained = null;
    this.tailCut = this.cutFailedTail();
    // Everything still in memory after the store's rollback is on disk: sync() has nothing to wait for.
    this.lastAppended = Promise.resolve();
    this.o.onSuspended(suspension);
    for (const p of rejected) p.reject(suspension);
  }

  /** Truncates the file to the durable records (needs no free space) and syncs; false if even that failed. */
  private cutFailedTail(): boolean {
    try {
      ftruncateSync(this.fd, this._bytes);
      fdatasyncSync(this.fd);
      this.allocated = this._bytes;
      return true;
    } catch (error) {
      this.o.warn(
        `cutting ${this.o.path} back to ${this._bytes} bytes failed (${describeError(error)}); retried`,
      );
      return false;
    }
  }

  /**
   * Tries to take appends again: cuts the failed tail if that is still owed, then writes and syncs `probeBytes` of
   * zeros after the records (room for the next records, and the proof that the disk accepts data). Resolves with the
   * error that still stands, or null once appends are taken again.
   */
  async resume(probeBytes: number): Promise<StoreError | null> {
    if (this.failure) return this.failure;
    if (!this.suspension) return null;
    await this.extending;
    // Bytes past the records that may hold a failed batch are cut first: never append after them.
    if (!this.tailCut && !(this.tailCut = this.cutFailedTail())) return this.suspension;
    try {
      this.o.fault("journal-probe");
      const zeros = Buffer.alloc(probeBytes);
      const fd = this.fd;
      for (let done = 0; done < zeros.length;) {
        done += await new Promise<number>((resolve, reject) =>
          write(fd, zeros, done, zeros.length - done, this._bytes + done, (e, n) =>
            e ? reject(e) : resolve(n),
          ),
        );
      }
      await new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
      this.allocated = Math.max(this.allocated, this._bytes + probeBytes);
    } catch (error) {
      // Still refused: drop what the probe may have added (zeros are harmless, but keep the file as it was).
      this.tailCut = this.cutFailedTail();
      this.suspension = diskWriteError(this.o.path, dirname(this.o.path), error);
      return this.suspension;
    }
    this.suspension = null;
    this.preallocationFailed = false;
    this.ensureRoom();
    return null;
  }

  /** Waits for the batch, rotation or preallocation in progress (never cut an fdatasync short), then closes. */
  async close(): Promise<void> {
    while (this.pumping || this.extending) {
      await this.pumped;
      await this.extending;
    }
    closeSync(this.fd);
  }

  private kick(): void {
    if (this.pumping) return;
    this.pumping = true;
    // A microtask, not an immediate write: every transaction committed in the current synchronous run joins the batch,
    // and the batch is on disk before any timer or I/O callback of the next loop turn runs.
    this.pumped = Promise.resolve().then(() => this.pump());
  }

  private async pump(): Promise<void> {
    let inFlight: PendingTx[] = [];
    try {
      for (;;) {
        if (this.failure || this.suspension) return;
        if (this.rotation) {
          await this.performRotation(this.rotation);
          continue;
        }
        if (this.queue.length === 0) return;
        inFlight = this.queue;
        this.queue = [];
        const batch =
          inFlight.length === 1 ? inFlight[0]!.frame : Buffer.concat(inFlight.map((p) => p.frame));
        // Never write where zeros are still being written (rare: the preallocation runs half a chunk ahead).
        if (this.extending && this._bytes + batch.length > this.allocated) await this.extending;
        try {
          this.o.fault("journal-writing");
          writeFully(this.fd, batch, this._bytes);
          this.o.fault("journal-written");
          await this.datasync(this.fd);
        } catch (error) {
          if (error instanceof StoreError) throw error;
          // The disk refused this batch (full, quota, I/O error): nothing in it was acknowledged. Suspend instead of
          // dying, so the host stays up, reads go on and writes resume once the disk takes data again.
          this.suspend(inFlight, error);
          inFlight = [];
          return;
        }
        this._bytes += batch.length;
        if (this.retained)
          for (const p of inFlight) if (p.seq > this.retainAfterSeq) this.retained.push(p.frame);
        this._durableSeq = inFlight[inFlight.length - 1]!.seq;
        for (const p of inFlight) p.resolve(p.value);
        inFlight = [];
        this.ensureRoom();
        this.o.onFlushed(this._durableSeq);
      }
    } catch (error) {
      // After a failed write or fdatasync the file's state is unknown (the kernel may have dropped the pages):
      // nothing queued can be promised durable any more. Fail closed.
      const failure =
        error instanceof StoreError
          ? error
          : new StoreError("STORE_IO", `writing ${this.o.path} failed: ${describeError(error)}`, {
              path: this.o.path,
              cause: error,
            });
      for (const p of inFlight) p.reject(failure);
      this.fail(failure);
      this.o.onFailure(failure);
    } finally {
      this.pumping = false;
      if (!this.failure && !this.suspension && (this.queue.length > 0 || this.rotation)) this.kick();
    }
  }

  /**
   * fdatasync of `fd`. Blocking when the disk is expected to answer fast: a small record's fdatasync takes about as
   * long as the thread-pool round trip of the asynchronous call (~0.1-0.3 ms of wake-ups), and its tail is shorter.
   * On the thread pool while store background I/O runs or after a slow blocking sync, so the loop never waits long.
   */
  private async datasync(fd: number): Promise<void> {
    if (this.backgroundIo === 0 && this.asyncBatchesLeft === 0) {
      const started = performance.now();
      fdatasyncSync(fd);
      this.counts.blocking++;
      this.counts.lastSyncMs = performance.now() - started;
      if (this.counts.lastSyncMs > SLOW_SYNC_MS) this.asyncBatchesLeft = ASYNC_BATCHES_AFTER_SLOW_SYNC;
      return;
    }
    if (this.asyncBatchesLeft > 0) this.asyncBatchesLeft--;
    this.counts.threadPool++;
    const started = performance.now();
    await new Promise<void>((resolve, reject) =>
      fdatasync(fd, (error) => (error ? reject(error) : resolve())),
    );
    this.counts.lastSyncMs = performance.now() - started;
  }

  private async performRotation(rotation: Rotation): Promise<void> {
    this.rotation = null;
    // Records made durable in the old journal since the temp file was written: append them before the switch.
    const tail = this.retained?.slice(rotation.carriedCount) ?? [];
    this.retained = null;
    let fd: number | undefined;
    let bytes = rotation.carriedBytes;
    try {
      fd = openSync(rotation.temp, "r+", 0o600);
      if (tail.length > 0) {
        const batch = Buffer.concat(tail);
        writeFully(fd, batch, bytes);
        await this.datasync(fd);
        bytes += batch.length;
      }
      await replaceWithTemp(rotation.temp, this.o.path, this.o.fence);
    } catch (error) {
      // Not renamed: the old journal stays in use. Close and remove the temp (replaceWithTemp did if the rename failed).
      if (fd !== undefined) closeSync(fd);
      rotation.reject(await withTempRemoved(rotation.temp, error));
      return;
    }
    // Renamed: from here the old descriptor points at an unlinked file; the temp's descriptor is the journal's.
    // Anything failing from here on is fatal (pump() fails the journal closed).
    const old = this.fd;
    this.fd = fd;
    this._bytes = bytes;
    this._baseSeq = rotation.baseSeq;
    // Zeros still being written to the old file: let them finish before its descriptor number can be reused.
    await this.extending;
    this.allocated = Math.max(rotation.fileBytes, bytes);
    closeSync(old);
    await fsyncDir(dirname(this.o.path));
    // Transactions still queued with seq <= baseSeq are inside the durable snapshot: done, and not for this journal.
    this.queue = this.queue.filter((p) => {
      if (p.seq > rotation.baseSeq) return true;
      p.resolve(p.value);
      return false;
    });
    this._durableSeq = Math.max(this._durableSeq, rotation.baseSeq);
    this.ensureRoom();
    rotation.resolve();
  }
}

/** Removes a temp journal that will not be used; a failure to do so joins `error` (open() removes it later anyway). */
async function withTempRemoved(temp: string, error: unknown): Promise<unknown> {
  try {
    await rm(temp, { force: true });
    return error;
  } catch (cleanup) {
    return new AggregateError(
      [error, cleanup],
      `replacing the journal failed and its temp file ${temp} remains`,
    );
  }
}

function writeFully(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, position + done);
}
