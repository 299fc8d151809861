// Length-prefixed, checksummed framing shared by the journal and the archive: u32 length, u32 crc32, payload.
// The scanner tells a torn tail (cut and recover) from damage followed by valid records (refuse to guess), and the
// zero-filled space a preallocated journal keeps after its last record from either.
import { crc32 } from "node:zlib";

export const FRAME_HEADER_BYTES = 8;
/** Upper bound on one record; a larger length field can only be damage. */
export const MAX_FRAME_PAYLOAD = 256 * 1024 * 1024;

export function encodeFrame(payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  payload.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

/** Frames a JSON text with one allocation (the text is encoded straight into the frame). */
export function frameText(text: string): Buffer {
  const length = Buffer.byteLength(text, "utf8");
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.writeUInt32LE(length, 0);
  frame.write(text, FRAME_HEADER_BYTES, "utf8");
  frame.writeUInt32LE(crc32(frame.subarray(FRAME_HEADER_BYTES)), 4);
  return frame;
}

export interface Frame {
  offset: number;
  payload: Buffer;
}

export type FrameScan =
  | { kind: "clean"; frames: Frame[]; end: number }
  /** Bytes from `end` on form no valid frame and nothing valid follows them: a write the crash cut short. */
  | { kind: "torn-tail"; frames: Frame[]; end: number; droppedBytes: number; reason: string }
  /** A bad frame at `badOffset` with a valid frame after it: damage inside the file, not a torn append. */
  | { kind: "corrupt"; frames: Frame[]; badOffset: number; nextValidOffset: number; reason: string };

export interface ScanOptions {
  /**
   * The file is preallocated: records are written over zeros, so bytes that are all zero from a frame boundary to the
   * end of the file are unused space (a clean end), not a torn record. No genuine frame starts with a zero length.
   */
  zeroFilledTail?: boolean;
}

/**
 * Reads frames from `start` to the end of `buf`. `payloadPrefix` is how every genuine payload begins (e.g. `{"seq":`);
 * it lets the search for valid frames after a bad one skip almost every offset without computing a checksum.
 */
export function scanFrames(
  buf: Buffer,
  start: number,
  payloadPrefix: Buffer,
  options: ScanOptions = {},
): FrameScan {
  const frames: Frame[] = [];
  let p = start;
  while (p < buf.length) {
    if (options.zeroFilledTail && buf[p] === 0 && allZero(buf, p)) break;
    const problem = frameProblem(buf, p);
    if (problem !== null) {
      const next = findValidFrame(buf, p + 1, payloadPrefix);
      if (next >= 0) return { kind: "corrupt", frames, badOffset: p, nextValidOffset: next, reason: problem };
      // In a preallocated file the zeros after the torn bytes are unused space, not part of what is cut.
      const dropped = (options.zeroFilledTail ? lastNonZero(buf) + 1 : buf.length) - p;
      return { kind: "torn-tail", frames, end: p, droppedBytes: dropped, reason: problem };
    }
    const len = buf.readUInt32LE(p);
    frames.push({ offset: p, payload: buf.subarray(p + FRAME_HEADER_BYTES, p + FRAME_HEADER_BYTES + len) });
    p += FRAME_HEADER_BYTES + len;
  }
  return { kind: "clean", frames, end: p };
}

const ZEROS = Buffer.alloc(64 * 1024);

/** Whether every byte of `buf` from `from` on is zero (compared a block at a time: the tail can be megabytes). */
function allZero(buf: Buffer, from: number): boolean {
  for (let p = from; p < buf.length; p += ZEROS.length) {
    const end = Math.min(buf.length, p + ZEROS.length);
    if (buf.compare(ZEROS, 0, end - p, p, end) !== 0) return false;
  }
  return true;
}

function lastNonZero(buf: Buffer): number {
  let i = buf.length - 1;
  while (i >= 0 && buf[i] === 0) i--;
  return i;
}

/** Why the frame at `p` is not valid, or null when it is. */
function frameProblem(buf: Buffer, p: number): string | null {
  if (buf.length - p < FRAME_HEADER_BYTES) return `incomplete frame header (${buf.length - p} bytes)`;
  const len = buf.readUInt32LE(p);
  if (len === 0 || len > MAX_FRAME_PAYLOAD) return `impossible record length ${len}`;
  if (p + FRAME_HEADER_BYTES + len > buf.length) {
    return `record of ${len} bytes runs past the end of the file (${buf.length - p - FRAME_HEADER_BYTES} present)`;
  }
  const payload = buf.subarray(p + FRAME_HEADER_BYTES, p + FRAME_HEADER_BYTES + len);
  if (crc32(payload) !== buf.readUInt32LE(p + 4)) return "record checksum mismatch";
  return null;
}

function findValidFrame(buf: Buffer, from: number, payloadPrefix: Buffer): number {
  const last = buf.length - FRAME_HEADER_BYTES - payloadPrefix.length;
  for (let q = from; q <= last; q++) {
    // Cheap filters first: a plausible length and the expected payload opening.
    const len = buf.readUInt32LE(q);
    if (len < payloadPrefix.length || q + FRAME_HEADER_BYTES + len > buf.length) continue;
    if (buf.compare(payloadPrefix, 0, payloadPrefix.length, q + 8, q + 8 + payloadPrefix.length) !== 0)
      continue;
    if (frameProblem(buf, q) === null) return q;
  }
  return -1;
}
