// The acknowledged mark (docs/store.md): a directory whose files hold fewer transactions than the store acknowledged (a
// journal cut to its header or zeroed part-way, the store files deleted) is refused with STORE_CORRUPT naming what is
// missing, leaving every file as it was; accepting the loss opens it and reports what was lost.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MARK_FILE, readAckMark } from "../../native-host/src/store/ack-mark.ts";
import { DurableStore, JOURNAL_FILE, SNAPSHOT_FILE } from "../../native-host/src/store/durable-store.ts";
import { JOURNAL_HEADER_BYTES } from "../../native-host/src/store/file-headers.ts";
import { FRAME_HEADER_BYTES, scanFrames } from "../../native-host/src/store/frame-codec.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";
import { TX_PAYLOAD_PREFIX } from "../../native-host/src/store/record-codec.ts";
import type { StoreLoss } from "../../native-host/src/store/store-types.ts";
import { applyTx, verifySequence } from "./crash-sequence.ts";
import { makeTempDir, recordingLogger, removeDir, writeAt } from "./helpers.ts";

let dir: string;
let open: DurableStore[] = [];
beforeEach(() => {
  dir = makeTempDir("mark");
});
afterEach(async () => {
  for (const s of open) await s.close().catch(() => undefined);
  open = [];
  removeDir(dir);
});

const journal = () => join(dir, JOURNAL_FILE);
const openStore = async (acceptLoss?: (loss: StoreLoss) => boolean) => {
  const store = await DurableStore.open({
    dir,
    migrations: MIGRATIONS,
    log: recordingLogger().log,
    ...(acceptLoss ? { acceptLoss } : {}),
  });
  open.push(store);
  return store;
};

/**
 * Acknowledges transactions 1..n (meta counter) and "crashes" (the lock released, no final snapshot), so they live in
 * the journal; returns the seq of the last one and where each journal record starts.
 */
async function acknowledge(n: number): Promise<{ lastSeq: number; offsets: number[] }> {
  const s = await DurableStore.open({ dir, migrations: MIGRATIONS, log: recordingLogger().log });
  await s.write((tx) => tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')"));
  for (let i = 1; i <= n; i++) await s.write((tx) => applyTx(tx, i));
  await catchUpMark(s);
  const lastSeq = s.stats().durableSeq;
  await s.lock.release();
  const scan = scanFrames(readFileSync(journal()), JOURNAL_HEADER_BYTES, TX_PAYLOAD_PREFIX, {
    zeroFilledTail: true,
  });
  if (scan.kind === "corrupt") throw new Error("journal corrupt");
  return { lastSeq, offsets: scan.frames.map((f) => f.offset) };
}

/**
 * While commits go on the mark is written at most every 100 ms: one more commit with the clock past that brings it up
 * to everything acknowledged, as it is once a burst is 100 ms old.
 */
async function catchUpMark(store: DurableStore): Promise<void> {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1_000 });
  try {
    await store.write((tx) => tx.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('tick', '1')"));
  } finally {
    vi.useRealTimers();
  }
}

/** Content and mtime of every store file (not the lock's own files, which every open attempt touches). */
function fingerprint(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).filter((f) => f.startsWith("store.") || f.startsWith("events-"))) {
    const p = join(dir, f);
    out[f] = `${createHash("sha256").update(readFileSync(p)).digest("hex")} ${statSync(p).mtimeMs}`;
  }
  return out;
}

async function expectLossRefused(pattern: RegExp, path: string): Promise<void> {
  const before = fingerprint();
  const error = (await openStore().then(
    () => new Error("opened"),
    (e: unknown) => e,
  )) as { code: string; message: string; path: string };
  expect(error.code).toBe("STORE_CORRUPT");
  expect(error.path).toBe(path);
  expect(error.message).toMatch(pattern);
  expect(error.message).toContain("orchestrator repair --accept-loss");
  expect(fingerprint()).toEqual(before);
}

describe("the acknowledged mark", () => {
  it("a journal cut back to its header is refused, naming the missing transactions", async () => {
    const { lastSeq, offsets } = await acknowledge(45);
    const firstInJournal = lastSeq - offsets.length + 1;
    truncateSync(journal(), JOURNAL_HEADER_BYTES);
    await expectLossRefused(
      new RegExp(
        `holds transactions up to ${firstInJournal - 1}.*up to ${lastSeq} were acknowledged: ` +
          `${offsets.length} acknowledged transaction\\(s\\) \\(${firstInJournal}\\.\\.${lastSeq}\\) are missing`,
      ),
      journal(),
    );
  });

  it("a journal zeroed from its 4th record on is refused (zeros are not taken for preallocated space)", async () => {
    const { lastSeq, offsets } = await acknowledge(45);
    const end = statSync(journal()).size;
    writeAt(journal(), offsets[3]!, Buffer.alloc(end - offsets[3]!));
    const kept = lastSeq - offsets.length + 3;
    await expectLossRefused(new RegExp(`\\(${kept + 1}\\.\\.${lastSeq}\\) are missing`), journal());
  });

  it("deleted store files are refused rather than starting empty, with or without the mark", async () => {
    const { lastSeq } = await acknowledge(5);
    const s = await openStore();
    await s.snapshot();
    await s.close();
    open = [];
    rmSync(join(dir, SNAPSHOT_FILE));
    rmSync(journal());
    await expectLossRefused(
      new RegExp(`are missing, but .*store.mark says transactions up to ${lastSeq}`),
      dir,
    );
    rmSync(join(dir, MARK_FILE));
    await expectLossRefused(/was used before .* are all missing/, dir);
  });

  it("a mark with both slots damaged is refused as corrupt", async () => {
    await acknowledge(3);
    writeFileSync(join(dir, MARK_FILE), Buffer.alloc(1024, 7));
    await expectLossRefused(/holds no valid acknowledged mark/, join(dir, MARK_FILE));
  });

  it("accepting the loss opens what is left, reports it, and a later open needs no acceptance", async () => {
    const { lastSeq, offsets } = await acknowledge(10);
    writeAt(journal(), offsets[7]!, Buffer.alloc(statSync(journal()).size - offsets[7]!));
    const kept = lastSeq - offsets.length + 7;
    const asked: StoreLoss[] = [];
    const declined = await openStore((loss) => {
      asked.push(loss);
      return false;
    }).catch((e: unknown) => e as { code: string });
    expect(declined).toMatchObject({ code: "STORE_CORRUPT" });
    const store = await openStore((loss) => {
      asked.push(loss);
      return true;
    });
    expect(asked).toHaveLength(2);
    expect(store.acceptedLoss).toMatchObject({ acknowledgedSeq: lastSeq, keptSeq: kept, path: journal() });
    expect(store.stats().lastSeq).toBe(kept);
    // Of the ten counted transactions (seqs lastSeq-10 .. lastSeq-1; the mark's catch-up commit is last), the ones
    // before the zeroed records survive, intact and in order.
    const firstCounted = lastSeq - 10;
    expect(await verifySequence(store)).toBe(kept - firstCounted + 1);
    await store.close();
    open = [];
    const again = await openStore();
    expect(again.acceptedLoss).toBeUndefined();
    expect(again.stats().lastSeq).toBe(kept);
  });

  it("follows the durable batches, and a directory from before the mark gets one at open", async () => {
    const store = await openStore();
    await store.write((tx) =>
      tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')"),
    );
    for (let i = 1; i <= 3; i++) await store.write((tx) => applyTx(tx, i));
    // Written to the file (page cache) within 100 ms of a batch, before any close: a crash then still detects a
    // journal cut short.
    await catchUpMark(store);
    expect(readAckMark(join(dir, MARK_FILE))?.seq).toBe(store.stats().durableSeq);
    const seq = store.stats().durableSeq;
    await store.close();
    open = [];
    rmSync(join(dir, MARK_FILE)); // as a data directory written before the mark existed
    const again = await openStore();
    expect(readAckMark(join(dir, MARK_FILE))?.seq).toBe(seq);
    expect(again.acceptedLoss).toBeUndefined();
  });

  it("a torn record after the acknowledged ones is still cut with a warning, not refused", async () => {
    const { offsets } = await acknowledge(6);
    const end = offsets.at(-1)!;
    const last = readFileSync(journal()).readUInt32LE(end) + FRAME_HEADER_BYTES;
    // A record cut short after the last acknowledged one, as a crash mid-write leaves it.
    writeAt(journal(), end + last, Buffer.from([200, 1, 0, 0, 1, 2, 3, 4, 123, 34]));
    const log = recordingLogger();
    const store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: log.log });
    open.push(store);
    expect(log.warnings).toEqual([expect.stringMatching(/cut a torn tail of 10 bytes/)]);
  });
});
