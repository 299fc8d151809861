// store.mark: how far the store has acknowledged (the highest durable transaction seq), kept apart from the journal,
// so that a journal cut short or zeroed, or store files deleted, are refused at open instead of losing work silently.
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { crc32 } from "node:zlib";
import { writeFileAtomic } from "./atomic-file.ts";
import { StoreError, describeError } from "./store-error.ts";
import { readIfPresent } from "./read-if-present.ts";

export const MARK_FILE = "store.mark";

const MAGIC = Buffer.from("CORCMARK", "latin1");
const VERSION = 1;
const SLOT_BYTES = 32;
/**
 * Two slots in different sectors, written in turn: a write torn by a power cut damages at most the one being written,
 * and the other still holds the previous mark.
 */
const SLOT_OFFSETS = [0, 512] as const;
const FILE_BYTES = 1024;

export interface AckMark {
  /** Every transaction with seq <= this was acknowledged to a caller. */
  readonly seq: number;
  readonly generation: number;
}

function encodeSlot(mark: AckMark): Buffer {
  const slot = Buffer.alloc(SLOT_BYTES);
  MAGIC.copy(slot, 0);
  slot.writeUInt32LE(VERSION, 8);
  slot.writeUInt32LE(mark.generation >>> 0, 12);
  slot.writeBigUInt64LE(BigInt(mark.seq), 16);
  slot.writeUInt32LE(crc32(slot.subarray(0, 24)), 24);
  return slot;
}

function decodeSlot(file: Buffer, offset: number): AckMark | undefined {
  const slot = file.subarray(offset, offset + SLOT_BYTES);
  if (slot.length < SLOT_BYTES || !slot.subarray(0, 8).equals(MAGIC)) return undefined;
  if (slot.readUInt32LE(24) !== crc32(slot.subarray(0, 24))) return undefined;
  if (slot.readUInt32LE(8) > VERSION) return undefined;
  return { seq: Number(slot.readBigUInt64LE(16)), generation: slot.readUInt32LE(12) };
}

/**
 * The acknowledged mark, or undefined when there is no mark file (a directory from before marks, or a new one).
 * Throws STORE_CORRUPT when the file exists but neither slot holds a valid mark.
 */
export function readAckMark(path: string): AckMark | undefined {
  const file = readIfPresent(path);
  if (file === undefined) return undefined;
  const marks = SLOT_OFFSETS.map((o) => decodeSlot(file, o)).filter((m) => m !== undefined);
  if (marks.length === 0) {
    throw new StoreError(
      "STORE_CORRUPT",
      `${path} holds no valid acknowledged mark, so the store cannot tell whether transactions are missing`,
      { path },
    );
  }
  return marks.reduce((a, b) => (b.seq > a.seq ? b : a));
}

/**
 * Keeps store.mark at the durable seq. Written after each durable batch with one 32-byte write into the page cache
 * (a few microseconds) and synced only at open and close: a background fdatasync of its own, even once a second, made
 * the journal's next blocking fdatasync wait behind it and doubled the batches pushed onto the thread pool
 * (`npm run bench:store`). The kernel writes the page back by itself within seconds. The mark is only ever written
 * after the journal records it names are durable, so whatever version of it survives a crash or a power cut is never
 * ahead of the journal, only possibly behind it after a power cut (which weakens detection, never causes a refusal).
 */
/**
 * Writes to the mark at most this often: each write dirties the file's inode (its mtime), and doing that after every
 * batch pushed about twice as many journal fdatasyncs onto the thread pool (`npm run bench:store`). The mark thus
 * trails the journal by at most this long while commits go on.
 */
const WRITE_EVERY_MS = 100;

export class AckMarkWriter {
  private written: number;
  private nextSlot = 0;
  private dirty = false;
  /** The durable seq last reported, written at the next chance (at most every WRITE_EVERY_MS, and at close). */
  private pending = 0;
  private lastWriteAt = 0;
  private warned: string | undefined;

  private constructor(
    private readonly path: string,
    private readonly fd: number,
    private readonly generation: number,
    seq: number,
    private readonly warn: (message: string) => void,
  ) {
    this.written = seq;
  }

  /** Writes a fresh mark file holding `seq` in both slots (atomically, synced), then opens it for updates. */
  static async create(
    path: string,
    mark: AckMark,
    fence: () => void,
    warn: (message: string) => void,
  ): Promise<AckMarkWriter> {
    const file = Buffer.alloc(FILE_BYTES);
    for (const offset of SLOT_OFFSETS) encodeSlot(mark).copy(file, offset);
    await writeFileAtomic(path, [file], fence);
    return new AckMarkWriter(path, openSync(path, "r+", 0o600), mark.generation, mark.seq, warn);
  }

  /**
   * Opens an existing, valid mark file for updates and brings it up to `seq` (a mark that trails the files, e.g. after
   * a power cut, is moved forward and synced). Writing in place spares every open a new file, rename and directory sync.
   */
  static open(path: string, current: AckMark, seq: number, warn: (message: string) => void): AckMarkWriter {
    const writer = new AckMarkWriter(
      path,
      openSync(path, "r+", 0o600),
      current.generation,
      current.seq,
      warn,
    );
    writer.advance(seq);
    if (writer.dirty) fdatasyncSync(writer.fd);
    writer.dirty = false;
    return writer;
  }

  get seq(): number {
    return this.written;
  }

  /** Every transaction up to `seq` is durable now. */
  advance(seq: number): void {
    if (seq <= this.written) return;
    this.pending = seq;
    const now = Date.now();
    if (now - this.lastWriteAt < WRITE_EVERY_MS) return;
    this.lastWriteAt = now;
    this.writePending();
  }

  private writePending(): void {
    const seq = this.pending;
    if (seq <= this.written) return;
    try {
      const slot = encodeSlot({ seq, generation: this.generation });
      writeSync(this.fd, slot, 0, SLOT_BYTES, SLOT_OFFSETS[this.nextSlot]);
      this.nextSlot = 1 - this.nextSlot;
      this.written = seq;
      this.dirty = true;
    } catch (error) {
      // The journal holds the data; a mark that lags only makes damage harder to detect. Say so once per cause.
      this.reportOnce(`updating ${this.path} failed (${describeError(error)}); it lags behind the journal`);
    }
  }

  /** Makes the latest mark durable and closes the file. */
  close(): void {
    try {
      this.writePending();
      if (this.dirty) fdatasyncSync(this.fd);
    } catch (error) {
      this.reportOnce(`syncing ${this.path} failed (${describeError(error)})`);
    } finally {
      closeSync(this.fd);
    }
  }

  private reportOnce(message: string): void {
    if (message === this.warned) return;
    this.warned = message;
    this.warn(message);
  }
}
