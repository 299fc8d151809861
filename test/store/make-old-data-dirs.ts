// Writes the frozen data directories of release 0.1.0 (schema 1) that migration.test.ts opens with the current code:
// `clean/` (closed normally: snapshot, empty journal) and `journal-only/` (copied while open: no snapshot, every
// transaction in the journal, as after a crash). Run once per release with `npx tsx test/store/make-old-data-dirs.ts`;
// never regenerate an existing release's fixtures — they stand for directories users already have.
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { Engine } from "../../native-host/src/engine/engine.ts";
import { invoke } from "../../native-host/src/operations/registry.ts";
import { OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import { makeTempDir, recordingLogger } from "./helpers.ts";

const OUT = path.join(import.meta.dirname, "fixtures", "data-dir-0.1.0");
/** Store files only: no lock, socket, logs or config (those are per machine). */
const KEEP = /^store\.(snapshot|journal|archive)$/;

let clock = Date.UTC(2026, 10, 1, 12, 0, 0);
const dir = makeTempDir("old-data-dir");
const backend = await Engine.open({ dir, log: recordingLogger().log, now: () => clock, random: () => 0.5 });
async function call(op: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  clock += 1_000;
  const result = await invoke(OPERATIONS, op, params, backend);
  if (!result.ok) throw new Error(`${op}: ${result.error.code} ${result.error.message}`);
  return result.value;
}
const run = (await call("run_create", { name: "release 0.1.0 run", objective: "kept across upgrades" })) as {
  run: { id: string };
};
const runId = run.run.id;
const spawned = (await call("worker_spawn", { runId, path: "/root", objective: "coordinate" })) as {
  worker: { id: string };
};
const child = (await call("worker_spawn", { runId, path: "/root/backend", objective: "build the API" })) as {
  worker: { id: string };
};
await call("worker_progress", { workerId: spawned.worker.id, summary: "planned the work" });
await call("message_send", {
  toWorkerId: child.worker.id,
  fromWorkerId: spawned.worker.id,
  body: "start with the schema",
});

const copyStoreFiles = (to: string) => {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(dir).filter((n) => KEEP.test(n)))
    cpSync(path.join(dir, name), path.join(to, name));
};
copyStoreFiles(path.join(OUT, "journal-only"));
await backend.close();
copyStoreFiles(path.join(OUT, "clean"));
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`wrote ${OUT}\n`);
