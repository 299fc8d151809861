// `worker_progress` summaries on a real data directory: only a worker's newest 50 keep their text (docs/privacy.md),
// in the live table, in the repository's memory, after a restart, after replaying the journal and in the archive.
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../native-host/src/core/context.ts";
import type { Input } from "../../native-host/src/core/inputs.ts";
import { seededRandom } from "../../native-host/src/core/simulation.ts";
import { step } from "../../native-host/src/engine/step.ts";
import { DomainRepository, type StoredEvent } from "../../native-host/src/store/domain-repository.ts";
import { DurableStore } from "../../native-host/src/store/durable-store.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";
import { readSnapshotFile } from "../../native-host/src/store/snapshot-file.ts";
import { makeTempDir, recordingLogger, removeDir } from "./helpers.ts";

const HOUR = 60 * 60_000;

let dir: string;
let store: DurableStore | undefined;
let repo: DomainRepository;
let now = 1_000_000;
const random = seededRandom(7);
const clock = (): Clock => ({ now, random });

async function open(at = dir): Promise<DomainRepository> {
  store = await DurableStore.open({ dir: at, migrations: MIGRATIONS, log: recordingLogger().log });
  return DomainRepository.open(store);
}

async function apply(input: Input): Promise<void> {
  now += 1_000;
  const result = await step(repo, input, clock());
  if (result.error) throw new Error(`${result.error.code}: ${result.error.message}`);
}

/** The worker's progress events as the repository answers them, and the summaries they still carry. */
function progress(workerId: string): { events: StoredEvent[]; summaries: unknown[] } {
  const events = repo.eventsAfter(0, 10_000, { workerId }).filter((e) => e.type === "worker.progress");
  return { events, summaries: events.flatMap((e) => ("summary" in e.data ? [e.data.summary] : [])) };
}

/** Rows of the live table holding a summary, per worker, read with SQL (not through any cache). */
function summaryRows(): Record<string, number> {
  const rows = store!.read((q) =>
    q.all<{ worker_id: string; n: number }>(
      "SELECT worker_id, COUNT(*) AS n FROM events WHERE json_type(data, '$.summary') IS NOT NULL GROUP BY worker_id",
    ),
  );
  return Object.fromEntries(rows.map((r) => [r.worker_id, r.n]));
}

const steps = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `step ${from + i}`);

beforeEach(async () => {
  dir = makeTempDir("progress-summaries");
  now = 1_000_000;
  repo = await open();
  await apply({ type: "run.create", runId: "r", name: "Run", policy: { mode: "manual" } });
  await apply({ type: "worker.spawn", runId: "r", workerId: "w", path: "/root", objective: "Ship" });
  await apply({ type: "worker.spawn", runId: "r", workerId: "v", path: "/root/v", objective: "Help" });
});

afterEach(async () => {
  await store?.close();
  store = undefined;
  removeDir(dir);
});

describe("progress summaries", () => {
  it("60 reports leave the newest 50 summaries, in memory, in the table and after a restart", async () => {
    for (let i = 0; i < 60; i++) {
      await apply({ type: "worker.progress", workerId: "w", summary: `step ${i}` });
      // Another worker's summaries are bounded on their own: its 3 stay.
      if (i % 20 === 0) await apply({ type: "worker.progress", workerId: "v", summary: `v ${i}` });
    }
    // Answered from the repository's recent-events memory.
    let w = progress("w");
    expect(w.events).toHaveLength(60); // every event stays; only the text of the oldest 10 is gone
    expect(w.summaries).toEqual(steps(10, 60));
    expect(w.events.slice(0, 10).every((e) => typeof e.data.cursor === "number")).toBe(true);
    expect(progress("v").summaries).toEqual(["v 0", "v 20", "v 40"]);
    expect(summaryRows()).toEqual({ w: 50, v: 3 });

    await store!.close();
    repo = await open();
    w = progress("w");
    expect(w.events).toHaveLength(60);
    expect(w.summaries).toEqual(steps(10, 60));
    expect(summaryRows()).toEqual({ w: 50, v: 3 });
  });

  it("the text of a stripped summary is not left in the snapshot's free space", async () => {
    const marker = (i: number) => `secret-marker-${i}-`.padEnd(400, "x");
    for (let i = 0; i < 60; i++) await apply({ type: "worker.progress", workerId: "w", summary: marker(i) });
    await store!.close(); // closing writes the snapshot
    const snapshot = readSnapshotFile(join(dir, "store.snapshot"))!.body;
    const text = Buffer.from(snapshot).toString("latin1");
    for (let i = 0; i < 10; i++) expect(text.includes(`secret-marker-${i}-`), `summary ${i}`).toBe(false);
    expect(text.includes("secret-marker-59-")).toBe(true);
    repo = await open();
  });

  it("a new process learns from the table which summaries are kept, and so does a reloaded repository", async () => {
    for (let i = 0; i < 30; i++)
      await apply({ type: "worker.progress", workerId: "w", summary: `step ${i}` });
    await store!.close();
    repo = await open();
    for (let i = 30; i < 45; i++)
      await apply({ type: "worker.progress", workerId: "w", summary: `step ${i}` });
    repo.reload();
    for (let i = 45; i < 60; i++)
      await apply({ type: "worker.progress", workerId: "w", summary: `step ${i}` });
    expect(progress("w").summaries).toEqual(steps(10, 60));
    expect(summaryRows()).toEqual({ w: 50 });
  });

  it("cuts a table holding more than 50 (written before the bound) back on the worker's next summary", async () => {
    await store!.write((tx) => {
      for (let i = 0; i < 55; i++) {
        tx.run("INSERT INTO events (seq, run_id, worker_id, type, at, data) VALUES (?, ?, ?, ?, ?, ?)", [
          repo.lastEventSeq + 1 + i,
          "r",
          "w",
          "worker.progress",
          now,
          JSON.stringify({ cursor: i, summary: `old ${i}` }),
        ]);
      }
    });
    await store!.close();
    repo = await open();
    expect(summaryRows()).toEqual({ w: 55 });
    await apply({ type: "worker.progress", workerId: "w", summary: "new" });
    expect(progress("w").summaries).toEqual([...steps(6, 55).map((s) => s.replace("step", "old")), "new"]);
    expect(summaryRows()).toEqual({ w: 50 });
  });

  it("a report without a summary keeps the older ones; the bound counts summaries", async () => {
    for (let i = 0; i < 50; i++)
      await apply({ type: "worker.progress", workerId: "w", summary: `step ${i}` });
    await apply({ type: "worker.progress", workerId: "w" });
    expect(progress("w").summaries).toEqual(steps(0, 50));
    await apply({ type: "worker.progress", workerId: "w", summary: "step 50" });
    expect(progress("w").summaries).toEqual(steps(1, 51));
  });

  it("stores a 2,500-character summary as its first 2,000", async () => {
    const long = "abcde".repeat(500);
    await apply({ type: "worker.progress", workerId: "w", summary: long });
    expect(progress("w").summaries).toEqual([long.slice(0, 2_000)]);
    await store!.close();
    repo = await open();
    expect(progress("w").summaries).toEqual([long.slice(0, 2_000)]);
  });

  it("replaying the journal strips the same summaries", async () => {
    for (let i = 0; i < 55; i++)
      await apply({ type: "worker.progress", workerId: "w", summary: `step ${i}` });
    await store!.sync();
    // The files as a crash would leave them (no closing snapshot): the next open replays every transaction.
    const copy = makeTempDir("progress-summaries-copy");
    try {
      for (const f of ["store.snapshot", "store.journal", "store.mark", "owner.json"]) {
        if (existsSync(join(dir, f))) copyFileSync(join(dir, f), join(copy, f));
      }
      const live = store!;
      repo = await open(copy);
      expect(progress("w").summaries).toEqual(steps(5, 55));
      await store!.close();
      store = live;
    } finally {
      removeDir(copy);
    }
  });

  it("the archive of an ended run holds the same 50", async () => {
    for (let i = 0; i < 60; i++)
      await apply({ type: "worker.progress", workerId: "w", summary: `step ${i}` });
    await apply({ type: "run.stop", runId: "r" });
    expect(await repo.archiveEndedRuns(now + HOUR, HOUR)).toBeGreaterThan(60);
    expect(repo.eventsAfter(0, 10_000)).toEqual([]);
    const archived: string[] = [];
    for await (const row of store!.readArchive((r) => r.worker_id === "w" && r.type === "worker.progress")) {
      const data = JSON.parse(row.data as string) as { summary?: string };
      if (data.summary !== undefined) archived.push(data.summary);
    }
    expect(archived).toEqual(steps(10, 60));
  });
});
