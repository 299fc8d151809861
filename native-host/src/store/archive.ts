// The append-only event archive (events-archive.log): rows leave the live database here before their delete is
// journalled. Same length+crc framing as the journal. Its committed length lives in the database, so bytes a crash
// left beyond it (rows whose delete never became durable, hence still live) are cut on open instead of duplicated.
import { ftruncateSync, fsyncSync, openSync, closeSync, readSync, statSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { ARCHIVE_HEADER_BYTES, checkArchiveHeader, encodeArchiveHeader } from "./file-headers.ts";
import { FRAME_HEADER_BYTES, MAX_FRAME_PAYLOAD } from "./frame-codec.ts";
import { decodeRows } from "./record-codec.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import { StoreError, describeError } from "./store-error.ts";
import type { Row, SqlValue } from "./store-types.ts";

const READ_CHUNK_BYTES = 1024 * 1024;

export interface ArchiveReadOptions {
  /**
   * Column whose value identifies a row; a row whose key was already yielded is skipped (default "seq"; null turns
   * it off). The store never writes a row twice, but archives written by hand or by older code might.
   */
  dedupeKey?: string | null;
}

export interface ArchiveInspection {
  /** Bytes beyond the committed end, to be cut when the store opens (an append whose delete never committed). */
  unconfirmedBytes: number;
}

/** Read-only check at open: the file must hold at least `committedEnd` bytes behind a valid header. */
export function inspectArchive(path: string, committedEnd: number): ArchiveInspection {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    if (committedEnd === 0) return { unconfirmedBytes: 0 };
    throw new StoreError(
      "STORE_CORRUPT",
      `archive ${path} is missing, but the database records ${committedEnd} archived bytes in it`,
      { path },
    );
  }
  const fd = openSync(path, "r");
  try {
    const header = Buffer.alloc(ARCHIVE_HEADER_BYTES);
    const got = readSync(fd, header, 0, header.length, 0);
    checkArchiveHeader(header.subarray(0, got), path);
  } finally {
    closeSync(fd);
  }
  const end = Math.max(committedEnd, ARCHIVE_HEADER_BYTES);
  if (size < end) {
    throw new StoreError(
      "STORE_CORRUPT",
      `archive ${path} holds ${size} bytes, but the database records ${end} committed bytes in it`,
      { path },
    );
  }
  return { unconfirmedBytes: size - end };
}

/** Cuts what `inspectArchive` found beyond the committed end. */
export function cutUnconfirmed(path: string, committedEnd: number): void {
  const fd = openSync(path, "r+");
  try {
    ftruncateSync(fd, Math.max(committedEnd, ARCHIVE_HEADER_BYTES));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class EventArchive {
  private handle: FileHandle | undefined;

  /** `committedEnd` is 0 until the first rows are archived. */
  constructor(
    private readonly path: string,
    private committedEnd: number,
    private readonly fence: () => void,
  ) {}

  get end(): number {
    return this.committedEnd;
  }

  /**
   * Writes `frames` after the committed end, drops anything beyond (a previous attempt that never committed) and
   * fdatasyncs. Returns the new end, which becomes committed only via `commit` once the delete is durable.
   */
  async append(frames: readonly Buffer[]): Promise<number> {
    const fh = await this.open();
    let at = Math.max(this.committedEnd, ARCHIVE_HEADER_BYTES);
    for (const frame of frames) {
      for (let done = 0; done < frame.length;) {
        const { bytesWritten } = await fh.write(frame, done, frame.length - done, at + done);
        done += bytesWritten;
      }
      at += frame.length;
    }
    await fh.truncate(at);
    await fh.datasync();
    return at;
  }

  commit(end: number): void {
    this.committedEnd = end;
  }

  /** Rows archived and committed so far, oldest first; stops at the committed end as of the call. */
  async *read(filter: ((row: Row) => boolean) | undefined, options: ArchiveReadOptions): AsyncGenerator<Row> {
    const end = this.committedEnd;
    if (end === 0) return;
    const key = options.dedupeKey === undefined ? "seq" : options.dedupeKey;
    const seen = new Set<SqlValue>();
    const fh = await open(this.path, "r");
    try {
      const reader = new ChunkReader(fh, end);
      checkArchiveHeader(await reader.take(0, ARCHIVE_HEADER_BYTES, this.path), this.path);
      for (let pos = ARCHIVE_HEADER_BYTES; pos < end;) {
        const head = await reader.take(pos, FRAME_HEADER_BYTES, this.path);
        const len = head.readUInt32LE(0);
        if (len === 0 || len > MAX_FRAME_PAYLOAD || pos + FRAME_HEADER_BYTES + len > end) {
          throw this.corrupt(pos, `impossible record length ${len}`);
        }
        const payload = await reader.take(pos + FRAME_HEADER_BYTES, len, this.path);
        if (crc32(payload) !== head.readUInt32LE(4)) throw this.corrupt(pos, "record checksum mismatch");
        let rows: Row[];
        try {
          rows = decodeRows(payload);
        } catch (error) {
          throw this.corrupt(pos, describeError(error));
        }
        for (const row of rows) {
          if (filter && !filter(row)) continue;
          const id = key === null ? undefined : row[key];
          if (id !== undefined && id !== null) {
            if (seen.has(id)) continue;
            seen.add(id);
          }
          yield row;
        }
        pos += FRAME_HEADER_BYTES + len;
      }
    } finally {
      await fh.close();
    }
  }

  async close(): Promise<void> {
    const fh = this.handle;
    this.handle = undefined;
    await fh?.close();
  }

  private async open(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    if (this.committedEnd === 0) {
      // First use (or the first append never committed): start from a file holding only the header.
      await writeFileAtomic(this.path, [encodeArchiveHeader()], this.fence);
    }
    this.handle = await open(this.path, "r+");
    return this.handle;
  }

  private corrupt(offset: number, reason: string): StoreError {
    return new StoreError(
      "STORE_CORRUPT",
      `archive ${this.path} has a damaged record at byte ${offset}: ${reason}`,
      {
        path: this.path,
      },
    );
  }
}

/** Sequential reads through a 1 MiB window, so a large archive streams in constant memory. */
class ChunkReader {
  private buf = Buffer.alloc(0);
  private bufStart = 0;

  constructor(
    private readonly fh: FileHandle,
    private readonly end: number,
  ) {}

  async take(pos: number, length: number, path: string): Promise<Buffer> {
    if (pos >= this.bufStart && pos + length <= this.bufStart + this.buf.length) {
      return this.buf.subarray(pos - this.bufStart, pos - this.bufStart + length);
    }
    const size = Math.min(Math.max(length, READ_CHUNK_BYTES), this.end - pos);
    const next = Buffer.alloc(size);
    const { bytesRead } = await this.fh.read(next, 0, size, pos);
    if (bytesRead < length) {
      throw new StoreError(
        "STORE_CORRUPT",
        `archive ${path} ends at byte ${pos + bytesRead}, before its committed end`,
        {
          path,
        },
      );
    }
    this.buf = next.subarray(0, bytesRead);
    this.bufStart = pos;
    return this.buf.subarray(0, length);
  }
}
