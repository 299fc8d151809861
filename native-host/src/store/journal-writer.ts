// Appends transaction records to store.journal with group commit: one writeSync + one fdatasync per batch, and every
// transaction issued while a sync is in flight rides in the next batch. Also swaps in a fresh journal after a snapshot.
import { closeSync, fdatasync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { fsyncDir, replaceWithTemp, writeTempFile } from "./atomic-file.ts";
import { encodeJournalHeader, JOURNAL_HEADER_BYTES } from "./file-headers.ts";
import { StoreError, describeError } from "./store-error.ts";
import type { StoreFaultPoint } from "./store-types.ts";

interface PendingTx {
  seq: number;
  frame: Buffer;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Rotation {
  baseSeq: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface JournalWriterOptions {
  path: string;
  /** Descriptor opened for append on `path`, whose current size is `bytes`. */
  fd: number;
  bytes: number;
  baseSeq: number;
  /** Highest seq already on disk. */
  durableSeq: number;
  generation: number;
  /** Owner fencing, run before the journal is replaced. */
  fence: () => void;
  fault: (point: StoreFaultPoint) => void;
  /** After each durable batch (the store checks the snapshot threshold here). */
  onFlushed: () => void;
  /** The journal can no longer guarantee durability; the store must fail closed. */
  onFailure: (error: StoreError) => void;
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
  /** Settles when the most recently appended transaction is durable (or has failed). */
  private lastAppended: Promise<void> = Promise.resolve();
  private fd: number;
  private _bytes: number;
  private _baseSeq: number;
  private _durableSeq: number;

  constructor(private readonly o: JournalWriterOptions) {
    this.fd = o.fd;
    this._bytes = o.bytes;
    this._baseSeq = o.baseSeq;
    this._durableSeq = o.durableSeq;
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

  get pendingCount(): number {
    return this.queue.length;
  }

  /** True when the journal holds no record (only its header). */
  get isEmpty(): boolean {
    return this._bytes === JOURNAL_HEADER_BYTES && this.queue.length === 0;
  }

  /** Queues one transaction's frame; resolves once it is fdatasync'ed (or contained in a durable snapshot). */
  append(seq: number, frame: Buffer): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const done = new Promise<void>((resolve, reject) => this.queue.push({ seq, frame, resolve, reject }));
    this.lastAppended = done;
    this.kick();
    return done;
  }

  /** Resolves when everything appended so far is durable. */
  whenDurable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return this.lastAppended;
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
   * records written since that snapshot's export. Runs between two batches, never during one.
   */
  rotate(baseSeq: number): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.rotation = { baseSeq, resolve, reject };
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
    rotation?.reject(error);
  }

  /** Waits for the batch or rotation in progress (never cut an fdatasync short), then closes the descriptor. */
  async close(): Promise<void> {
    while (this.pumping) await this.pumped;
    closeSync(this.fd);
  }

  private kick(): void {
    if (this.pumping) return;
    this.pumping = true;
    // A microtask, not an immediate write: every transaction committed in the current synchronous run joins the batch.
    this.pumped = Promise.resolve().then(() => this.pump());
  }

  private async pump(): Promise<void> {
    let inFlight: PendingTx[] = [];
    try {
      for (;;) {
        if (this.failure) return;
        if (this.rotation) {
          await this.performRotation(this.rotation);
          continue;
        }
        if (this.queue.length === 0) return;
        inFlight = this.queue;
        this.queue = [];
        const batch =
          inFlight.length === 1 ? inFlight[0]!.frame : Buffer.concat(inFlight.map((p) => p.frame));
        writeFully(this.fd, batch);
        this.o.fault("journal-written");
        await new Promise<void>((resolve, reject) =>
          fdatasync(this.fd, (error) => (error ? reject(error) : resolve())),
        );
        this._bytes += batch.length;
        if (this.retained)
          for (const p of inFlight) if (p.seq > this.retainAfterSeq) this.retained.push(p.frame);
        this._durableSeq = inFlight[inFlight.length - 1]!.seq;
        for (const p of inFlight) p.resolve();
        inFlight = [];
        this.o.onFlushed();
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
      if (!this.failure && (this.queue.length > 0 || this.rotation)) this.kick();
    }
  }

  private async performRotation(rotation: Rotation): Promise<void> {
    this.rotation = null;
    const carried = this.retained ?? [];
    this.retained = null;
    const header = encodeJournalHeader({ generation: this.o.generation, baseSeq: rotation.baseSeq });
    try {
      const temp = await writeTempFile(this.o.path, [header, ...carried]);
      await replaceWithTemp(temp, this.o.path, this.o.fence);
    } catch (error) {
      // The rename did not happen: the old journal is intact and still ours to append to (recovery skips the records
      // the newer snapshot already holds). The snapshot reports the error; the store decides whether it is fatal.
      rotation.reject(error);
      return;
    }
    // Renamed: from here the old descriptor points at an unlinked file, so switch before anything else is written.
    const fd = openSync(this.o.path, "a", 0o600);
    closeSync(this.fd);
    this.fd = fd;
    this._bytes = header.length + carried.reduce((n, b) => n + b.length, 0);
    this._baseSeq = rotation.baseSeq;
    await fsyncDir(dirname(this.o.path)); // a failure here propagates to pump(): fatal
    // Transactions still queued with seq <= baseSeq are inside the durable snapshot: done, and not for this journal.
    this.queue = this.queue.filter((p) => {
      if (p.seq > rotation.baseSeq) return true;
      p.resolve();
      return false;
    });
    this._durableSeq = Math.max(this._durableSeq, rotation.baseSeq);
    rotation.resolve();
  }
}

function writeFully(fd: number, buf: Buffer): void {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done);
}
