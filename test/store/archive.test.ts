// The event archive keeps the live database bounded: moveToArchive appends rows durably before their delete is
// journalled, readers stream them back, snapshots shrink, and a crash in between loses and duplicates nothing.
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DurableStore, SNAPSHOT_FILE } from "../../native-host/src/store/durable-store.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";
import type { Row, StoreOptions } from "../../native-host/src/store/store-types.ts";
import { applyTx, payloadOf, verifySequence } from "./crash-sequence.ts";
import {
  buildChildBundle,
  Child,
  type ChildBundle,
  makeTempDir,
  recordingLogger,
  removeDir,
} from "./helpers.ts";

const selectUpTo = (n: number) => ({ sql: "SELECT * FROM events WHERE seq <= ? ORDER BY seq", params: [n] });
const deleteUpTo = (n: number) => ({ sql: "DELETE FROM events WHERE seq <= ?", params: [n] });

async function collect(iterable: AsyncIterable<Row>): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of iterable) rows.push(row);
  return rows;
}

describe("event archive", () => {
  let dir: string;
  let bundle: ChildBundle;
  let store: DurableStore | undefined;

  async function openStore(extra: Partial<StoreOptions> = {}): Promise<DurableStore> {
    store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: recordingLogger().log, ...extra });
    return store;
  }

  async function commit(s: DurableStore, from: number, to: number): Promise<void> {
    await s.write((tx) => tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')"));
    // Batched: 200 transactions per write keeps the test quick; each one still moves its counters.
    for (let i = from; i <= to; i += 200) {
      await s.write((tx) => {
        for (let j = i; j < Math.min(i + 200, to + 1); j++) applyTx(tx, j);
      });
    }
  }

  beforeAll(async () => {
    bundle = await buildChildBundle();
  });
  afterAll(() => bundle.dispose());
  beforeEach(() => {
    dir = makeTempDir("archive");
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    removeDir(dir);
  });

  it("moves rows out of the live database into a readable archive, and snapshots shrink", async () => {
    const s = await openStore();
    await commit(s, 1, 8000);
    await s.snapshot();
    const fullSnapshot = statSync(join(dir, SNAPSHOT_FILE)).size;
    expect(await s.moveToArchive(selectUpTo(7900), deleteUpTo(7900))).toBe(7900);
    expect(s.read((q) => q.get<{ n: number }>("SELECT count(*) AS n FROM events"))?.n).toBe(100);
    await s.snapshot();
    expect(statSync(join(dir, SNAPSHOT_FILE)).size).toBeLessThan(fullSnapshot / 4);
    const archived = await collect(s.readArchive());
    expect(archived.map((r) => r.seq)).toEqual(Array.from({ length: 7900 }, (_, i) => i + 1));
    expect(archived[41]).toMatchObject({ seq: 42, run_id: "run-0", worker_id: "w", data: payloadOf(42) });
    const run7 = await collect(s.readArchive((r) => r.run_id === "run-7"));
    expect(run7.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 700 + i));
    await s.close();
    const again = await openStore();
    expect(await verifySequence(again)).toBe(8000);
  });

  it("refuses a delete that does not match the archived selection, deleting nothing", async () => {
    const s = await openStore();
    await commit(s, 1, 100);
    await expect(s.moveToArchive(selectUpTo(10), deleteUpTo(20))).rejects.toMatchObject({
      code: "STORE_ARCHIVE_MISMATCH",
    });
    expect(await collect(s.readArchive())).toEqual([]);
    expect(await verifySequence(s)).toBe(100);
    expect(await s.moveToArchive(selectUpTo(10), deleteUpTo(10))).toBe(10);
    expect((await collect(s.readArchive())).map((r) => r.seq)).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
  });

  it("starts over when the selected rows change between the append and the delete", async () => {
    let changed = false;
    const s = await openStore({
      faultHook: (point) => {
        if (point !== "archive-appended" || changed) return;
        changed = true;
        void s.write((tx) => tx.run("UPDATE events SET type = 'edited' WHERE seq = 5"));
      },
    });
    await commit(s, 1, 20);
    expect(await s.moveToArchive(selectUpTo(10), deleteUpTo(10))).toBe(10);
    const archived = await collect(s.readArchive(undefined, { dedupeKey: null }));
    expect(archived).toHaveLength(10); // the first, stale append was overwritten, not kept
    expect(archived.find((r) => r.seq === 5)?.type).toBe("edited");
  });

  it("loses and duplicates nothing when the process dies between the archive append and the delete", async () => {
    const child = Child.spawn(bundle, { mode: "fault", dir, fault: "archive-appended" });
    await child.waitLine(/^committed 20$/);
    expect((await child.exited).signal).toBe("SIGKILL");
    const log = recordingLogger();
    const s = await openStore({ log: log.log });
    // The delete never committed: rows 1..10 are still live and the unconfirmed archive bytes were cut.
    expect(s.read((q) => q.get<{ n: number }>("SELECT count(*) AS n FROM events"))?.n).toBe(20);
    expect(log.warnings.join("\n")).toMatch(
      /events-archive\.log: cut \d+ bytes of an append whose delete never committed/,
    );
    expect(await collect(s.readArchive())).toEqual([]);
    expect(await s.moveToArchive(selectUpTo(10), deleteUpTo(10))).toBe(10);
    const raw = await collect(s.readArchive(undefined, { dedupeKey: null }));
    expect(raw.map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(await verifySequence(s)).toBe(20);
  });

  it("is closed for reading once the store is closed", async () => {
    const s = await openStore();
    await s.close();
    await expect(collect(s.readArchive())).rejects.toMatchObject({ code: "STORE_CLOSED" });
  });
});
