// Native messaging framing: a 4-byte little-endian length then UTF-8 JSON, in both directions.
import { MAX_HOST_MESSAGE_BYTES } from "../../../shared/native-messages.ts";

/** Browsers may send up to 64 MiB (Chrome); nothing we expect is close, so refuse far earlier. */
export const MAX_INBOUND_FRAME_BYTES = 8 * 1024 * 1024;

export type FrameEvent =
  { readonly kind: "message"; readonly value: unknown } | { readonly kind: "bad"; readonly reason: string };

/**
 * Incremental decoder. A frame with invalid JSON is reported and skipped (its length was valid, so the
 * stream stays in sync); an impossible length cannot be resynchronised, so the decoder stops for good.
 */
export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);
  private broken: string | undefined;

  get fatal(): string | undefined {
    return this.broken;
  }

  push(chunk: Buffer): FrameEvent[] {
    if (this.broken) return [];
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: FrameEvent[] = [];
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32LE(0);
      if (length > MAX_INBOUND_FRAME_BYTES) {
        this.broken = `frame length ${length} exceeds ${MAX_INBOUND_FRAME_BYTES} bytes`;
        this.buffer = Buffer.alloc(0);
        out.push({ kind: "bad", reason: this.broken });
        return out;
      }
      if (this.buffer.length < 4 + length) break;
      const body = this.buffer.subarray(4, 4 + length);
      this.buffer = this.buffer.subarray(4 + length);
      out.push(parse(body));
    }
    return out;
  }

  /** Bytes of an incomplete frame left when the stream ended. */
  get pending(): number {
    return this.buffer.length;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parse(body: Buffer): FrameEvent {
  try {
    return { kind: "message", value: JSON.parse(utf8.decode(body)) as unknown };
  } catch (e) {
    return { kind: "bad", reason: `frame is not UTF-8 JSON: ${(e as Error).message}` };
  }
}

export class FrameTooLargeError extends Error {
  readonly code = "MESSAGE_TOO_LARGE";
}

/** Encodes one message; refuses (throws) rather than write a frame the browser would drop the port for. */
export function encodeFrame(message: unknown, limit = MAX_HOST_MESSAGE_BYTES): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  if (body.length > limit) throw new FrameTooLargeError(`message of ${body.length} bytes exceeds ${limit}`);
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32LE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}
