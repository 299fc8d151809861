// Worktree ownership and provenance (docs/mcp.md) through MCP (official SDK client over HTTP, real backend on
// disk): worker_claim_worktree conflicts change nothing, and provenance_get answers the five questions (owner,
// conversation, active attempt, automatic resumes, state) by worktree, worker and conversation, mid-run and after
// completion; unknown and missing keys answer clear errors.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provenance } from "../../native-host/src/operations/provenance-view.ts";
import { call, callRaw, type Harness, startHarness, textOf } from "./helpers.ts";

let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await startHarness();
  client = await h.client();
});
afterAll(() => h.close());

interface Out {
  by: string;
  provenance: Provenance;
}

async function expectError(name: string, args: Record<string, unknown>, code: string): Promise<string> {
  const result = await callRaw(client, name, args);
  expect(result.isError, `${name} ${JSON.stringify(args)} → ${textOf(result)}`).toBe(true);
  expect(textOf(result)).toMatch(new RegExp(`^${code}: `));
  return textOf(result);
}

/** The executor's side, applied as the bridge does: ack + submitted result, then generating. */
async function runTurn(workerId: string, executorId: string, seq: number): Promise<void> {
  const attempt = h.backend.state.workers[workerId]!.current!;
  await h.backend.apply({ type: "command.acked", workerId, commandId: attempt.commandId, executorId });
  await h.backend.apply({
    type: "command.result",
    workerId,
    commandId: attempt.commandId,
    outcome: "submitted",
    url: `https://chatgpt.com/c/${workerId}`,
    executorId,
  });
  await h.backend.apply({ type: "conversation.observed", workerId, state: "generating", seq, executorId });
}

describe("worktree ownership and provenance_get", () => {
  let runId: string;
  let root: string;
  let lane: string;

  beforeAll(async () => {
    runId = (
      await call<{ run: { id: string } }>(client, "run_create", {
        name: "prov",
        policy: { mode: "auto", idleGraceMs: 50 },
      })
    ).run.id;
    root = (
      await call<{ worker: { id: string } }>(client, "worker_spawn", {
        runId,
        path: "/root",
        objective: "coordinate",
      })
    ).worker.id;
    const spawned = await call<{ worker: { id: string; worktrees: string[] } }>(client, "worker_spawn", {
      runId,
      path: "/root/backend",
      objective: "build the backend",
      worktrees: ["impl/backend"],
    });
    lane = spawned.worker.id;
    expect(spawned.worker.worktrees).toEqual(["impl/backend"]);
  });

  it("a conflicting claim is refused naming the owner, and changes nothing", async () => {
    const state = structuredClone(h.backend.state);
    const seq = h.backend.lastEventSeq();
    const text = await expectError(
      "worker_claim_worktree",
      { workerId: root, worktree: "impl/backend/" },
      "WORKTREE_OWNED",
    );
    expect(text).toContain(`/root/backend (${lane})`);
    await expectError(
      "worker_spawn",
      { runId, path: "/root/other", objective: "o", worktrees: ["impl/backend"] },
      "WORKTREE_OWNED",
    );
    expect(h.backend.state).toEqual(state);
    expect(h.backend.lastEventSeq()).toBe(seq);
    const again = await call<{ alreadyOwned: boolean }>(client, "worker_claim_worktree", {
      workerId: lane,
      worktree: "impl/backend",
    });
    expect(again.alreadyOwned).toBe(true);
  });

  it("answers the five questions mid-run, by worktree, worker and conversation alike", async () => {
    await runTurn(lane, "chrome-profile-1", 1);
    await h.backend.apply({ type: "conversation.observed", workerId: lane, state: "idle", seq: 2 });
    // Auto Resume schedules attempt 2 after the idle grace (real clock): wait for it with a deadline.
    await expect.poll(() => h.backend.state.workers[lane]!.current?.seq, { timeout: 10_000 }).toBe(2);
    await runTurn(lane, "firefox-profile-2", 3);

    const byWorktree = await call<Out>(client, "provenance_get", { worktree: "impl/backend" });
    const p = byWorktree.provenance;
    expect(byWorktree.by).toBe("worktree");
    expect(p.worker).toMatchObject({ id: lane, path: "/root/backend" });
    expect(p.run).toMatchObject({ id: runId, name: "prov", status: "active" });
    expect(p.worktrees).toEqual([
      expect.objectContaining({ worktree: "impl/backend", owned: true, releasedAt: null }),
    ]);
    expect(p.conversation.url).toBe(`https://chatgpt.com/c/${lane}`);
    expect(p.activeAttempt).toMatchObject({ seq: 2, reason: "auto_resume", state: "generating" });
    expect(p.attempts.map((a) => [a.seq, a.reason, a.executorId])).toEqual([
      [1, "initial", "chrome-profile-1"],
      [2, "auto_resume", "firefox-profile-2"],
    ]);
    expect(p.attempts[1]!.resumeOf).toBe(p.attempts[0]!.id);
    expect(p.autoResumes).toBe(1);
    expect(p.state).toBe("Working");

    const byWorker = await call<Out>(client, "provenance_get", { workerId: lane });
    const byUrl = await call<Out>(client, "provenance_get", {
      conversation: `https://chatgpt.com/c/${lane}?model=x`,
    });
    const byUuid = await call<Out>(client, "provenance_get", { conversation: lane.toUpperCase(), runId });
    for (const other of [byWorker, byUrl, byUuid]) expect(other.provenance).toEqual(p);
  });

  it("answers them after completion: the worktree's last owner, no active attempt, Complete", async () => {
    await call(client, "worker_complete", { workerId: lane, summary: "done" });
    await h.backend.apply({ type: "conversation.observed", workerId: lane, state: "idle", seq: 4 });
    const { provenance: p } = await call<Out>(client, "provenance_get", { worktree: "impl/backend" });
    expect(p.worker.id).toBe(lane);
    expect(p.worktrees[0]).toMatchObject({ owned: false, releaseReason: "completed" });
    expect(p.activeAttempt).toBeNull();
    expect(p.attempts.map((a) => a.state)).toEqual(["idle", "completed"]);
    expect(p.autoResumes).toBe(1);
    expect(p.state).toBe("Complete");
    expect(p.conversation.url).toBe(`https://chatgpt.com/c/${lane}`);

    // Ended with its worker, the worktree can now be claimed by another; lookups then name the new owner.
    await call(client, "worker_claim_worktree", { workerId: root, worktree: "impl/backend" });
    const now = await call<Out>(client, "provenance_get", { worktree: "impl/backend", runId });
    expect(now.provenance.worker.id).toBe(root);
    await call(client, "worker_release_worktree", { workerId: root, worktree: "impl/backend" });
    await expectError("worker_release_worktree", { workerId: root, worktree: "impl/backend" }, "NOT_OWNER");
  });

  it("unknown keys, no key and several keys answer clear errors", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await expectError("provenance_get", { worktree: "no/such" }, "NOT_FOUND")).toContain(
      "no worker owns or has owned worktree 'no/such'",
    );
    expect(await expectError("provenance_get", { workerId: unknown }, "NOT_FOUND")).toContain(unknown);
    expect(
      await expectError("provenance_get", { conversation: `https://chatgpt.com/c/${unknown}` }, "NOT_FOUND"),
    ).toContain("no worker is bound to conversation");
    expect(await expectError("provenance_get", {}, "INVALID_INPUT")).toContain("exactly one");
    await expectError("provenance_get", { workerId: lane, worktree: "impl/backend" }, "INVALID_INPUT");
    await expectError("provenance_get", { worker: lane }, "INVALID_INPUT");
    await expectError("worker_claim_worktree", { workerId: unknown, worktree: "x" }, "NOT_FOUND");
  });
});
