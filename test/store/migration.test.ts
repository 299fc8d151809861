// Upgrading: data directories written by release 0.1.0 (frozen fixtures, see make-old-data-dirs.ts) open with the
// current code, keep every run, worker, message and event, default to manual continuation (Auto Resume only where
// someone turns it on), and take new writes that survive a restart. When a migration is added, these directories
// exercise it.
import { cpSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Engine } from "../../native-host/src/engine/engine.ts";
import { OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import { invoke } from "../../native-host/src/operations/registry.ts";
import { makeTempDir, recordingLogger, removeDir } from "./helpers.ts";

const FIXTURES = path.join(import.meta.dirname, "fixtures", "data-dir-0.1.0");

interface WorkerView {
  id: string;
  path: string;
  status: string;
  lastProgressAt: number | null;
  unreadMessages: number;
  policy: { mode: string };
}

let dir = "";
let backend: Engine | undefined;
afterEach(async () => {
  await backend?.close();
  backend = undefined;
  removeDir(dir);
});

async function call<T>(op: string, params: Record<string, unknown>): Promise<T> {
  const result = await invoke(OPERATIONS, op, params, backend!);
  if (!result.ok) throw new Error(`${op}: ${result.error.code} ${result.error.message}`);
  return result.value as T;
}

async function open(): Promise<void> {
  backend = await Engine.open({ dir, log: recordingLogger().log });
}

describe.each(["clean", "journal-only"])("a 0.1.0 data directory (%s)", (variant) => {
  it("opens with everything kept, manual continuation, and takes new durable writes", async () => {
    dir = makeTempDir("migrate");
    cpSync(path.join(FIXTURES, variant), dir, { recursive: true });
    await open();

    const { runs } = await call<{ runs: { id: string; name: string; defaultPolicy: { mode: string } }[] }>(
      "run_list",
      {},
    );
    expect(runs.map((r) => r.name)).toEqual(["release 0.1.0 run"]);
    expect(runs[0]!.defaultPolicy.mode).toBe("manual");
    const runId = runs[0]!.id;
    const { workers } = await call<{ workers: WorkerView[] }>("worker_list", { runId });
    expect(workers.map((w) => w.path).sort()).toEqual(["/root", "/root/backend"]);
    expect(workers.every((w) => w.status === "active" && w.policy.mode === "manual")).toBe(true);
    const root = workers.find((w) => w.path === "/root")!;
    const child = workers.find((w) => w.path === "/root/backend")!;
    expect(root.lastProgressAt).not.toBeNull();
    expect(child.unreadMessages).toBe(1);
    const before = await call<{ events: { seq: number }[] }>("events_list", {
      runId,
      cursor: 0,
      limit: 500,
    });
    expect(before.events.length).toBeGreaterThan(0);

    await call("worker_progress", { workerId: child.id, summary: "after the upgrade" });
    await backend!.close();
    backend = undefined;
    await open();
    const after = await call<{ worker: WorkerView }>("worker_get", { workerId: child.id });
    expect(after.worker.lastProgressAt).not.toBeNull();
    const events = await call<{ events: { seq: number }[] }>("events_list", {
      runId,
      cursor: 0,
      limit: 500,
    });
    expect(events.events.at(-1)!.seq).toBeGreaterThan(before.events.at(-1)!.seq);
  });
});
