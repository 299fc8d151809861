// The snapshot file: a checksummed header plus the sql.js database image. Written atomically (temp, fsync, fence,
// rename, fsync directory); read back only if header and body checksums both hold.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { crc32 } from "node:zlib";
import { fsyncDir, replaceWithTemp, writeTempFile } from "./atomic-file.ts";
import {
  decodeSnapshotHeader,
  encodeSnapshotHeader,
  SNAPSHOT_HEADER_BYTES,
  type SnapshotHeader,
} from "./file-headers.ts";
import { StoreError } from "./store-error.ts";
import type { StoreFaultPoint } from "./store-types.ts";

/** Checksum work per event-loop turn, so a large image never blocks the loop for long. */
const CRC_CHUNK_BYTES = 1024 * 1024;

export interface LoadedSnapshot {
  header: SnapshotHeader;
  body: Uint8Array;
  fileBytes: number;
}

/** Reads and verifies a snapshot; undefined if the file does not exist. Throws STORE_CORRUPT naming the file. */
export function readSnapshotFile(path: string): LoadedSnapshot | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const header = decodeSnapshotHeader(file, path);
  const actual = file.length - SNAPSHOT_HEADER_BYTES;
  if (actual !== header.bodyLength) {
    throw new StoreError(
      "STORE_CORRUPT",
      `snapshot ${path} should hold ${header.bodyLength} bytes of database after its header but holds ${actual}`,
      { path },
    );
  }
  const body = file.subarray(SNAPSHOT_HEADER_BYTES);
  if (crc32(body) !== header.bodyCrc) {
    throw new StoreError("STORE_CORRUPT", `snapshot ${path} fails its body checksum`, { path });
  }
  return { header, body, fileBytes: file.length };
}

/** Writes `image` as the new snapshot; returns the file size. Nothing is renamed unless `fence` passes. */
export async function writeSnapshotFile(
  path: string,
  meta: { generation: number; lastSeq: number },
  image: Uint8Array,
  fence: () => void,
  fault: (point: StoreFaultPoint) => void,
): Promise<number> {
  let crc = 0;
  for (let at = 0; at < image.length; at += CRC_CHUNK_BYTES) {
    crc = crc32(image.subarray(at, at + CRC_CHUNK_BYTES), crc);
    if (at + CRC_CHUNK_BYTES < image.length) await yieldToLoop();
  }
  const header = encodeSnapshotHeader({ ...meta, bodyLength: image.length, bodyCrc: crc });
  const temp = await writeTempFile(path, [header, image]);
  fault("snapshot-written");
  await replaceWithTemp(temp, path, fence);
  await fsyncDir(dirname(path));
  return header.length + image.length;
}
