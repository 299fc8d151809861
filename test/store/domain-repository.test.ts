// The core persisted through the real store on disk: state and events in one transaction, surviving restarts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../native-host/src/core/context.ts";
import type { Input } from "../../native-host/src/core/inputs.ts";
import { seededRandom } from "../../native-host/src/core/simulation.ts";
import { step } from "../../native-host/src/engine/step.ts";
import { DomainRepository } from "../../native-host/src/store/domain-repository.ts";
import { DurableStore } from "../../native-host/src/store/durable-store.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";

const quiet = { warn: () => undefined, info: () => undefined };

describe("DomainRepository on a real data directory", () => {
  let dir: string;
  let store: DurableStore | undefined;
  let now = 1_000_000;
  const random = seededRandom(5);
  const clock = (): Clock => ({ now, random });

  async function open(): Promise<DomainRepository> {
    store = await DurableStore.open({ dir, migrations: MIGRATIONS, log: quiet });
    return DomainRepository.open(store);
  }

  async function restart(): Promise<DomainRepository> {
    await store?.close();
    return open();
  }

  async function apply(repo: DomainRepository, input: Input) {
    const result = await step(repo, input, clock());
    if (result.error) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result;
  }

  async function startWorker(repo: DomainRepository, mode: "auto" | "manual") {
    await apply(repo, { type: "run.create", runId: "r", name: "Run", policy: { mode } });
    await apply(repo, { type: "worker.spawn", runId: "r", workerId: "w", path: "/root", objective: "Ship" });
    const cmd = repo.state.workers.w?.current?.commandId ?? "";
    await apply(repo, {
      type: "command.result",
      workerId: "w",
      commandId: cmd,
      outcome: "submitted",
      url: "u",
    });
    await apply(repo, { type: "conversation.observed", workerId: "w", state: "generating", seq: 1 });
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "orch-repo-"));
    now = 1_000_000;
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("policy changes append events and survive restart", async () => {
    let repo = await open();
    await startWorker(repo, "manual");
    await apply(repo, {
      type: "worker.set_policy",
      workerId: "w",
      patch: { mode: "auto", idleGraceMs: 1_000 },
    });
    await apply(repo, {
      type: "run.set_default_policy",
      runId: "r",
      patch: { minContinuationSpacingMs: 600_000 },
    });
    repo = await restart();
    expect(repo.state.workers.w?.policyOverride).toEqual({ mode: "auto", idleGraceMs: 1_000 });
    expect(repo.state.runs.r?.defaultPolicy.minContinuationSpacingMs).toBe(600_000);
    const changes = repo.eventsAfter(0, 100).filter((e) => e.type === "continuation.policy_changed");
    expect(changes.map((e) => e.data.scope)).toEqual(["worker", "run"]);
  });

  it("keeps a pending intent across a restart and delivers it exactly once", async () => {
    let repo = await open();
    await startWorker(repo, "auto");
    await apply(repo, { type: "conversation.observed", workerId: "w", state: "idle", seq: 2 });
    expect(repo.state.workers.w?.intent?.reasons).toEqual(["idle"]);
    repo = await restart();
    now += 3_000;
    const tick = await apply(repo, { type: "tick" });
    const commands = tick.effects.filter((e) => e.kind === "command");
    expect(commands).toHaveLength(1);
    const again = await apply(repo, { type: "tick" });
    expect(again.effects.filter((e) => e.kind === "command")).toHaveLength(0);
    repo = await restart();
    expect(repo.state.workers.w?.current).toMatchObject({
      seq: 2,
      state: "scheduled",
      reason: "auto_resume",
    });
    expect(repo.attempts("w").map((a) => [a.seq, a.state])).toEqual([
      [1, "idle"],
      [2, "scheduled"],
    ]);
  });

  it("writes events with gap-free sequence numbers in the same transaction as the state", async () => {
    let repo = await open();
    await startWorker(repo, "auto");
    const events = repo.eventsAfter(0, 1_000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(repo.lastEventSeq).toBe(events.length);
    repo = await restart();
    expect(repo.lastEventSeq).toBe(events.length);
    expect(repo.eventsAfter(2, 2).map((e) => e.seq)).toEqual([3, 4]);
  });

  it("updates a changed run, worker or attempt in place, keeping its row (and its index entries)", async () => {
    let repo = await open();
    await startWorker(repo, "manual");
    const rowids = () =>
      store!.read((q) =>
        ["runs", "workers", "attempts"].map((table) =>
          q.all<{ rowid: number }>(`SELECT rowid FROM ${table}`),
        ),
      );
    const before = rowids();
    await apply(repo, { type: "worker.set_policy", workerId: "w", patch: { mode: "auto" } });
    await apply(repo, { type: "run.set_default_policy", runId: "r", patch: { idleGraceMs: 2_000 } });
    await apply(repo, { type: "conversation.observed", workerId: "w", state: "idle", seq: 2 });
    expect(rowids()).toEqual(before);
    expect(repo.attempts("w")[0]?.state).toBe("idle");
    // The journal replays the same statements: the rows and what they hold are the same after a restart.
    repo = await restart();
    expect(rowids()).toEqual(before);
    expect(repo.state.workers.w?.policyOverride).toEqual({ mode: "auto" });
    expect(repo.state.runs.r?.defaultPolicy.idleGraceMs).toBe(2_000);
    expect(repo.attempts("w")[0]?.state).toBe("idle");
  });

  it("keeps unread messages in the inbox across restarts", async () => {
    let repo = await open();
    await startWorker(repo, "manual");
    await apply(repo, {
      type: "message.send",
      messageId: "m1",
      from: "operator",
      toWorkerId: "w",
      body: "use v2",
    });
    repo = await restart();
    expect(Object.keys(repo.state.unread)).toEqual(["m1"]);
    expect(repo.inbox("w", 0).map((m) => m.body)).toEqual(["use v2"]);
    await apply(repo, { type: "message.read", workerId: "w", upToSeq: 1 });
    repo = await restart();
    expect(repo.state.unread).toEqual({});
  });

  it("moves a finished run's events to the archive once it has been over for a while", async () => {
    const repo = await open();
    await startWorker(repo, "auto");
    await apply(repo, { type: "worker.complete", workerId: "w", summary: "done" });
    const total = repo.lastEventSeq;
    expect(repo.state.runs.r?.status).toBe("completed");
    // Still readable right after the end: an agent waiting on events must see the completion.
    expect(repo.eventsAfter(0, 1_000).at(-1)?.type).toBe("run.completed");
    expect(await repo.archiveEndedRuns(now + 59 * 60_000, 60 * 60_000)).toBe(0);
    expect(await repo.archiveEndedRuns(now + 60 * 60_000, 60 * 60_000)).toBe(total);
    expect(repo.eventsAfter(0, 1_000)).toEqual([]);
    const archived: unknown[] = [];
    for await (const row of store!.readArchive()) archived.push(row);
    expect(archived).toHaveLength(total);
    expect(await repo.archiveEndedRuns(now + 120 * 60_000, 60 * 60_000)).toBe(0);
  });

  it("keeps the event cursor past archived events across a restart (no seq is handed out twice)", async () => {
    let repo = await open();
    await startWorker(repo, "auto");
    await apply(repo, { type: "worker.complete", workerId: "w", summary: "done" });
    const total = repo.lastEventSeq;
    expect(await repo.archiveEndedRuns(now + 60 * 60_000, 60 * 60_000)).toBe(total);
    repo = await restart();
    expect(repo.lastEventSeq).toBe(total);
    await apply(repo, { type: "run.create", runId: "r2", name: "Second", policy: { mode: "auto" } });
    expect(repo.eventsAfter(0, 1_000)[0]?.seq).toBe(total + 1);
  });

  it("answers event and attempt reads from memory exactly as the tables do", async () => {
    let repo = await open();
    await startWorker(repo, "auto");
    await apply(repo, {
      type: "worker.spawn",
      runId: "r",
      workerId: "v",
      path: "/root/v",
      objective: "Help",
    });
    // Read (and so keep) w's history before it changes: later attempts must reach the kept copy too.
    expect(repo.attempts("w").map((a) => a.seq)).toEqual([1]);
    let seq = 2;
    for (let turn = 0; turn < 3; turn++) {
      await apply(repo, { type: "conversation.observed", workerId: "w", state: "idle", seq: seq++ });
      now += 3_000;
      await apply(repo, { type: "tick" });
      const cmd = repo.state.workers.w?.current?.commandId ?? "";
      await apply(repo, {
        type: "command.result",
        workerId: "w",
        commandId: cmd,
        outcome: "submitted",
        url: "u",
      });
      await apply(repo, { type: "conversation.observed", workerId: "w", state: "generating", seq: seq++ });
      await apply(repo, { type: "worker.progress", workerId: "v", summary: `step ${turn}` });
    }
    const reads = (r: DomainRepository) => {
      const last = r.lastEventSeq;
      const out: unknown[] = [];
      for (let cursor = 0; cursor <= last + 1; cursor++) {
        for (const filter of [{}, { workerId: "w" }, { workerId: "v" }, { runId: "r" }, { runId: "other" }]) {
          for (const limit of [1, 3, 1_000])
            out.push([cursor, limit, filter, r.eventsAfter(cursor, limit, filter)]);
        }
      }
      return { events: out, attempts: [r.attempts("w"), r.attempts("v")] };
    };
    const fromMemory = reads(repo);
    expect(repo.attempts("w").map((a) => [a.seq, a.state])).toEqual([
      [1, "idle"],
      [2, "idle"],
      [3, "idle"],
      [4, "generating"],
    ]);
    // A reopened repository keeps nothing yet: every read below comes from the tables.
    repo = await restart();
    expect(reads(repo)).toEqual(fromMemory);
  });

  it("refuses an invalid input without writing anything", async () => {
    const repo = await open();
    const result = await step(repo, { type: "worker.pause", workerId: "nobody" }, clock());
    expect(result.error?.code).toBe("NOT_FOUND");
    expect(repo.lastEventSeq).toBe(0);
  });
});
