// Damaged data directories: a torn journal tail is cut with a warning; anything else (snapshot header or body, journal
// header, a bad record with valid ones after it, missing files, a newer format) is refused with every byte left as-is.
import { createHash } from "node:crypto";
import {
  appendFileSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ARCHIVE_FILE,
  DurableStore,
  JOURNAL_FILE,
  SNAPSHOT_FILE,
} from "../../native-host/src/store/durable-store.ts";
import { JOURNAL_HEADER_BYTES, SNAPSHOT_HEADER_BYTES } from "../../native-host/src/store/file-headers.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";
import {
  IPC_SECRET_FILE,
  OWNER_FILE,
  OWNER_LOCK_FILE,
  OWNER_SOCKET_FILE,
} from "../../native-host/src/store/owner-lock.ts";
import { AckMarkWriter, MARK_FILE } from "../../native-host/src/store/ack-mark.ts";
import { applyTx, verifySequence } from "./crash-sequence.ts";
import { journalRecordsEnd, makeTempDir, recordingLogger, removeDir, writeAt } from "./helpers.ts";

describe("DurableStore with damaged files", () => {
  let dir: string;
  let store: DurableStore | undefined;
  const snapshotPath = () => join(dir, SNAPSHOT_FILE);
  const journalPath = () => join(dir, JOURNAL_FILE);

  beforeEach(() => {
    dir = makeTempDir("bad");
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    removeDir(dir);
  });

  const openStore = (log = recordingLogger().log) => DurableStore.open({ dir, migrations: MIGRATIONS, log });

  /** Commits transactions 1..n; with `snapshotFirst`, 1..n/2 end up in the snapshot and the rest in the journal. */
  async function populate(n: number, snapshotFirst: boolean): Promise<void> {
    const s = await openStore();
    await s.write((tx) => tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')"));
    for (let i = 1; i <= n; i++) {
      await s.write((tx) => applyTx(tx, i));
      if (snapshotFirst && i === n / 2) await s.snapshot();
    }
    await s.lock.release(); // "crash": no final snapshot, the second half stays in the journal
  }

  /**
   * Content hash and mtime of every data file: not the lock's own files, which every open attempt that gets the lock
   * rewrites (owner.json, ipc.secret) or holds (owner.lock, and owner.sock while it is open).
   */
  function fingerprint(): Record<string, string> {
    const out: Record<string, string> = {};
    const lockFiles = [OWNER_FILE, IPC_SECRET_FILE, OWNER_LOCK_FILE, OWNER_SOCKET_FILE];
    for (const f of readdirSync(dir).filter((f) => !lockFiles.includes(f))) {
      const p = join(dir, f);
      out[f] = `${createHash("sha256").update(readFileSync(p)).digest("hex")} ${statSync(p).mtimeMs}`;
    }
    return out;
  }

  async function expectRefused(code: string, file: string): Promise<void> {
    const before = fingerprint();
    const error = await openStore().then(
      () => new Error("opened"),
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code, path: file });
    expect((error as Error).message).toContain(file);
    expect(fingerprint()).toEqual(before);
    // Refusal is stable: a second attempt reports the same thing (and the lock was released).
    await expect(openStore()).rejects.toMatchObject({ code });
  }

  function flipByte(path: string, offset: number): void {
    const bytes = readFileSync(path);
    bytes[offset] = bytes[offset]! ^ 0xff;
    writeFileSync(path, bytes);
  }

  it("refuses a snapshot whose header is damaged", async () => {
    await populate(20, true);
    flipByte(snapshotPath(), 20);
    await expectRefused("STORE_CORRUPT", snapshotPath());
  });

  it("refuses a snapshot whose body is damaged or truncated", async () => {
    await populate(20, true);
    flipByte(snapshotPath(), SNAPSHOT_HEADER_BYTES + 500);
    await expectRefused("STORE_CORRUPT", snapshotPath());
    truncateSync(snapshotPath(), statSync(snapshotPath()).size - 1);
    await expectRefused("STORE_CORRUPT", snapshotPath());
  });

  it("refuses a journal whose header is damaged", async () => {
    await populate(20, true);
    flipByte(journalPath(), 17);
    await expectRefused("STORE_CORRUPT", journalPath());
  });

  it("refuses files from a newer format version", async () => {
    await populate(4, false);
    const bytes = readFileSync(journalPath());
    bytes.writeUInt32LE(99, 8);
    const { crc32 } = await import("node:zlib");
    bytes.writeUInt32LE(crc32(bytes.subarray(0, 28)), 28);
    writeFileSync(journalPath(), bytes);
    await expectRefused("STORE_VERSION", journalPath());
  });

  it("cuts a torn journal tail with a warning and keeps every complete transaction", async () => {
    await populate(20, true);
    const end = journalRecordsEnd(journalPath());
    // A record cut short, written over the preallocated zeros after the last one as a crash mid-write leaves it.
    writeAt(journalPath(), end, Buffer.from([200, 1, 0, 0, 1, 2, 3, 4, 123, 34]));
    const log = recordingLogger();
    store = await openStore(log.log);
    expect(await verifySequence(store)).toBe(20);
    expect(journalRecordsEnd(journalPath())).toBe(end);
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]).toContain(journalPath());
    expect(log.warnings[0]).toMatch(/cut a torn tail of 10 bytes/);
  });

  it("cuts a torn append past the end of a journal that was not preallocated", async () => {
    await populate(20, true);
    const end = journalRecordsEnd(journalPath());
    truncateSync(journalPath(), end); // as an older version (or a full disk) left it: the records end the file
    appendFileSync(journalPath(), Buffer.from([200, 1, 0, 0, 1, 2, 3, 4, 123, 34]));
    const log = recordingLogger();
    store = await openStore(log.log);
    expect(await verifySequence(store)).toBe(20);
    expect(journalRecordsEnd(journalPath())).toBe(end);
    expect(log.warnings).toEqual([expect.stringMatching(/cut a torn tail of 10 bytes/)]);
  });

  it("opens a preallocated journal whose zeros follow the records without a warning", async () => {
    await populate(20, true);
    const end = journalRecordsEnd(journalPath());
    expect(statSync(journalPath()).size).toBeGreaterThan(end);
    const log = recordingLogger();
    store = await openStore(log.log);
    expect(await verifySequence(store)).toBe(20);
    expect(log.warnings).toEqual([]);
  });

  it("cuts a last record whose checksum fails, keeping the ones before it", async () => {
    await populate(20, false);
    // The crash came before the 20th transaction was acknowledged: the mark names 19, as it would have.
    (
      await AckMarkWriter.create(
        join(dir, MARK_FILE),
        { seq: 19, generation: 1 },
        () => undefined,
        () => undefined,
      )
    ).close();
    flipByte(journalPath(), journalRecordsEnd(journalPath()) - 3); // inside the last transaction's payload
    const log = recordingLogger();
    store = await openStore(log.log);
    expect(await verifySequence(store)).toBe(19);
    expect(log.warnings[0]).toMatch(/torn tail of \d+ bytes .*checksum/);
  });

  it("refuses a damaged record that valid records follow", async () => {
    await populate(20, false);
    flipByte(journalPath(), JOURNAL_HEADER_BYTES + 300); // inside an early record
    await expectRefused("STORE_CORRUPT", journalPath());
    const error = await openStore().then(
      () => new Error("opened"),
      (e: unknown) => e as Error,
    );
    expect(error.message).toMatch(/damaged record at byte \d+ .* followed by a valid record/);
  });

  it("refuses a journal that is missing while a snapshot exists", async () => {
    await populate(20, true);
    unlinkSync(journalPath());
    await expectRefused("STORE_CORRUPT", journalPath());
  });

  it("refuses a journal that follows a snapshot the directory does not have", async () => {
    await populate(20, true);
    unlinkSync(snapshotPath());
    await expectRefused("STORE_CORRUPT", journalPath());
  });

  it("refuses an archive shorter than the database says it committed", async () => {
    const s = await openStore();
    await s.write((tx) => tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')"));
    for (let i = 1; i <= 10; i++) await s.write((tx) => applyTx(tx, i));
    await s.moveToArchive({ sql: "SELECT * FROM events ORDER BY seq" }, { sql: "DELETE FROM events" });
    await s.close();
    const archive = join(dir, ARCHIVE_FILE);
    truncateSync(archive, statSync(archive).size - 5);
    await expectRefused("STORE_CORRUPT", archive);
  });
});
