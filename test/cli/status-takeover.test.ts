// `orchestrator status` over the real processes: the runs and workers of the running backend in the popup's state
// words, and the browsers connected now, also right after a second browser's host took the backend over.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedExtension } from "../host/scripted-extension.ts";
import { waitFor } from "../wait-for.ts";
import { type CliHome, cliHome } from "./spawn-cli.ts";

interface StatusJson {
  owner: { pid: number } | null;
  executors: string[];
  runs: { id: string; name: string; counts: Record<string, number> }[] | null;
  workers: { id: string; runId: string; path: string; label: string }[] | null;
}

let cli: CliHome;
const extensions: ScriptedExtension[] = [];
afterEach(async () => {
  for (const e of extensions.splice(0)) {
    e.kill();
    await e.exited;
  }
  cli.cleanup();
});

async function status(): Promise<StatusJson> {
  const result = await cli.run(["status", "--json"]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as StatusJson;
}

describe("orchestrator status", () => {
  it("lists runs, workers with their state labels and the connected browsers, before and after a takeover", async () => {
    cli = cliHome();
    const chrome = ScriptedExtension.spawn({ home: cli.dataDir, executorId: "chrome" });
    extensions.push(chrome);
    await chrome.hello();
    const firefox = ScriptedExtension.spawn({ home: cli.dataDir, executorId: "firefox" });
    extensions.push(firefox);
    await firefox.hello();
    const { run } = await firefox.ui<{ run: { id: string } }>("run_create", { name: "status run" });
    const { worker } = await firefox.ui<{ worker: { id: string } }>("worker_spawn", {
      runId: run.id,
      path: "/root",
      objective: "write the docs",
    });
    await firefox.ui("worker_pause", { workerId: worker.id });

    const before = await waitFor(
      async () => {
        const s = await status();
        return s.executors.length === 2 && s.workers?.[0]?.label === "Paused" ? s : undefined;
      },
      "both browsers and the paused worker in status",
      20_000,
      100,
    );
    expect(before.owner?.pid).toBe(chrome.child.pid);
    expect(before.executors.sort()).toEqual(["chrome", "firefox"]);
    expect(before.runs).toEqual([
      { id: run.id, name: "status run", status: "active", counts: { Paused: 1 } },
    ]);
    expect(before.workers).toEqual([
      { id: worker.id, runId: run.id, path: "/root", name: "root", label: "Paused" },
    ]);

    const text = await cli.run(["status"]);
    expect(text.stdout).toContain("Executors connected: ");
    expect(text.stdout).toMatch(/^Runs: 1 active$/m);
    expect(text.stdout).toMatch(new RegExp(`^  status run \\(${run.id}\\): 1 Paused$`, "m"));
    expect(text.stdout).toMatch(new RegExp(`^    Paused +/root +root +\\(${worker.id}\\)$`, "m"));
    const { token } = JSON.parse(readFileSync(path.join(cli.dataDir, "config.json"), "utf8")) as {
      token: string;
    };
    expect(text.stdout + JSON.stringify(before)).not.toContain(token);

    // The owner's browser leaves: firefox's host takes the backend over and must show as connected at once.
    chrome.closeStdin();
    await chrome.exited;
    const after = await waitFor(
      async () => {
        const s = await status();
        return s.owner?.pid === firefox.child.pid && s.executors.length > 0 ? s : undefined;
      },
      "the new owner listing firefox",
      10_000,
      100,
    );
    expect(after.executors).toEqual(["firefox"]);
    expect(after.workers?.map((w) => w.label)).toEqual(["Paused"]);

    firefox.closeStdin();
    await firefox.exited;
    const stopped = await cli.run(["status"]);
    expect(stopped.stdout).toMatch(/^Backend: not running \(start it with `npx orchestrator serve`/m);
    expect(stopped.stdout).toContain("Runs and workers: backend not running");
    expect((await status()).runs).toBeNull();
  }, 120_000);
});
