// Migration 2 on a real data directory: runs written before zero-setup mode (policy without completionSignal and
// pauseAfterInvalidBlocks) get the defaults (docs/continuation-core.md); a stored null threshold is kept; the
// domain loads and works.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONTINUATION_POLICY } from "../../shared/continuation-policy.ts";
import { seededRandom } from "../../native-host/src/core/simulation.ts";
import { step } from "../../native-host/src/engine/step.ts";
import { DomainRepository } from "../../native-host/src/store/domain-repository.ts";
import { DurableStore } from "../../native-host/src/store/durable-store.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";
import { makeTempDir, recordingLogger, removeDir } from "./helpers.ts";

describe("migration 2: completion signal policy defaults", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) removeDir(dir);
  });

  it("fills the new policy fields of stored runs and keeps what was there", async () => {
    dir = makeTempDir("migrate");
    const { log } = recordingLogger();
    const old = await DurableStore.open({ dir, migrations: MIGRATIONS.slice(0, 1), log });
    const {
      completionSignal: _c,
      pauseAfterInvalidBlocks: _p,
      ...v1Policy
    } = { ...DEFAULT_CONTINUATION_POLICY, mode: "auto" as const };
    const runs = [
      { id: "a", name: "A", objective: "", status: "active", createdAt: 1, defaultPolicy: v1Policy },
      {
        id: "b",
        name: "B",
        objective: "",
        status: "active",
        createdAt: 2,
        defaultPolicy: { ...v1Policy, pauseAfterInvalidBlocks: null },
      },
    ];
    await old.write((tx) => {
      for (const r of runs) {
        tx.run("INSERT INTO runs (id, status, created_at, data) VALUES (?, ?, ?, ?)", [
          r.id,
          r.status,
          r.createdAt,
          JSON.stringify(r),
        ]);
      }
    });
    await old.close();

    const store = await DurableStore.open({ dir, migrations: MIGRATIONS, log });
    const repo = DomainRepository.open(store);
    expect(repo.state.runs.a?.defaultPolicy).toEqual({ ...DEFAULT_CONTINUATION_POLICY, mode: "auto" });
    expect(repo.state.runs.b?.defaultPolicy).toMatchObject({
      completionSignal: "mcp",
      pauseAfterInvalidBlocks: null,
    });
    const clock = { now: 10, random: seededRandom(1) };
    const spawned = await step(
      repo,
      { type: "worker.spawn", runId: "a", workerId: "w", path: "/root", objective: "x" },
      clock,
    );
    expect(spawned.error).toBeUndefined();
    await store.close();
  });
});
