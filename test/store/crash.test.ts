// Acceptance: SIGKILL a committing child at random moments 300 times (snapshots and archiving included) and at each
// named fault point; every restart must recover exactly a prefix of the sequence that holds every acknowledged one.
import { readdirSync } from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DurableStore } from "../../native-host/src/store/durable-store.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";
import type { StoreFaultPoint } from "../../native-host/src/store/store-types.ts";
import { runCrashCampaign } from "./crash-harness.ts";
import { verifySequence } from "./crash-sequence.ts";
import {
  buildChildBundle,
  Child,
  type ChildBundle,
  makeTempDir,
  recordingLogger,
  removeDir,
} from "./helpers.ts";

let bundle: ChildBundle;
beforeAll(async () => {
  bundle = await buildChildBundle();
});
afterAll(() => bundle.dispose());

describe("crash safety under SIGKILL", () => {
  it(
    "recovers every acknowledged transaction, untorn, across 300 random kills",
    // Generous: 300 child processes; on a loaded 2-core CI runner each start can take a second.
    { timeout: 600_000 },
    async () => {
      const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
      const lanes = await runCrashCampaign({
        kills: 300,
        lanes: 2,
        seed,
        bundle,
        snapshotAfterBytes: 4096,
        archiveEvery: 64,
      });
      const total = lanes.reduce((n, l) => n + l.kills, 0);
      expect(total).toBe(300);
      for (const lane of lanes) {
        expect(lane.recovered).toBeGreaterThanOrEqual(lane.maxAcked);
        expect(lane.maxAcked).toBeGreaterThan(0);
      }
      // The random moments must also have hit process start and recovery, not only the steady commit loop.
      expect(lanes.reduce((n, l) => n + l.killsDuringStartup, 0)).toBeGreaterThan(0);
    },
  );
});

describe("crash at a named point", () => {
  let dir: string;
  let store: DurableStore | undefined;

  beforeEach(() => {
    dir = makeTempDir("fault");
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    removeDir(dir);
  });

  async function killAt(fault: StoreFaultPoint): Promise<void> {
    const child = Child.spawn(bundle, { mode: "fault", dir, fault, snapshotAfterBytes: 1 << 30 });
    await child.waitLine(/^committed 20$/);
    const exit = await child.exited;
    expect(exit.signal, child.lines.join("\n") + child.stderr).toBe("SIGKILL");
  }

  it("between a journal write and its fdatasync: the batch is a clean prefix", async () => {
    await killAt("journal-written");
    store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: recordingLogger().log });
    expect(await verifySequence(store)).toBeGreaterThanOrEqual(20);
  });

  it("after the snapshot temp file is written: the temp file is removed, nothing lost", async () => {
    await killAt("snapshot-written");
    expect(readdirSync(dir).some((f) => f.endsWith(".tmp"))).toBe(true);
    const log = recordingLogger();
    store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: log.log });
    expect(await verifySequence(store)).toBe(20);
    expect(readdirSync(dir).some((f) => f.endsWith(".tmp"))).toBe(false);
    expect(log.infos.join("\n")).toMatch(/removed temp files left by a crash: store\.snapshot\..*\.tmp/);
  });

  it("between the snapshot rename and the journal reset: old records are skipped, the journal rebased", async () => {
    await killAt("snapshot-renamed");
    const log = recordingLogger();
    store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: log.log });
    expect(await verifySequence(store)).toBe(20);
    const stats = store.stats();
    expect(stats.snapshotSeq).toBe(stats.lastSeq);
    expect(log.infos.join("\n")).toMatch(/rebased onto snapshot seq/);
    await store.close();
    store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: log.log });
    expect(await verifySequence(store)).toBe(20);
  });
});
