// DurableStore on a real disk: what is written survives a clean close, a process exit without close (journal replay),
// and snapshots; migrations apply once; transactions are atomic, deterministic and group-committed.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32, inflateRawSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DurableStore, JOURNAL_FILE, SNAPSHOT_FILE } from "../../native-host/src/store/durable-store.ts";
import { SNAPSHOT_HEADER_BYTES } from "../../native-host/src/store/file-headers.ts";
import { MIGRATIONS, type Migration } from "../../native-host/src/store/migrations.ts";
import type { StoreFaultPoint, StoreOptions } from "../../native-host/src/store/store-types.ts";
import { applyTx, verifySequence } from "./crash-sequence.ts";
import {
  buildChildBundle,
  Child,
  type ChildBundle,
  journalRecordsEnd,
  makeTempDir,
  recordingLogger,
  removeDir,
  waitFor,
} from "./helpers.ts";

describe("DurableStore round trip", () => {
  let dir: string;
  let bundle: ChildBundle;
  const open: DurableStore[] = [];

  async function openStore(extra: Partial<StoreOptions> = {}): Promise<DurableStore> {
    const store = await DurableStore.open({
      dir,
      migrations: MIGRATIONS,
      log: recordingLogger().log,
      ...extra,
    });
    open.push(store);
    return store;
  }

  const seedCounters = (store: DurableStore) =>
    store.write((tx) => tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')"));

  beforeAll(async () => {
    bundle = await buildChildBundle();
  });
  afterAll(() => bundle.dispose());
  beforeEach(() => {
    dir = makeTempDir("roundtrip");
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    removeDir(dir);
  });

  it("keeps committed transactions across close and reopen", async () => {
    const store = await openStore();
    await seedCounters(store);
    for (let i = 1; i <= 50; i++) await store.write((tx) => applyTx(tx, i));
    await store.close();
    const again = await openStore();
    expect(await verifySequence(again)).toBe(50);
    expect(again.generation).toBe(store.generation + 1);
  });

  it("replays the journal when the process exited without close", async () => {
    const child = Child.spawn(bundle, { mode: "commit-exit", dir, count: 40 });
    await child.waitLine(/^committed /);
    expect((await child.exited).code).toBe(0);
    expect(existsSync(join(dir, SNAPSHOT_FILE))).toBe(false); // nothing but the journal holds the data
    const store = await openStore();
    expect(await verifySequence(store)).toBe(40);
    expect(store.stats().snapshotSeq).toBe(0);
    expect(store.stats().lastSeq).toBeGreaterThanOrEqual(43); // store tables, migration, counters, 40 transactions
  });

  it("snapshots past the threshold and starts a fresh journal", async () => {
    const store = await openStore({ snapshotAfterBytes: 4096 });
    await seedCounters(store);
    for (let i = 1; i <= 60; i++) await store.write((tx) => applyTx(tx, i));
    // Commits go on while a snapshot is written, so wait until the last one has finished.
    await waitFor(
      () => store.stats().snapshotsTaken >= 2 && !store.stats().snapshotInProgress,
      "two automatic snapshots, none in progress",
    );
    const stats = store.stats();
    expect(stats.snapshotSeq).toBeGreaterThan(0);
    expect(statSync(join(dir, SNAPSHOT_FILE)).size).toBe(stats.snapshotBytes);
    // The journal restarted at the last snapshot: it is far smaller than the 60 transactions written.
    expect(stats.journalBytes).toBeLessThan(4096 + 2048);
    expect(journalRecordsEnd(join(dir, JOURNAL_FILE))).toBe(stats.journalBytes);
    await store.close();
    const again = await openStore();
    expect(await verifySequence(again)).toBe(60);
  });

  it("writes zeros ahead of the journal's records, extending them as the records reach them", async () => {
    const store = await openStore({ snapshotAfterBytes: 64 * 1024 * 1024, journalPreallocateBytes: 8192 });
    await seedCounters(store);
    await waitFor(() => statSync(join(dir, JOURNAL_FILE)).size >= 8192, "the first preallocation");
    for (let i = 1; i <= 200; i++) await store.write((tx) => applyTx(tx, i));
    const bytes = store.stats().journalBytes;
    expect(bytes).toBeGreaterThan(4 * 8192); // the records went through several preallocations
    expect(store.stats().journalSyncs.lastSyncMs).toBeGreaterThan(0);
    await waitFor(() => statSync(join(dir, JOURNAL_FILE)).size > bytes, "zeros ahead of the last record");
    expect(journalRecordsEnd(join(dir, JOURNAL_FILE))).toBe(bytes);
    await store.close();
    const again = await openStore();
    expect(await verifySequence(again)).toBe(200);
  });

  it("writes snapshots deflated (format 2) and still reads format 1 (the plain image)", async () => {
    const store = await openStore();
    await seedCounters(store);
    for (let i = 1; i <= 30; i++) await store.write((tx) => applyTx(tx, i));
    await store.close();
    const file = readFileSync(join(dir, SNAPSHOT_FILE));
    expect(file.readUInt32LE(8)).toBe(2);
    const image = inflateRawSync(file.subarray(SNAPSHOT_HEADER_BYTES));
    expect(image.length).toBeGreaterThan(file.length); // the image compresses
    // Rewrite it as format 1: same header fields, the plain image as body, both checksums recomputed.
    const header = Buffer.from(file.subarray(0, SNAPSHOT_HEADER_BYTES));
    header.writeUInt32LE(1, 8);
    header.writeBigUInt64LE(BigInt(image.length), 24);
    header.writeUInt32LE(crc32(image), 32);
    header.writeUInt32LE(crc32(header.subarray(0, 36)), 36);
    writeFileSync(join(dir, SNAPSHOT_FILE), Buffer.concat([header, image]));
    const again = await openStore();
    expect(await verifySequence(again)).toBe(30);
  });

  /** The runner's tests add their own migration 2 on top of the project's first one. */
  const FIRST = MIGRATIONS.slice(0, 1);

  it("applies each migration once, in its own durable transaction", async () => {
    const m2: Migration = {
      version: 2,
      name: "notes",
      sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
    };
    const log = recordingLogger();
    const first = await openStore({ migrations: FIRST, log: log.log });
    await first.close();
    const second = await openStore({ migrations: [...FIRST, m2], log: log.log });
    await second.write((tx) => tx.run("INSERT INTO notes (id, body) VALUES (?, ?)", [1, "hello"]));
    await second.close();
    // A re-run would fail on CREATE TABLE; reopening proves neither migration ran again.
    const third = await openStore({ migrations: [...FIRST, m2], log: log.log });
    const applied = third.read((q) =>
      q.all<{ version: number }>("SELECT version FROM _store_migrations ORDER BY version"),
    );
    expect(applied.map((a) => a.version)).toEqual([1, 2]);
    expect(log.infos.filter((m) => m.startsWith("applied migration"))).toEqual([
      "applied migration 1 (initial)",
      "applied migration 2 (notes)",
    ]);
    expect(third.read((q) => q.get<{ body: string }>("SELECT body FROM notes WHERE id = 1"))?.body).toBe(
      "hello",
    );
  });

  it("refuses a database that has a migration this build does not know", async () => {
    const m2: Migration = { version: 2, name: "future", sql: "CREATE TABLE future (x)" };
    await (await openStore({ migrations: [...FIRST, m2] })).close();
    await expect(openStore({ migrations: FIRST })).rejects.toMatchObject({ code: "STORE_MIGRATION" });
  });

  it("reports a failing migration, keeps nothing of it and releases the directory", async () => {
    const broken: Migration = {
      version: 2,
      name: "broken",
      sql: "CREATE TABLE ok (x); CREATE TABLE broken (",
    };
    await expect(openStore({ migrations: [...FIRST, broken] })).rejects.toMatchObject({
      code: "STORE_MIGRATION",
      message: expect.stringMatching(/migration 2 \(broken\) failed/) as unknown,
    });
    const fixed: Migration = { version: 2, name: "fixed", sql: "CREATE TABLE ok (x)" };
    const store = await openStore({ migrations: [...FIRST, fixed] });
    const versions = store.read((q) => q.all<{ version: number }>("SELECT version FROM _store_migrations"));
    expect(versions.map((v) => v.version)).toEqual([1, 2]);
  });

  it("rolls back a throwing callback and journals nothing", async () => {
    const store = await openStore();
    const before = store.stats();
    const boom = new Error("boom");
    await expect(
      store.write((tx) => {
        tx.run("INSERT INTO meta (key, value) VALUES ('a', '1')");
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(store.read((q) => q.get("SELECT * FROM meta WHERE key = 'a'"))).toBeUndefined();
    expect(store.stats().lastSeq).toBe(before.lastSeq);
    expect(store.stats().journalBytes).toBe(before.journalBytes);
  });

  it("group-commits transactions issued while a sync is in flight", async () => {
    const batches: StoreFaultPoint[] = [];
    const store = await openStore({ faultHook: (p) => p === "journal-written" && batches.push(p) });
    await seedCounters(store);
    batches.length = 0;
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.write((tx) => applyTx(tx, i + 1))));
    expect(batches.length).toBeLessThan(50);
    expect(store.stats().durableSeq).toBe(store.stats().lastSeq);
    expect(await verifySequence(store)).toBe(200);
  });

  it("replays blobs, named parameters and a caught failing statement exactly", async () => {
    const store = await openStore();
    await store.write((tx) => tx.run("CREATE TABLE b (id INTEGER PRIMARY KEY, v BLOB, n TEXT)"));
    const blob = new Uint8Array([0, 1, 2, 250, 255]);
    await store.write((tx) => {
      tx.run("INSERT INTO b (id, v, n) VALUES (?, ?, ?)", [1, blob, null]);
      tx.run("INSERT INTO b (id, v, n) VALUES (:id, :v, :n)", { ":id": 2, ":v": "text", ":n": "x" });
      // OR FAIL keeps the rows inserted before the conflict; the caller catches and commits anyway.
      expect(() =>
        tx.run("INSERT OR FAIL INTO b (id, n) VALUES (3, 'kept'), (1, 'conflict'), (4, 'never')"),
      ).toThrow(/UNIQUE/);
    });
    const rows = () =>
      store.read((q) => q.all<{ id: number; v: unknown; n: unknown }>("SELECT * FROM b ORDER BY id"));
    const live = rows();
    expect(live.map((r) => r.id)).toEqual([1, 2, 3]);
    await store.lock.release(); // simulate a crash: no close, no snapshot; the next open replays the journal
    open.splice(open.indexOf(store), 1);
    const again = await openStore();
    const replayed = again.read((q) =>
      q.all<{ id: number; v: unknown; n: unknown }>("SELECT * FROM b ORDER BY id"),
    );
    expect(replayed).toEqual(live);
    expect(replayed[0]!.v).toEqual(blob);
  });

  it("refuses non-deterministic SQL, bad parameters and misuse before anything runs", async () => {
    const store = await openStore();
    const before = store.stats().lastSeq;
    const misuse = { code: "STORE_MISUSE" };
    await expect(
      store.write((tx) => tx.run("INSERT INTO meta VALUES ('r', random())")),
    ).rejects.toMatchObject(misuse);
    await expect(
      store.write((tx) => tx.run("INSERT INTO meta VALUES ('t', datetime('now'))")),
    ).rejects.toMatchObject(misuse);
    await expect(
      store.write((tx) => tx.run("INSERT INTO meta VALUES (?, ?)", ["x", Number.NaN])),
    ).rejects.toMatchObject(misuse);
    await expect(store.write((tx) => tx.run("COMMIT"))).rejects.toMatchObject(misuse);
    await expect(
      store.write((tx) =>
        tx.run("INSERT INTO meta VALUES ('a', '1'); INSERT INTO meta VALUES (?, '2')", ["b"]),
      ),
    ).rejects.toMatchObject(misuse);
    await expect(store.write(() => Promise.resolve(1))).rejects.toMatchObject(misuse);
    await expect(store.write(() => store.write(() => 1))).rejects.toMatchObject(misuse);
    expect(() => store.read((q) => q.all("INSERT INTO meta VALUES ('w', 'x')"))).toThrow(/readonly/);
    // Only a plain SELECT skips query_only: a statement that merely starts like a read is still refused, and a
    // second statement cannot hide behind a first one.
    const tables = () => store.read((q) => q.all("SELECT name FROM sqlite_master ORDER BY name"));
    const tablesBefore = tables();
    expect(() =>
      store.read((q) => q.get("WITH w AS (SELECT 'w') INSERT INTO meta SELECT 'w', 'x' FROM w")),
    ).toThrow(/readonly/);
    expect(() => store.read((q) => q.all("SELECT 1; DROP TABLE meta"))).toThrow(/several statements/);
    expect(tables()).toEqual(tablesBefore);
    expect(
      store.read((q) => q.all("SELECT * FROM meta WHERE key IN ('r', 't', 'x', 'a', 'b', 'w')")),
    ).toEqual([]);
    expect(store.stats().lastSeq).toBe(before);
  });

  it("rejects snapshot() inside a write and any use after close", async () => {
    const store = await openStore();
    await expect(store.write(() => store.snapshot())).rejects.toMatchObject({ code: "STORE_MISUSE" });
    await store.close();
    await expect(store.write((tx) => tx.run("DELETE FROM meta"))).rejects.toMatchObject({
      code: "STORE_CLOSED",
    });
    expect(() => store.read((q) => q.all("SELECT 1"))).toThrow(/closed/);
  });
});
