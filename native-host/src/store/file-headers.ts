// Fixed binary headers of the snapshot, journal and archive files: magic, format version, sequence bookkeeping,
// each protected by its own crc32 so a damaged header is told apart from a torn record.
import { crc32 } from "node:zlib";
import { StoreError } from "./store-error.ts";

export const FORMAT_VERSION = 1;
/**
 * Snapshots are at version 2: the body is the database image compressed with raw deflate (version 1 bodies, the plain
 * image, are still read).
 */
export const SNAPSHOT_FORMAT_VERSION = 2;

const SNAPSHOT_MAGIC = Buffer.from("CORCSNAP", "latin1");
const JOURNAL_MAGIC = Buffer.from("CORCJRNL", "latin1");
const ARCHIVE_MAGIC = Buffer.from("CORCARCH", "latin1");

export const SNAPSHOT_HEADER_BYTES = 40;
export const JOURNAL_HEADER_BYTES = 32;
export const ARCHIVE_HEADER_BYTES = 16;

export interface SnapshotHeader {
  /** Owner generation that wrote the snapshot (informational; fencing uses owner.json). */
  generation: number;
  /** Last transaction sequence number contained in the image. */
  lastSeq: number;
  bodyLength: number;
  bodyCrc: number;
}

export interface DecodedSnapshotHeader extends SnapshotHeader {
  /** 1: the body is the database image; 2: the image compressed with raw deflate. */
  version: number;
}

export interface JournalHeader {
  generation: number;
  /** The journal's records follow the snapshot that contains every seq <= baseSeq. */
  baseSeq: number;
}

// Snapshot: magic(8) version(4) generation(4) lastSeq(8) bodyLength(8) bodyCrc(4) headerCrc(4) over bytes 0..35.
export function encodeSnapshotHeader(h: SnapshotHeader): Buffer {
  const b = Buffer.alloc(SNAPSHOT_HEADER_BYTES);
  SNAPSHOT_MAGIC.copy(b, 0);
  b.writeUInt32LE(SNAPSHOT_FORMAT_VERSION, 8);
  b.writeUInt32LE(h.generation, 12);
  b.writeBigUInt64LE(BigInt(h.lastSeq), 16);
  b.writeBigUInt64LE(BigInt(h.bodyLength), 24);
  b.writeUInt32LE(h.bodyCrc, 32);
  b.writeUInt32LE(crc32(b.subarray(0, 36)), 36);
  return b;
}

export function decodeSnapshotHeader(b: Buffer, path: string): DecodedSnapshotHeader {
  const version = checkMagicVersionCrc(b, SNAPSHOT_MAGIC, SNAPSHOT_HEADER_BYTES, 36, path, "snapshot", [
    1,
    SNAPSHOT_FORMAT_VERSION,
  ]);
  return {
    version,
    generation: b.readUInt32LE(12),
    lastSeq: safeNumber(b.readBigUInt64LE(16), path, "snapshot lastSeq"),
    bodyLength: safeNumber(b.readBigUInt64LE(24), path, "snapshot body length"),
    bodyCrc: b.readUInt32LE(32),
  };
}

// Journal: magic(8) version(4) generation(4) baseSeq(8) reserved(4) headerCrc(4) over bytes 0..27.
export function encodeJournalHeader(h: JournalHeader): Buffer {
  const b = Buffer.alloc(JOURNAL_HEADER_BYTES);
  JOURNAL_MAGIC.copy(b, 0);
  b.writeUInt32LE(FORMAT_VERSION, 8);
  b.writeUInt32LE(h.generation, 12);
  b.writeBigUInt64LE(BigInt(h.baseSeq), 16);
  b.writeUInt32LE(crc32(b.subarray(0, 28)), 28);
  return b;
}

export function decodeJournalHeader(b: Buffer, path: string): JournalHeader {
  checkMagicVersionCrc(b, JOURNAL_MAGIC, JOURNAL_HEADER_BYTES, 28, path, "journal", [FORMAT_VERSION]);
  return {
    generation: b.readUInt32LE(12),
    baseSeq: safeNumber(b.readBigUInt64LE(16), path, "journal baseSeq"),
  };
}

// Archive: magic(8) version(4) headerCrc(4) over bytes 0..11.
export function encodeArchiveHeader(): Buffer {
  const b = Buffer.alloc(ARCHIVE_HEADER_BYTES);
  ARCHIVE_MAGIC.copy(b, 0);
  b.writeUInt32LE(FORMAT_VERSION, 8);
  b.writeUInt32LE(crc32(b.subarray(0, 12)), 12);
  return b;
}

export function checkArchiveHeader(b: Buffer, path: string): void {
  checkMagicVersionCrc(b, ARCHIVE_MAGIC, ARCHIVE_HEADER_BYTES, 12, path, "archive", [FORMAT_VERSION]);
}

function checkMagicVersionCrc(
  b: Buffer,
  magic: Buffer,
  size: number,
  crcAt: number,
  path: string,
  what: string,
  readable: readonly number[],
): number {
  if (b.length < size) {
    throw new StoreError(
      "STORE_CORRUPT",
      `${what} header of ${path} is truncated (${b.length} of ${size} bytes)`,
      {
        path,
      },
    );
  }
  if (!b.subarray(0, 8).equals(magic)) {
    throw new StoreError("STORE_CORRUPT", `${path} is not a ${what} file (bad magic)`, { path });
  }
  if (crc32(b.subarray(0, crcAt)) !== b.readUInt32LE(crcAt)) {
    throw new StoreError("STORE_CORRUPT", `${what} header of ${path} fails its checksum`, { path });
  }
  // The version is checked after the crc so that a flipped bit reads as damage, not as a "newer format".
  const version = b.readUInt32LE(8);
  if (!readable.includes(version)) {
    throw new StoreError(
      "STORE_VERSION",
      `${path} uses ${what} format version ${version}; this build reads version ${readable.join(" and ")}`,
      { path },
    );
  }
  return version;
}

function safeNumber(v: bigint, path: string, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new StoreError("STORE_CORRUPT", `${what} in ${path} is out of range (${v})`, { path });
  }
  return Number(v);
}
