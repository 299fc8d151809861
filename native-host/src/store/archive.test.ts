// EventArchive on its own: appends beyond the committed end are invisible until committed and replaced by the next
// append; readers stop at the committed end and skip a row whose key they already yielded.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventArchive } from "./archive.ts";
import { frameText } from "./frame-codec.ts";
import { encodeRows } from "./record-codec.ts";
import type { Row } from "./store-types.ts";

const framed = (rows: Row[]): Buffer => frameText(encodeRows(rows));

async function collect(iterable: AsyncIterable<Row>): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of iterable) rows.push(row);
  return rows;
}

describe("EventArchive", () => {
  let dir: string;
  let archive: EventArchive;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "orch-archive-unit-"));
    archive = new EventArchive(join(dir, "events-archive.log"), 0, () => undefined);
  });
  afterEach(async () => {
    await archive.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows only committed appends, and an uncommitted one is overwritten by the next", async () => {
    const a = await archive.append([framed([{ seq: 1, v: "a" }])]);
    archive.commit(a);
    await archive.append([
      framed([
        { seq: 2, v: "never committed" },
        { seq: 3, v: "x" },
      ]),
    ]);
    expect(await collect(archive.read(undefined, {}))).toEqual([{ seq: 1, v: "a" }]);
    const b = await archive.append([framed([{ seq: 2, v: "b" }])]);
    archive.commit(b);
    expect(statSync(join(dir, "events-archive.log")).size).toBe(b);
    expect(await collect(archive.read(undefined, {}))).toEqual([
      { seq: 1, v: "a" },
      { seq: 2, v: "b" },
    ]);
  });

  it("skips rows whose key was already yielded, unless told not to", async () => {
    const blob = new Uint8Array([1, 2, 3]);
    archive.commit(
      await archive.append([
        framed([
          { seq: 1, v: blob },
          { seq: 2, v: null },
        ]),
      ]),
    );
    archive.commit(
      await archive.append([
        framed([
          { seq: 2, v: null },
          { seq: 3, v: 1.5 },
        ]),
      ]),
    );
    expect((await collect(archive.read(undefined, {}))).map((r) => r.seq)).toEqual([1, 2, 3]);
    expect((await collect(archive.read(undefined, { dedupeKey: null }))).map((r) => r.seq)).toEqual([
      1, 2, 2, 3,
    ]);
    expect((await collect(archive.read((r) => r.seq !== 1, {}))).map((r) => r.seq)).toEqual([2, 3]);
    expect((await collect(archive.read(undefined, {})))[0]!.v).toEqual(blob);
  });
});
