// The store when the disk refuses data (docs/store.md): an injected ENOSPC/EIO at the file layer and a real full
// tmpfs. A refused batch leaves memory equal to the disk, later writes are refused with STORE_IO naming path and cause,
// reads go on, and writes resume by themselves once the disk takes data again; a reopen finds exactly what was
// acknowledged.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DurableStore, JOURNAL_FILE } from "../../native-host/src/store/durable-store.ts";
import type { Migration } from "../../native-host/src/store/migrations.ts";
import type { StoreHealth } from "../../native-host/src/store/store-types.ts";
import { canMountTmpfs, fillDisk, mountTmpfs, unmount } from "../tmpfs.ts";
import {
  failingDisk,
  journalRecordsEnd,
  makeTempDir,
  recordingLogger,
  removeDir,
  waitFor,
} from "./helpers.ts";

const MIGRATIONS: Migration[] = [
  { version: 1, name: "notes", sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)" },
];

const notes = (store: DurableStore) =>
  store.read((q) => q.all<{ id: number }>("SELECT id FROM notes ORDER BY id")).map((r) => r.id);
const add = (store: DurableStore, id: number, body = "x") =>
  store.write((tx) => tx.run("INSERT INTO notes (id, body) VALUES (?, ?)", [id, body]));

let dir: string;
beforeEach(() => {
  dir = makeTempDir("disk-full");
});
afterEach(() => {
  removeDir(dir);
});

/** A store on a disk that fails on demand and is not retried during the test. */
async function openOnFailingDisk() {
  const disk = failingDisk();
  const store = await DurableStore.open({
    dir,
    migrations: MIGRATIONS,
    log: recordingLogger().log,
    faultHook: disk.faultHook,
    ioRetryMs: 60_000,
  });
  return { disk, store };
}

describe("a disk that refuses a batch (injected at the file layer)", () => {
  for (const code of ["ENOSPC", "EIO"] as const) {
    it(`${code}: rolls memory back to the disk, refuses writes with STORE_IO, keeps reads, resumes by itself`, async () => {
      const disk = failingDisk();
      const logger = recordingLogger();
      const store = await DurableStore.open({
        dir,
        migrations: MIGRATIONS,
        log: logger.log,
        faultHook: disk.faultHook,
        ioRetryMs: 20,
      });
      const seen: StoreHealth[] = [];
      store.onHealth((h) => seen.push(h));
      await add(store, 1);
      await add(store, 2);
      const journal = join(dir, JOURNAL_FILE);
      const durableEnd = journalRecordsEnd(journal);

      disk.failFromNow(code);
      // Three transactions in one batch and one queued behind it: all are refused, none survives in memory.
      const batch = [add(store, 3), add(store, 4), add(store, 5)];
      const results = await Promise.allSettled(batch);
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
      const error = (results[0] as PromiseRejectedResult).reason as {
        code: string;
        message: string;
        path: string;
      };
      expect(error.code).toBe("STORE_IO");
      expect(error.path).toBe(journal);
      expect(error.message).toContain(
        code === "ENOSPC"
          ? `no space left on the device holding ${dir}`
          : `an I/O error on the device holding ${dir}`,
      );
      expect(notes(store)).toEqual([1, 2]);
      expect(store.stats()).toMatchObject({ lastSeq: store.stats().durableSeq, pendingTransactions: 0 });
      // The failed batch is not left in the file, where the next open would replay it.
      expect(journalRecordsEnd(journal)).toBe(durableEnd);

      // Meanwhile: writes are refused at once without running their callback, reads and sync() work.
      let ran = false;
      const refused = await store
        .write((tx) => {
          ran = true;
          tx.run("INSERT INTO notes (id, body) VALUES (9, 'x')");
        })
        .then(
          () => undefined,
          (e: unknown) => e as { code: string; message: string },
        );
      expect(ran).toBe(false);
      expect(refused?.code).toBe("STORE_IO");
      expect(refused?.message).toMatch(/cannot save changes: .*writes resume by themselves/);
      await store.sync();
      expect(store.health()).toMatchObject({ writable: false, code: "STORE_IO", path: journal });
      expect(seen).toEqual([expect.objectContaining({ writable: false })]);

      disk.heal();
      await waitFor(() => store.health().writable, "writes to be taken again");
      expect(seen.at(-1)).toEqual({ writable: true });
      await add(store, 6);
      expect(notes(store)).toEqual([1, 2, 6]);
      expect(logger.warnings.some((w) => w.includes("cannot save changes"))).toBe(true);
      expect(logger.infos.some((m) => m.includes("takes writes again"))).toBe(true);
      await store.close();

      const again = await DurableStore.open({ dir, migrations: MIGRATIONS, log: recordingLogger().log });
      expect(notes(again)).toEqual([1, 2, 6]);
      await again.close();
    });
  }

  it("a store closed while the disk refuses data reopens with exactly the acknowledged transactions", async () => {
    const { disk, store } = await openOnFailingDisk();
    await add(store, 1);
    disk.failFromNow("EIO");
    await expect(add(store, 2)).rejects.toMatchObject({ code: "STORE_IO" });
    await store.close();
    const again = await DurableStore.open({ dir, migrations: MIGRATIONS, log: recordingLogger().log });
    expect(notes(again)).toEqual([1]);
    await add(again, 3);
    await again.close();
  });

  it("a snapshot never writes an image holding transactions whose batch then failed", async () => {
    const { disk, store } = await openOnFailingDisk();
    await add(store, 1);
    disk.failFromNow("EIO");
    const lost = add(store, 2);
    // Exported while transaction 2 is committed in memory but not durable: the snapshot must not reach the disk.
    const snapshot = store.snapshot();
    await expect(lost).rejects.toMatchObject({ code: "STORE_IO" });
    await expect(snapshot).rejects.toMatchObject({ code: "STORE_IO" });
    await store.close();
    const again = await DurableStore.open({ dir, migrations: MIGRATIONS, log: recordingLogger().log });
    expect(notes(again)).toEqual([1]);
    await again.close();
  });
});

const canMount = canMountTmpfs();

describe.runIf(canMount)("a real full file system (tmpfs)", () => {
  let mount: string;
  beforeEach(() => {
    mount = join(dir, "small");
    mkdirSync(mount);
    expect(mountTmpfs(mount, 2 * 1024 * 1024)).toBe(true);
  });
  afterEach(() => {
    unmount(mount);
  });

  it("ENOSPC from the kernel: refused with STORE_IO, reads go on, writes resume once space is freed", async () => {
    const data = join(mount, "data");
    const logger = recordingLogger();
    const store = await DurableStore.open({
      dir: data,
      migrations: MIGRATIONS,
      log: logger.log,
      journalPreallocateBytes: 0,
      snapshotAfterBytes: 64 * 1024 * 1024, // no snapshot: this test is about the journal's appends
      ioRetryMs: 20,
    });
    await add(store, 1);
    // Fill the file system to the last byte.
    const filler = join(mount, "filler");
    fillDisk(filler);
    const body = "y".repeat(16 * 1024);
    let refused: { code: string; message: string } | undefined;
    for (let id = 2; id < 200 && !refused; id++) {
      await add(store, id, body).catch((e: unknown) => {
        refused = e as { code: string; message: string };
      });
    }
    expect(refused?.code).toBe("STORE_IO");
    expect(refused?.message).toContain(`no space left on the device holding ${data}`);
    const kept = notes(store);
    expect(store.health().writable).toBe(false);

    rmSync(filler);
    await waitFor(() => store.health().writable, "writes to be taken again after space was freed");
    await add(store, 1000, body);
    expect(notes(store)).toEqual([...kept, 1000]);
    await store.close();
    const again = await DurableStore.open({ dir: data, migrations: MIGRATIONS, log: recordingLogger().log });
    expect(notes(again)).toEqual([...kept, 1000]);
    await again.close();
  });
});
