// Native messaging framing: round trips, arbitrary chunking, bad frames skipped in sync, oversize refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder, FrameTooLargeError, MAX_INBOUND_FRAME_BYTES } from "./native-framing.ts";

function frameOf(body: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  return Buffer.concat([head, body]);
}

describe("native framing", () => {
  it("decodes what it encodes, however the bytes are chunked", () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 64 }),
        (values, size) => {
          const bytes = Buffer.concat(values.map((v) => encodeFrame(v)));
          const decoder = new FrameDecoder();
          const out: unknown[] = [];
          for (let i = 0; i < bytes.length; i += size) {
            for (const e of decoder.push(bytes.subarray(i, i + size)))
              if (e.kind === "message") out.push(e.value);
          }
          expect(out).toEqual(values.map((v) => JSON.parse(JSON.stringify(v)) as unknown));
          expect(decoder.pending).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reports a non-JSON or non-UTF-8 frame and stays in sync for the next one", () => {
    const decoder = new FrameDecoder();
    const events = decoder.push(
      Buffer.concat([
        frameOf(Buffer.from("{nope")),
        frameOf(Buffer.from([0xff, 0xfe])),
        encodeFrame({ ok: 1 }),
      ]),
    );
    expect(events.map((e) => e.kind)).toEqual(["bad", "bad", "message"]);
    expect(events[2]).toEqual({ kind: "message", value: { ok: 1 } });
  });

  it("stops for good on an impossible length instead of allocating it", () => {
    const decoder = new FrameDecoder();
    const head = Buffer.alloc(4);
    head.writeUInt32LE(MAX_INBOUND_FRAME_BYTES + 1, 0);
    expect(decoder.push(head)[0]?.kind).toBe("bad");
    expect(decoder.fatal).toMatch(/exceeds/);
    expect(decoder.push(encodeFrame({ after: true }))).toEqual([]);
  });

  it("never writes a frame over the browser's limit", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), fc.integer({ min: 10, max: 2000 }), (text, limit) => {
        const size = Buffer.byteLength(JSON.stringify({ text }));
        if (size > limit) expect(() => encodeFrame({ text }, limit)).toThrow(FrameTooLargeError);
        else expect(encodeFrame({ text }, limit).length).toBe(size + 4);
      }),
    );
  });
});
