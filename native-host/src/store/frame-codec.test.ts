// Property tests of the framing scanner: any sequence of records reads back intact; a cut or damaged end is a torn
// tail; damage with a valid record after it is reported as corruption, never silently cut; in a preallocated file the
// zeros after the records are a clean end.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeFrame, FRAME_HEADER_BYTES, scanFrames } from "./frame-codec.ts";

const PREFIX = Buffer.from('{"seq":');
const payloads: fc.Arbitrary<Buffer[]> = fc
  .array(fc.string({ maxLength: 60 }), { minLength: 1, maxLength: 12 })
  .map((texts) => texts.map((t, i) => Buffer.from(`{"seq":${i},"x":${JSON.stringify(t)}}`)));
const HEADER = Buffer.from("HEADER--");

function file(records: Buffer[]): Buffer {
  return Buffer.concat([HEADER, ...records.map(encodeFrame)]);
}

describe("scanFrames", () => {
  it("reads back every record of an intact file", () => {
    fc.assert(
      fc.property(payloads, (records) => {
        const scan = scanFrames(file(records), HEADER.length, PREFIX);
        expect(scan.kind).toBe("clean");
        expect(scan.frames.map((f) => f.payload.toString())).toEqual(records.map((r) => r.toString()));
      }),
    );
  });

  it("treats a file cut anywhere inside its last record as a torn tail and keeps the others", () => {
    fc.assert(
      fc.property(payloads, fc.nat(), (records, cutSeed) => {
        const whole = file(records);
        const last = FRAME_HEADER_BYTES + records.at(-1)!.length;
        const cut = 1 + (cutSeed % (last - 1)); // remove 1..last-1 bytes: the last record is incomplete
        const scan = scanFrames(whole.subarray(0, whole.length - cut), HEADER.length, PREFIX);
        expect(scan.kind).toBe("torn-tail");
        expect(scan.frames).toHaveLength(records.length - 1);
        if (scan.kind === "torn-tail") expect(scan.droppedBytes).toBe(last - cut);
      }),
    );
  });

  it("reports damage followed by a valid record as corruption", () => {
    fc.assert(
      fc.property(payloads, fc.nat(), fc.nat(), (records, which, at) => {
        fc.pre(records.length >= 2);
        const damaged = which % (records.length - 1); // any record but the last
        const whole = file(records);
        let offset = HEADER.length;
        for (let i = 0; i < damaged; i++) offset += FRAME_HEADER_BYTES + records[i]!.length;
        const size = FRAME_HEADER_BYTES + records[damaged]!.length;
        const copy = Buffer.from(whole);
        copy[offset + (at % size)] = copy[offset + (at % size)]! ^ 0x5a;
        const scan = scanFrames(copy, HEADER.length, PREFIX);
        expect(scan.kind).toBe("corrupt");
        if (scan.kind === "corrupt") expect(scan.badOffset).toBe(offset);
      }),
    );
  });

  it("reads zeros after the records of a preallocated file as a clean end, and only there", () => {
    fc.assert(
      fc.property(payloads, fc.integer({ min: 1, max: 70_000 }), (records, zeros) => {
        const padded = Buffer.concat([file(records), Buffer.alloc(zeros)]);
        const scan = scanFrames(padded, HEADER.length, PREFIX, { zeroFilledTail: true });
        expect(scan).toMatchObject({ kind: "clean", end: padded.length - zeros });
        expect(scan.frames).toHaveLength(records.length);
        // Without the option the same zeros are a torn tail.
        expect(scanFrames(padded, HEADER.length, PREFIX).kind).toBe("torn-tail");
      }),
    );
  });

  it("cuts a record torn inside the preallocated zeros, counting only its own bytes", () => {
    fc.assert(
      fc.property(payloads, fc.nat(), fc.integer({ min: 1, max: 5_000 }), (records, cutSeed, zeros) => {
        const whole = file(records);
        const last = FRAME_HEADER_BYTES + records.at(-1)!.length;
        const kept = 1 + (cutSeed % (last - 1)); // 1..last-1 bytes of the last record reached the disk
        const torn = Buffer.concat([
          whole.subarray(0, whole.length - last + kept),
          Buffer.alloc(last - kept + zeros),
        ]);
        const scan = scanFrames(torn, HEADER.length, PREFIX, { zeroFilledTail: true });
        fc.pre(torn[whole.length - last + kept - 1] !== 0); // a torn write ending in zero bytes looks shorter
        expect(scan.kind).toBe("torn-tail");
        expect(scan.frames).toHaveLength(records.length - 1);
        if (scan.kind === "torn-tail") expect(scan.droppedBytes).toBe(kept);
      }),
    );
  });
});
