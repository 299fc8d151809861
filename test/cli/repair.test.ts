// `orchestrator repair --accept-loss`, spawned for real: refused without confirmation (nothing changes), opens the
// directory with --yes and records the loss as an event of the active run, then has nothing left to repair.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Engine } from "../../native-host/src/engine/engine.ts";
import { JOURNAL_FILE } from "../../native-host/src/store/durable-store.ts";
import { JOURNAL_HEADER_BYTES } from "../../native-host/src/store/file-headers.ts";
import { recordingLogger } from "../store/helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = path.join(ROOT, "bin", "orchestrator.js");

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), "orchestrator-repair-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, ORCHESTRATOR_HOME: home };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env, cwd: home }, (error, stdout, stderr) => {
      resolve({
        code: error === null ? 0 : typeof error.code === "number" ? error.code : -1,
        stdout,
        stderr,
      });
    });
    child.stdin?.end(); // not a terminal: no question can be asked
  });
}

const journalHash = () => {
  const p = path.join(home, JOURNAL_FILE);
  return `${createHash("sha256").update(readFileSync(p)).digest("hex")} ${statSync(p).mtimeMs}`;
};

/** A run kept in the snapshot, a second one only in the journal, then a crash and the journal cut to its header. */
async function damagedDirectory(): Promise<void> {
  const log = recordingLogger().log;
  let backend = await Engine.open({ dir: home, log });
  await backend.apply({ type: "run.create", runId: "kept", name: "kept" });
  await backend.close();
  backend = await Engine.open({ dir: home, log });
  await backend.apply({ type: "run.create", runId: "lost", name: "lost" });
  await backend.store.lock.release(); // a crash: no final snapshot, so the "lost" run lives only in the journal
  truncateSync(path.join(home, JOURNAL_FILE), JOURNAL_HEADER_BYTES);
}

describe("orchestrator repair", () => {
  it("needs --accept-loss and a confirmation, then opens without what is missing and records it", async () => {
    await damagedDirectory();
    const before = journalHash();

    expect((await run("repair")).code).toBe(64);
    const refused = await run("repair", "--accept-loss");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/acknowledged transaction\(s\) .* are missing/);
    expect(refused.stderr).toContain("Run again with --yes");
    expect(journalHash()).toBe(before);

    const repaired = await run("repair", "--accept-loss", "--yes");
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toMatch(
      /^Opened .* without transactions \d+\.\.\d+; every active run records this/,
    );

    const backend = await Engine.open({ dir: home, log: recordingLogger().log });
    try {
      expect(Object.keys(backend.state.runs)).toEqual(["kept"]);
      const events = backend.eventsAfter(0, 100, { runId: "kept" });
      expect(events.filter((e) => e.type === "store.loss_accepted")).toHaveLength(1);
    } finally {
      await backend.close();
    }

    const again = await run("repair", "--accept-loss", "--yes");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Nothing to repair");
  });
});
