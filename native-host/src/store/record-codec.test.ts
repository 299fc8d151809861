// Journal and archive payloads round-trip exactly (blobs included), and parameters that JSON would change are refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeRows,
  decodeTxRecord,
  encodeParams,
  encodeRows,
  encodeTxRecord,
  StatementText,
  txRecordText,
} from "./record-codec.ts";
import type { SqlValue } from "./store-types.ts";

const value: fc.Arbitrary<SqlValue> = fc.oneof(
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
  fc.integer(),
  fc.constant(null),
  fc.uint8Array({ maxLength: 40 }),
);

describe("record codec", () => {
  it("round-trips positional and named parameters through a journal record", () => {
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 8 }),
        fc.dictionary(
          fc.string({ minLength: 1 }).map((k) => `:${k}`),
          fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        ),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (positional, named, seq) => {
          const payload = Buffer.from(
            encodeTxRecord(seq, [
              ["INSERT 1", encodeParams("INSERT 1", positional)],
              ["INSERT 2", encodeParams("INSERT 2", named), 1],
              ["INSERT 3", encodeParams("INSERT 3", undefined)],
            ]),
          );
          const record = decodeTxRecord(payload);
          expect(record.seq).toBe(seq);
          expect(record.stmts.map((s) => s.failed)).toEqual([false, true, false]);
          expect(record.stmts[0]!.params).toEqual(positional);
          expect(record.stmts[1]!.params).toEqual(named);
          expect(record.stmts[2]!.params).toBeUndefined();
        },
      ),
    );
  });

  it("writes the same bytes statement by statement as encodeTxRecord does at once", () => {
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 8 }),
        fc.dictionary(
          fc.string({ minLength: 1 }).map((k) => `:${k}`),
          fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        ),
        fc.string(),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (positional, named, sql, seq) => {
          const texts = [
            new StatementText(sql, positional).text(false),
            new StatementText(sql, named).text(true),
            new StatementText(sql, undefined).text(false),
          ];
          expect(txRecordText(seq, texts)).toBe(
            encodeTxRecord(seq, [
              [sql, encodeParams(sql, positional)],
              [sql, encodeParams(sql, named), 1],
              [sql, encodeParams(sql, undefined)],
            ]),
          );
        },
      ),
    );
  });

  it("refuses the same parameters statement by statement", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, true, undefined, 10n, { a: 1 }]) {
      expect(() => new StatementText("SELECT ?", [1, bad as unknown as SqlValue])).toThrow(/parameter 2/);
    }
  });

  it("round-trips archive rows", () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.string({ minLength: 1 }), value), { maxLength: 5 }), (rows) => {
        expect(decodeRows(Buffer.from(encodeRows(rows)))).toEqual(rows);
      }),
    );
  });

  it("keeps infinite REALs in archived rows", () => {
    const rows = [{ a: Number.POSITIVE_INFINITY, b: Number.NEGATIVE_INFINITY, c: 1.5 }];
    expect(decodeRows(Buffer.from(encodeRows(rows)))).toEqual(rows);
  });

  it("keeps a column named __proto__ as data", () => {
    const rows = [{ ["__proto__"]: 1, seq: 2 }];
    const back = decodeRows(Buffer.from(encodeRows(rows)));
    expect(Object.keys(back[0]!)).toEqual(["__proto__", "seq"]);
    expect(Object.getPrototypeOf(back[0])).toBe(Object.prototype);
  });

  it("refuses values that would replay differently", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, true, undefined, 10n, { a: 1 }]) {
      expect(() => encodeParams("SELECT ?", [bad as unknown as SqlValue])).toThrow(/journalled/);
    }
    expect(() => encodeParams("SELECT :a", { ":a": new Uint8Array(1) as unknown as string })).toThrow(
      /journalled/,
    );
  });
});
