// Worktree ownership in the pure core (docs/continuation-core.md): claims, conflicts, release, the end of the
// worker, and ownership unchanged by automatic and manual resumes; executor attribution of attempts.
import { describe, expect, it } from "vitest";
import { Simulation } from "./simulation.ts";

const SECOND = 1_000;

function endTurn(sim: Simulation, workerId = "w-1"): void {
  sim.observe(workerId, "idle");
  sim.advance(3 * SECOND);
}

/** Two workers of run-1 (/root and /root/api), Auto Resume on; w-1 owns impl/backend from its spawn. */
function twoWorkers(): Simulation {
  const sim = new Simulation();
  sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "auto" } });
  sim.apply({
    type: "worker.spawn",
    runId: "run-1",
    workerId: "w-1",
    path: "/root",
    objective: "x",
    worktrees: ["impl/backend/"],
  });
  sim.result("w-1");
  sim.observe("w-1", "generating");
  sim.start({ workerId: "w-2", path: "/root/api" });
  return sim;
}

describe("worktree ownership", () => {
  it("a spawn claims its worktrees, normalized, with one event each", () => {
    const sim = twoWorkers();
    expect(sim.worker("w-1").worktrees).toEqual([{ location: "impl/backend", claimedAt: 1_000_000 }]);
    const claimed = sim.events.filter((e) => e.type === "worktree.claimed");
    expect(claimed.map((e) => [e.workerId, e.data.worktree])).toEqual([["w-1", "impl/backend"]]);
  });

  it("a conflicting claim is refused, names the owner and changes nothing", () => {
    const sim = twoWorkers();
    const before = sim.state;
    const events = sim.events.length;
    const r = sim.try({ type: "worker.claim_worktree", workerId: "w-2", worktree: " impl/backend " });
    expect(r.error?.code).toBe("WORKTREE_OWNED");
    expect(r.error?.message).toContain("/root (w-1)");
    expect(sim.state).toBe(before);
    expect(sim.events).toHaveLength(events);
    const spawn = sim.try({
      type: "worker.spawn",
      runId: "run-1",
      workerId: "w-3",
      path: "/root/ui",
      objective: "y",
      worktrees: ["ui", "impl/backend"],
    });
    expect(spawn.error?.code).toBe("WORKTREE_OWNED");
    expect(sim.state).toBe(before);
  });

  it("claiming is idempotent for the owner; another run may own the same name", () => {
    const sim = twoWorkers();
    const again = sim.apply({ type: "worker.claim_worktree", workerId: "w-1", worktree: "impl/backend" });
    expect(again.reply).toEqual({ alreadyOwned: true, worktree: "impl/backend" });
    expect(sim.worker("w-1").worktrees).toHaveLength(1);
    sim.apply({ type: "run.create", runId: "run-2", name: "Other" });
    sim.apply({
      type: "worker.spawn",
      runId: "run-2",
      workerId: "w-9",
      path: "/root",
      objective: "z",
      worktrees: ["impl/backend"],
    });
    expect(sim.worker("w-9").worktrees?.[0]?.location).toBe("impl/backend");
  });

  it("invalid names and releases of what the worker does not own are refused", () => {
    const sim = twoWorkers();
    for (const worktree of ["   ", "a\u0000b", "x".repeat(1_001)]) {
      expect(sim.try({ type: "worker.claim_worktree", workerId: "w-2", worktree }).error?.code).toBe(
        "INVALID_INPUT",
      );
    }
    const r = sim.try({ type: "worker.release_worktree", workerId: "w-2", worktree: "impl/backend" });
    expect(r.error?.code).toBe("NOT_OWNER");
    expect(sim.try({ type: "worker.claim_worktree", workerId: "nope", worktree: "a" }).error?.code).toBe(
      "NOT_FOUND",
    );
  });

  it("an explicit release lets another worker claim it; the history keeps both", () => {
    const sim = twoWorkers();
    sim.apply({ type: "worker.release_worktree", workerId: "w-1", worktree: "impl/backend" });
    expect(sim.worker("w-1").worktrees?.[0]).toMatchObject({ releaseReason: "released" });
    sim.apply({ type: "worker.claim_worktree", workerId: "w-2", worktree: "impl/backend" });
    expect(sim.worker("w-2").worktrees?.[0]?.location).toBe("impl/backend");
    expect(sim.eventTypes().filter((t) => t.startsWith("worktree."))).toEqual([
      "worktree.claimed",
      "worktree.released",
      "worktree.claimed",
    ]);
  });

  it("ownership is unchanged by automatic resumes, manual resumes, pause and resume", () => {
    const sim = twoWorkers();
    const owned = sim.worker("w-1").worktrees;
    for (let i = 0; i < 3; i++) {
      endTurn(sim);
      sim.result("w-1");
      sim.observe("w-1", "generating");
    }
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    endTurn(sim);
    sim.apply({ type: "worker.continue_now", workerId: "w-1", clearPause: true });
    sim.result("w-1");
    sim.observe("w-1", "generating");
    const w = sim.worker("w-1");
    expect(w.autoResumes).toBe(3);
    expect(w.current?.reason).toBe("manual_resume");
    expect(w.worktrees).toBe(owned);
    expect(
      sim.try({ type: "worker.claim_worktree", workerId: "w-2", worktree: "impl/backend" }).error?.code,
    ).toBe("WORKTREE_OWNED");
  });

  it.each([
    ["worker.complete", "completed"],
    ["worker.fail", "failed"],
    ["worker.stop", "cancelled"],
  ] as const)("%s ends ownership with the worker (%s)", (type, reason) => {
    const sim = twoWorkers();
    sim.apply(type === "worker.fail" ? { type, workerId: "w-1", reason: "x" } : { type, workerId: "w-1" });
    expect(sim.worker("w-1").worktrees?.[0]).toMatchObject({ releaseReason: reason, releasedAt: sim.now });
    sim.apply({ type: "worker.claim_worktree", workerId: "w-2", worktree: "impl/backend" });
    expect(sim.try({ type: "worker.claim_worktree", workerId: "w-1", worktree: "other" }).error?.code).toBe(
      "WORKER_TERMINAL",
    );
  });
});

describe("executor attribution", () => {
  it("the first executor that acknowledges or submits an attempt is recorded and never overwritten", () => {
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "auto" } });
    sim.apply({ type: "worker.spawn", runId: "run-1", workerId: "w-1", path: "/root", objective: "x" });
    const first = sim.worker("w-1").current!;
    sim.apply({ type: "command.acked", workerId: "w-1", commandId: first.commandId, executorId: "chrome" });
    sim.apply({
      type: "command.result",
      workerId: "w-1",
      commandId: first.commandId,
      outcome: "submitted",
      url: "https://chatgpt.com/c/w-1",
      executorId: "firefox",
    });
    expect(sim.worker("w-1").current?.executorId).toBe("chrome");
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "generating",
      seq: 1,
      executorId: "chrome",
    });
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "idle",
      seq: 2,
      executorId: "chrome",
    });
    sim.advance(3 * SECOND);
    const second = sim.worker("w-1").current!;
    expect(second.seq).toBe(2);
    expect(second.executorId).toBeUndefined();
    // A report of a still scheduled attempt's conversation does not prove the executor holds the command.
    sim.apply({ type: "conversation.observed", workerId: "w-1", state: "idle", seq: 3, executorId: "other" });
    expect(sim.worker("w-1").current?.executorId).toBeUndefined();
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "generating",
      seq: 4,
      executorId: "firefox",
    });
    expect(sim.worker("w-1").current?.executorId).toBe("firefox");
    const submitted = sim.events.find(
      (e) => e.type === "execution.submitted" && (e.data.execution as { seq: number }).seq === 1,
    );
    expect((submitted?.data.execution as { executorId?: string }).executorId).toBe("chrome");
  });
});
