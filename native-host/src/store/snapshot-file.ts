// The snapshot file: a checksummed header plus the sql.js database image, deflated. Written atomically (temp, fsync,
// fence, rename, fsync directory); read back only if header and body checksums both hold.
import { dirname } from "node:path";
import { promisify } from "node:util";
import { constants, crc32, deflateRaw, inflateRawSync } from "node:zlib";
import { fsyncDir, replaceWithTemp, writeTempFile } from "./atomic-file.ts";
import {
  decodeSnapshotHeader,
  type DecodedSnapshotHeader,
  encodeSnapshotHeader,
  SNAPSHOT_HEADER_BYTES,
} from "./file-headers.ts";
import { StoreError } from "./store-error.ts";
import type { StoreFaultPoint } from "./store-types.ts";
import { readIfPresent } from "./read-if-present.ts";

const deflateRawAsync = promisify(deflateRaw);

/** Every SQLite database file starts with this; checked after inflating, before sql.js is handed the image. */
const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

export interface LoadedSnapshot {
  header: DecodedSnapshotHeader;
  /** The database image (inflated). */
  body: Uint8Array;
  fileBytes: number;
}

/** Reads and verifies a snapshot; undefined if the file does not exist. Throws STORE_CORRUPT naming the file. */
export function readSnapshotFile(path: string): LoadedSnapshot | undefined {
  const file = readIfPresent(path);
  if (file === undefined) return undefined;
  const header = decodeSnapshotHeader(file, path);
  const actual = file.length - SNAPSHOT_HEADER_BYTES;
  if (actual !== header.bodyLength) {
    throw new StoreError(
      "STORE_CORRUPT",
      `snapshot ${path} should hold ${header.bodyLength} bytes of database after its header but holds ${actual}`,
      { path },
    );
  }
  const stored = file.subarray(SNAPSHOT_HEADER_BYTES);
  if (crc32(stored) !== header.bodyCrc) {
    throw new StoreError("STORE_CORRUPT", `snapshot ${path} fails its body checksum`, { path });
  }
  if (header.version === 1) return { header, body: stored, fileBytes: file.length };
  let body: Buffer;
  try {
    body = inflateRawSync(stored);
  } catch (error) {
    // The checksum held, so this is not damage on disk but a body this code cannot have written.
    throw new StoreError(
      "STORE_CORRUPT",
      `snapshot ${path} holds a body that does not inflate: ${String(error)}`,
      {
        path,
        cause: error,
      },
    );
  }
  if (!body.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    throw new StoreError("STORE_CORRUPT", `snapshot ${path} does not hold an SQLite database image`, {
      path,
    });
  }
  return { header, body, fileBytes: file.length };
}

/**
 * The stored body of a snapshot of `image`: the image deflated on the thread pool, off the event loop. Event rows are
 * repetitive JSON and shrink about eightfold; on one disk every byte the snapshot's fsync writes out is a byte a
 * concurrent journal fdatasync waits behind, so the smaller file is what keeps commits fast while a snapshot is written.
 */
export function encodeSnapshotBody(image: Uint8Array): Promise<Buffer> {
  return deflateRawAsync(image, { level: constants.Z_BEST_SPEED });
}

/** Writes a body from encodeSnapshotBody as the new snapshot; returns the file size. Renames only if `fence` passes. */
export async function writeSnapshotFile(
  path: string,
  meta: { generation: number; lastSeq: number },
  body: Buffer,
  fence: () => void,
  fault: (point: StoreFaultPoint) => void,
): Promise<number> {
  const header = encodeSnapshotHeader({ ...meta, bodyLength: body.length, bodyCrc: crc32(body) });
  const temp = await writeTempFile(path, [header, body]);
  fault("snapshot-written");
  await replaceWithTemp(temp, path, fence);
  await fsyncDir(dirname(path));
  return header.length + body.length;
}
