// Two browsers, one backend: the second host relays to the owner over the IPC socket and never writes the
// database; commands go to the executor holding the worker's binding; a relay takes over when the owner exits.
import { afterEach, describe, expect, it } from "vitest";
import { removeHome, tempHome } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

describe("owner and relay", () => {
  const homes: string[] = [];
  afterEach(() => homes.splice(0).forEach(removeHome));

  it(
    "routes each worker's commands to its own browser, and the relay never writes the database",
    { timeout: 90_000 },
    async () => {
      const home = tempHome();
      homes.push(home);
      const chrome = ScriptedExtension.spawn({ home, executorId: "chrome" });
      await chrome.hello();
      // The relay would SIGKILL itself if it ever appended to the journal: proof that it never writes.
      const firefox = ScriptedExtension.spawn({
        home,
        executorId: "firefox",
        env: { ORCHESTRATOR_STORE_FAULT: "journal-written" },
      });
      await firefox.hello();

      const { run } = await firefox.ui<{ run: { id: string } }>("run_create", {
        name: "two browsers",
        policy: { mode: "auto", idleGraceMs: 50 },
      });
      const a = (
        await firefox.ui<{ worker: { id: string } }>("worker_spawn", {
          runId: run.id,
          path: "/root",
          objective: "a",
        })
      ).worker.id;
      const createA = await waitFor(() => chrome.commandsFor(a)[0] ?? firefox.commandsFor(a)[0], "create a");
      const b = (
        await chrome.ui<{ worker: { id: string } }>("worker_spawn", {
          runId: run.id,
          path: "/root/b",
          objective: "b",
        })
      ).worker.id;
      const createB = await waitFor(() => chrome.commandsFor(b)[0] ?? firefox.commandsFor(b)[0], "create b");
      const holderA = chrome.commandsFor(a).length ? chrome : firefox;
      const holderB = chrome.commandsFor(b).length ? chrome : firefox;
      expect(holderA).not.toBe(holderB);

      holderA.submit(createA);
      holderB.submit(createB);
      for (const [ext, id] of [
        [holderA, a],
        [holderB, b],
      ] as const) {
        ext.observe(id, "generating");
        ext.observe(id, "idle");
      }
      await waitFor(() => holderA.commandsFor(a)[1], "resume a on its own browser");
      await waitFor(() => holderB.commandsFor(b)[1], "resume b on its own browser");
      expect(holderA.commandsFor(b)).toHaveLength(0);
      expect(holderB.commandsFor(a)).toHaveLength(0);

      // Writes through the relay all happened in the owner: the relay is alive, so it never appended a journal record.
      await firefox.ui("worker_pause", { workerId: a });
      expect(firefox.child.exitCode).toBeNull();
      chrome.closeStdin();
      firefox.closeStdin();
      await Promise.all([chrome.exited, firefox.exited]);
    },
  );

  it(
    "a relay takes the lock when the owner exits, replays its hello and keeps every worker",
    { timeout: 90_000 },
    async () => {
      const home = tempHome();
      homes.push(home);
      const chrome = ScriptedExtension.spawn({ home, executorId: "chrome" });
      await chrome.hello();
      const firefox = ScriptedExtension.spawn({ home, executorId: "firefox" });
      await firefox.hello();
      const { run } = await firefox.ui<{ run: { id: string } }>("run_create", { name: "takeover" });
      await firefox.ui("worker_spawn", { runId: run.id, path: "/root", objective: "survive" });
      const welcomes = firefox.received.filter((m) => m.kind === "welcome").length;
      chrome.closeStdin();
      await chrome.exited;
      await waitFor(
        () => firefox.received.filter((m) => m.kind === "welcome").length > welcomes,
        "welcome from the new owner",
      );
      const view = await firefox.ui<{ workers: unknown[] }>("worker_list", {});
      expect(view.workers).toHaveLength(1);
      firefox.closeStdin();
      await firefox.exited;
    },
  );
});
