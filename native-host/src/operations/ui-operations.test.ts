// The operator-UI reads on a real Engine (sql.js on disk): the summary lists active runs and unfinished workers in
// operator words; the drill-down returns attempts and the worker's newest events, oldest of them first.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, recordingLogger, removeDir } from "../../../test/store/helpers.ts";
import { Engine } from "../engine/engine.ts";
import { OPERATIONS } from "./all-operations.ts";
import { invoke } from "./registry.ts";

let dir: string;
let backend: Engine;

beforeEach(async () => {
  dir = makeTempDir("ui-ops");
  backend = await Engine.open({ dir, log: recordingLogger().log });
});
afterEach(async () => {
  await backend.close();
  removeDir(dir);
});

async function call(op: string, params: unknown = {}): Promise<Record<string, unknown>> {
  const result = await invoke(OPERATIONS, op, params, backend);
  if (!result.ok) throw new Error(`${op}: ${result.error.code} ${result.error.message}`);
  return result.value;
}

describe("ui_summary", () => {
  it("lists active runs and unfinished workers only, with labels and the event cursor", async () => {
    const { run } = (await call("run_create", { name: "migration", policy: { mode: "auto" } })) as {
      run: { id: string };
    };
    await call("worker_spawn", { runId: run.id, path: "/root", objective: "lead" });
    const a = (await call("worker_spawn", {
      runId: run.id,
      path: "/root/backend",
      objective: "backend",
      name: "Backend",
    })) as {
      worker: { id: string };
    };
    const b = (await call("worker_spawn", {
      runId: run.id,
      path: "/root/plugin",
      objective: "plugin",
      name: "Plugin",
    })) as {
      worker: { id: string };
    };
    await call("worker_await_human", { workerId: a.worker.id, reason: "choice", question: "A or B?" });
    await call("worker_stop", { workerId: b.worker.id });
    const summary = (await call("ui_summary")) as {
      runs: { id: string; defaultPolicy: { mode: string }; counts: Record<string, number> }[];
      workers: { id: string; label: string; wait: { question?: string } | null }[];
      eventSeq: number;
    };
    expect(summary.runs.map((r) => r.id)).toEqual([run.id]);
    expect(summary.runs[0]!.defaultPolicy.mode).toBe("auto");
    expect(summary.runs[0]!.counts["Needs you"]).toBe(1);
    const ids = summary.workers.map((w) => w.id);
    expect(ids).toHaveLength(2); // /root and the one waiting; the stopped worker is finished
    expect(ids).not.toContain(b.worker.id);
    const waiting = summary.workers.find((w) => w.id === a.worker.id)!;
    expect(waiting.label).toBe("Needs you");
    expect(JSON.stringify(waiting.wait)).toContain("A or B?");
    expect(summary.eventSeq).toBe(backend.lastEventSeq());
  });

  it("filters by run when asked", async () => {
    const { run } = (await call("run_create", { name: "one" })) as { run: { id: string } };
    await call("run_create", { name: "two" });
    await call("worker_spawn", { runId: run.id, path: "/root", objective: "lead" });
    const summary = (await call("ui_summary", { runId: run.id })) as {
      runs: { id: string }[];
      workers: { runId: string }[];
    };
    expect(summary.runs.map((r) => r.id)).toEqual([run.id]);
    expect(summary.workers.map((w) => w.runId)).toEqual([run.id]);
  });

  it("rejects unknown parameters like every operation", async () => {
    const result = await invoke(OPERATIONS, "ui_summary", { extra: 1 }, backend);
    expect(result).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } });
  });
});

describe("ui_worker_detail", () => {
  it("returns the newest events of the worker only, in order, and NOT_FOUND for an unknown worker", async () => {
    const { run } = (await call("run_create", { name: "r" })) as { run: { id: string } };
    await call("worker_spawn", { runId: run.id, path: "/root", objective: "lead" });
    const w = (await call("worker_spawn", { runId: run.id, path: "/root/o", objective: "o" })) as {
      worker: { id: string };
    };
    const other = (await call("worker_spawn", { runId: run.id, path: "/root/p", objective: "p" })) as {
      worker: { id: string };
    };
    for (let i = 0; i < 5; i += 1) {
      await call("worker_progress", { workerId: w.worker.id, summary: `step ${i}` });
      await call("worker_progress", { workerId: other.worker.id, summary: `other ${i}` });
    }
    const detail = (await call("ui_worker_detail", { workerId: w.worker.id, recentEvents: 3 })) as {
      worker: { id: string };
      attempts: unknown[];
      events: { seq: number; type: string }[];
    };
    expect(detail.worker.id).toBe(w.worker.id);
    expect(detail.events).toHaveLength(3);
    expect(detail.events.every((e) => e.type === "worker.progress")).toBe(true);
    const seqs = detail.events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    const all = backend.eventsAfter(0, 1000, { workerId: w.worker.id });
    expect(seqs.at(-1)).toBe(all.at(-1)!.seq);
    expect(Array.isArray(detail.attempts)).toBe(true);
    const missing = await invoke(OPERATIONS, "ui_worker_detail", { workerId: "nope" }, backend);
    expect(missing).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
  });
});

describe("ui_summary autoResume", () => {
  it("keeps the switch On for a paused auto worker but does not count it as continuing by itself", async () => {
    const { run } = (await call("run_create", { name: "billing", policy: { mode: "auto" } })) as {
      run: { id: string };
    };
    await call("worker_spawn", { runId: run.id, path: "/root", objective: "lead" });
    const db = (await call("worker_spawn", { runId: run.id, path: "/root/db", objective: "migrate" })) as {
      worker: { id: string };
    };
    const before = (await call("ui_summary")) as { autoResume: { on: boolean; automatic: number } };
    expect(before.autoResume).toEqual({ enabled: true, on: true, automatic: 2 });
    await call("worker_pause", { workerId: db.worker.id });
    const after = (await call("ui_summary")) as { autoResume: { on: boolean; automatic: number } };
    expect(after.autoResume).toEqual({ enabled: true, on: true, automatic: 1 });
  });
});
