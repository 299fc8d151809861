// Worktree ownership (docs/mcp.md) across real host processes: it stays exactly as claimed through automatic and
// manual resumes, a SIGKILL of the host and a restart, and a relay taking over from an exiting owner;
// attempts record the executor (browser profile) that ran them.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Provenance } from "../../native-host/src/operations/provenance-view.ts";
import { connectMcp, removeHome, tempHome, tool } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

const FAST = { mode: "auto", idleGraceMs: 50 };

interface Out {
  provenance: Provenance;
}

const provenance = async (mcp: Client, args: Record<string, unknown>) =>
  (await tool<Out>(mcp, "provenance_get", args)).provenance;

/** Runs the command the worker has just been sent, up to a generating turn. */
async function runTurn(ext: ScriptedExtension, workerId: string, n: number): Promise<void> {
  const command = await waitFor(() => ext.commandsFor(workerId)[n - 1], `command ${n} of ${workerId}`);
  ext.submit(command);
  ext.observe(workerId, "generating");
}

async function conflictOf(mcp: Client, workerId: string, worktree: string): Promise<string> {
  const result = await mcp.callTool({ name: "worker_claim_worktree", arguments: { workerId, worktree } });
  expect(result.isError).toBe(true);
  return (result.content as { text: string }[])[0]!.text;
}

describe("worktree ownership across resumes, SIGKILL and relay takeover", () => {
  const homes: string[] = [];
  afterEach(() => homes.splice(0).forEach(removeHome));

  it(
    "auto resume, manual resume and a host SIGKILL + restart leave ownership unchanged",
    { timeout: 90_000 },
    async () => {
      const home = tempHome();
      homes.push(home);
      const ext = ScriptedExtension.spawn({ home, executorId: "chrome-work" });
      await ext.hello();
      let mcp = await connectMcp(home);
      const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", { name: "own", policy: FAST });
      const owner = (
        await tool<{ worker: { id: string } }>(mcp, "worker_spawn", {
          runId: run.id,
          path: "/root",
          objective: "backend",
          worktrees: ["impl/backend"],
        })
      ).worker.id;
      const other = (
        await tool<{ worker: { id: string } }>(mcp, "worker_spawn", {
          runId: run.id,
          path: "/root/other",
          objective: "other",
        })
      ).worker.id;
      await runTurn(ext, owner, 1);
      const claimed = await provenance(mcp, { worktree: "impl/backend" });
      expect(claimed.worker.id).toBe(owner);

      // Automatic resume.
      ext.observe(owner, "idle");
      await runTurn(ext, owner, 2);
      // Manual resume: pause, the turn ends, Continue now.
      await ext.ui("worker_pause", { workerId: owner });
      ext.observe(owner, "idle");
      await waitFor(
        async () => (await provenance(mcp, { workerId: owner })).state === "Paused",
        "paused after the turn",
      );
      await ext.ui("worker_continue_now", { workerId: owner, clearPause: true });
      await runTurn(ext, owner, 3);
      await waitFor(
        async () => (await provenance(mcp, { workerId: owner })).activeAttempt?.state === "generating",
        "manual resume generating",
      );
      const before = await provenance(mcp, { worktree: "impl/backend" });
      expect(before.worker.id).toBe(owner);
      expect(before.worktrees).toEqual(claimed.worktrees);
      expect(before.attempts.map((a) => [a.reason, a.executorId])).toEqual([
        ["initial", "chrome-work"],
        ["auto_resume", "chrome-work"],
        ["manual_resume", "chrome-work"],
      ]);
      expect(before.autoResumes).toBe(1);
      expect(await conflictOf(mcp, other, "impl/backend")).toMatch(/^WORKTREE_OWNED: .*\/root \(/);

      // kill -9 of the host mid-turn, then a new host on the same data directory.
      await mcp.close().catch(() => undefined);
      ext.kill();
      expect((await ext.exited).signal).toBe("SIGKILL");
      const ext2 = ScriptedExtension.spawn({ home, executorId: "chrome-work" });
      ext2.setSeq(owner, 10);
      await ext2.hello([
        {
          workerId: owner,
          binding: "bound",
          url: `https://chatgpt.com/c/${owner}`,
          observed: { state: "generating", seq: 10 },
        },
      ]);
      mcp = await connectMcp(home);
      const after = await provenance(mcp, { conversation: `https://chatgpt.com/c/${owner}` });
      expect(after.worker.id).toBe(owner);
      expect(after.worktrees).toEqual(before.worktrees);
      expect(after.attempts).toEqual(before.attempts);
      expect(await conflictOf(mcp, other, "impl/backend")).toMatch(/^WORKTREE_OWNED/);

      // And one more automatic resume in the new host's life.
      ext2.observe(owner, "idle");
      await runTurn(ext2, owner, 1);
      const later = await waitFor(async () => {
        const p = await provenance(mcp, { worktree: "impl/backend" });
        return p.activeAttempt?.state === "generating" && p.activeAttempt.seq === 4 ? p : undefined;
      }, "the new life's automatic resume generating");
      expect(later.worker.id).toBe(owner);
      expect(later.worktrees).toEqual(before.worktrees);
      expect(later.autoResumes).toBe(2);
      expect(later.activeAttempt).toMatchObject({ seq: 4, reason: "auto_resume" });
      await mcp.close();
      ext2.closeStdin();
      await ext2.exited;
    },
  );

  it(
    "a relay taking over from the owner keeps every worker's ownership and executor history",
    { timeout: 90_000 },
    async () => {
      const home = tempHome();
      homes.push(home);
      const chrome = ScriptedExtension.spawn({ home, executorId: "chrome" });
      await chrome.hello();
      const firefox = ScriptedExtension.spawn({ home, executorId: "firefox" });
      await firefox.hello();
      const { run } = await firefox.ui<{ run: { id: string } }>("run_create", {
        name: "relay",
        policy: FAST,
      });
      const ids: string[] = [];
      for (const [path, worktree] of [
        ["/root", "impl/backend"],
        ["/root/ui", "impl/ui"],
      ] as const) {
        const { worker } = await firefox.ui<{ worker: { id: string } }>("worker_spawn", {
          runId: run.id,
          path,
          objective: path,
          worktrees: [worktree],
        });
        ids.push(worker.id);
        const holder = await waitFor(
          () =>
            chrome.commandsFor(worker.id)[0] ? chrome : firefox.commandsFor(worker.id)[0] ? firefox : false,
          `create of ${path}`,
        );
        await runTurn(holder, worker.id, 1);
      }
      // The acks reach the owner on other channels than these requests: wait until both turns are recorded.
      const views = await waitFor(async () => {
        const all = await Promise.all(ids.map((workerId) => firefox.ui<Out>("provenance_get", { workerId })));
        return all.every((v) => v.provenance.activeAttempt?.state === "generating") ? all : undefined;
      }, "both bootstrap turns generating");
      // Spread over both browsers, and each attempt says which one ran it.
      expect(new Set(views.map((v) => v.provenance.attempts[0]!.executorId))).toEqual(
        new Set(["chrome", "firefox"]),
      );

      const welcomes = firefox.received.filter((m) => m.kind === "welcome").length;
      chrome.closeStdin();
      await chrome.exited;
      await waitFor(
        () => firefox.received.filter((m) => m.kind === "welcome").length > welcomes,
        "welcome from the new owner",
      );
      for (const [i, worktree] of ["impl/backend", "impl/ui"].entries()) {
        const { provenance: p } = await firefox.ui<Out>("provenance_get", { worktree });
        expect(p.worker.id).toBe(ids[i]);
        expect(p.worktrees).toEqual(views[i]!.provenance.worktrees);
        expect(p.attempts[0]!.executorId).toBe(views[i]!.provenance.attempts[0]!.executorId);
      }
      const refused = await firefox.uiError("worker_claim_worktree", {
        workerId: ids[1],
        worktree: "impl/backend",
      });
      expect(refused.code).toBe("WORKTREE_OWNED");
      expect(refused.message).toContain(`/root (${ids[0]})`);
      firefox.closeStdin();
      await firefox.exited;
    },
  );
});
