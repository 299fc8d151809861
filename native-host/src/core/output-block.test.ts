// Zero-setup mode in the pure core (docs/continuation-core.md, "Completion signal"): the completion signal policy
// (mcp | output_block | either) applied to complete / blocked / working / missing / malformed blocks, progress
// from a changed current:/next: hash, the pause after consecutive invalid blocks, and adopting an existing
// conversation.
import { describe, expect, it } from "vitest";
import type { ContinuationBlockReport } from "../../../shared/continuation-block-report.ts";
import type { PolicyPatch } from "../../../shared/continuation-policy.ts";
import {
  BLOCKED_FALLBACK_QUESTION,
  COMPLETE_UNCONFIRMED_QUESTION,
  INVALID_BLOCK_CODE,
} from "./output-block.ts";
import { dispositionOf } from "./policy.ts";
import { Simulation } from "./simulation.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const H1 = "1".repeat(64);
const H2 = "2".repeat(64);

const block = (
  status: "working" | "complete" | "blocked",
  hash = H1,
  summary?: string,
): ContinuationBlockReport => ({
  result: "block",
  status,
  progressHash: hash,
  ...(summary ? { summary } : {}),
});
const MISSING: ContinuationBlockReport = { result: "missing" };
const MALFORMED: ContinuationBlockReport = { result: "malformed" };

type Signal = "mcp" | "output_block" | "either";

/** A worker in auto mode with the given signal policy, its bootstrap turn generating. */
function start(completionSignal: Signal, extra: PolicyPatch = {}): { sim: Simulation; seq: number } {
  const sim = new Simulation();
  sim.apply({
    type: "run.create",
    runId: "run-1",
    name: "Run",
    policy: { mode: "auto", completionSignal, ...extra },
  });
  sim.apply({ type: "worker.spawn", runId: "run-1", workerId: "w-1", path: "/root", objective: "x" });
  sim.result("w-1");
  sim.apply({ type: "conversation.observed", workerId: "w-1", state: "generating", seq: 1 });
  return { sim, seq: 1 };
}

/** Ends the current turn with the given block, lets the idle grace pass, and starts the next turn if any. */
function turn(ctx: { sim: Simulation; seq: number }, report: ContinuationBlockReport): void {
  const { sim } = ctx;
  sim.apply({
    type: "conversation.observed",
    workerId: "w-1",
    state: "idle",
    seq: ++ctx.seq,
    continuationBlock: report,
  });
  deliverNext(ctx);
}

/** Lets the idle grace pass and starts the next turn if one was scheduled. */
function deliverNext(ctx: { sim: Simulation; seq: number }): void {
  const { sim } = ctx;
  sim.advance(3 * SECOND);
  const current = sim.worker("w-1").current;
  if (current?.state === "scheduled") {
    sim.result("w-1");
    sim.apply({ type: "conversation.observed", workerId: "w-1", state: "generating", seq: ++ctx.seq });
  }
}

describe("completion signal policy", () => {
  it.each<Signal>(["output_block", "either"])(
    "%s: complete completes the worker, no further turn",
    (signal) => {
      const ctx = start(signal);
      turn(ctx, block("complete"));
      const w = ctx.sim.worker("w-1");
      expect(w.status).toBe("completed");
      expect(w.current?.state).toBe("completed");
      ctx.sim.advance(30 * MINUTE);
      expect(ctx.sim.commandsFor("w-1")).toHaveLength(1);
    },
  );

  it.each<Signal>(["output_block", "either"])(
    "%s: blocked → awaiting human with the block's summary as the question, no further turn",
    (signal) => {
      const ctx = start(signal);
      turn(ctx, block("blocked", H1, "Which database should I use?"));
      const w = ctx.sim.worker("w-1");
      expect(dispositionOf(w)).toBe("awaiting_human");
      expect(w.wait).toMatchObject({ kind: "human", question: "Which database should I use?" });
      expect(w.current?.state).toBe("blocked");
      ctx.sim.advance(30 * MINUTE);
      expect(ctx.sim.commandsFor("w-1")).toHaveLength(1);
      // The person's answer is the next turn.
      ctx.sim.apply({ type: "human.resolve", workerId: "w-1", answer: "SQLite" });
      expect(ctx.sim.commandsFor("w-1")).toHaveLength(2);
    },
  );

  it("blocked without a summary asks a fixed question", () => {
    const ctx = start("output_block");
    turn(ctx, block("blocked"));
    expect(ctx.sim.worker("w-1").wait).toMatchObject({ question: BLOCKED_FALLBACK_QUESTION });
  });

  it.each<Signal>(["mcp", "output_block", "either"])("%s: working keeps the worker eligible", (signal) => {
    const ctx = start(signal);
    turn(ctx, block("working"));
    expect(ctx.sim.worker("w-1").status).toBe("active");
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(2);
    expect(ctx.sim.worker("w-1").conversation.reportedStatus).toBe("working");
  });

  it("mcp: complete and blocked are honoured by asking a person; only worker tools end the worker", () => {
    const ctx = start("mcp");
    turn(ctx, block("complete"));
    // Complete cannot end it (its durable state does not say so), and it is not prompted again either.
    expect(ctx.sim.worker("w-1").status).toBe("active");
    expect(ctx.sim.worker("w-1").conversation.reportedStatus).toBe("complete");
    expect(ctx.sim.worker("w-1").wait).toMatchObject({
      kind: "human",
      question: COMPLETE_UNCONFIRMED_QUESTION,
    });
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(1);
    ctx.sim.apply({ type: "human.resolve", workerId: "w-1", answer: "not yet: add tests" });
    deliverNext(ctx);
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(2);
    turn(ctx, block("blocked", H2, "help"));
    expect(dispositionOf(ctx.sim.worker("w-1"))).toBe("awaiting_human");
    expect(ctx.sim.worker("w-1").wait).toMatchObject({ question: "help" });
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(2);
    ctx.sim.apply({ type: "human.resolve", workerId: "w-1" });
    deliverNext(ctx);
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(3);
    // Working is eligible for continuation as usual.
    turn(ctx, block("working", H1));
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(4);
    // And missing or malformed blocks never pause an MCP worker.
    for (let i = 0; i < 5; i++) turn(ctx, i % 2 ? MISSING : MALFORMED);
    expect(ctx.sim.worker("w-1").pause).toBeUndefined();
    expect(ctx.sim.worker("w-1").outputBlock).toBeUndefined();
  });

  it.each<[Signal, ContinuationBlockReport]>([
    ["output_block", MISSING],
    ["output_block", MALFORMED],
    ["either", MISSING],
    ["either", MALFORMED],
  ])("%s, %o: fails safe — stays active, counts as no progress, pauses after the limit", (signal, bad) => {
    const ctx = start(signal, { pauseAfterInvalidBlocks: 3 });
    turn(ctx, bad);
    let w = ctx.sim.worker("w-1");
    expect(w.status).toBe("active");
    expect(w.stall.noProgressAttempts).toBe(1);
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(2);
    turn(ctx, bad);
    turn(ctx, bad);
    w = ctx.sim.worker("w-1");
    expect(w.pause).toMatchObject({ source: "error", errorCode: INVALID_BLOCK_CODE });
    expect(w.pause?.reason).toContain(
      `3 responses in a row ended without a valid continuation-state block (last: ${bad.result})`,
    );
    expect(w.stall.noProgressAttempts).toBe(3);
    ctx.sim.advance(30 * MINUTE);
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(3);
    // Resume gives a fresh allowance.
    ctx.sim.apply({ type: "worker.resume", workerId: "w-1" });
    expect(ctx.sim.commandsFor("w-1")).toHaveLength(4);
  });

  it("a valid block between invalid ones resets the streak", () => {
    const ctx = start("output_block", { pauseAfterInvalidBlocks: 2 });
    turn(ctx, MISSING);
    turn(ctx, block("working"));
    turn(ctx, MALFORMED);
    expect(ctx.sim.worker("w-1").pause).toBeUndefined();
    turn(ctx, MALFORMED);
    expect(ctx.sim.worker("w-1").pause?.errorCode).toBe(INVALID_BLOCK_CODE);
  });

  it("either: a turn with progress through the worker tools needs no block", () => {
    const ctx = start("either", { pauseAfterInvalidBlocks: 1 });
    ctx.sim.apply({ type: "worker.progress", workerId: "w-1" });
    turn(ctx, MISSING);
    expect(ctx.sim.worker("w-1").pause).toBeUndefined();
    turn(ctx, MISSING);
    expect(ctx.sim.worker("w-1").pause?.errorCode).toBe(INVALID_BLOCK_CODE);
  });

  it("a changed current:/next: hash is progress; the same hash again is not", () => {
    const ctx = start("output_block", { pauseAfterInvalidBlocks: null });
    turn(ctx, block("working", H1));
    expect(ctx.sim.worker("w-1").stall).toMatchObject({ noProgressAttempts: 0, progressCursor: 1 });
    turn(ctx, block("working", H1));
    turn(ctx, block("working", H1));
    expect(ctx.sim.worker("w-1").stall).toMatchObject({ noProgressAttempts: 2, progressCursor: 1 });
    turn(ctx, block("working", H2));
    expect(ctx.sim.worker("w-1").stall).toMatchObject({ noProgressAttempts: 0, progressCursor: 2 });
    expect(JSON.stringify(ctx.sim.worker("w-1").outputBlock)).toBe(
      JSON.stringify({ invalidStreak: 0, progressHash: H2 }),
    );
  });

  it("repeating the same hash hits the stall guard like any turn without progress", () => {
    const ctx = start("output_block", { stallPauseAfterNoProgressAttempts: 3 });
    for (let i = 0; i < 4; i++) turn(ctx, block("working", H1));
    expect(ctx.sim.worker("w-1").pause?.source).toBe("stall");
  });

  it("a block on a turn the person typed counts too; a report without a block changes nothing", () => {
    const ctx = start("output_block");
    ctx.sim.apply({ type: "worker.pause", workerId: "w-1" });
    turn(ctx, block("working"));
    // The person types in the tab: generating then idle with a complete block.
    ctx.sim.apply({ type: "conversation.observed", workerId: "w-1", state: "generating", seq: ++ctx.seq });
    ctx.sim.apply({ type: "conversation.observed", workerId: "w-1", state: "idle", seq: ++ctx.seq });
    expect(ctx.sim.worker("w-1").outputBlock?.invalidStreak).toBe(0);
    ctx.sim.apply({ type: "conversation.observed", workerId: "w-1", state: "generating", seq: ++ctx.seq });
    ctx.sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "idle",
      seq: ++ctx.seq,
      continuationBlock: block("complete", H2),
    });
    expect(ctx.sim.worker("w-1").status).toBe("completed");
  });
});

describe("adopting a conversation", () => {
  const URL = "https://chatgpt.com/c/6a1f0c2e-1111-4222-8333-944455556666";

  function adopt(sim: Simulation, workerId: string, runId = "run-a", newRun = true) {
    return sim.try({
      type: "worker.adopt",
      workerId,
      runId,
      conversationUrl: URL,
      ...(newRun ? { newRun: { name: "Adopted" } } : {}),
    });
  }

  it("binds the existing conversation, sends the bootstrap into it once its state is known, Auto Resume on", () => {
    const sim = new Simulation();
    expect(adopt(sim, "w-a").error).toBeUndefined();
    const w = sim.worker("w-a");
    expect(w).toMatchObject({
      path: "/root",
      adoptedAt: sim.now,
      policyOverride: { mode: "auto", completionSignal: "output_block" },
    });
    expect(w.conversation).toMatchObject({ binding: "bound", url: URL });
    expect(sim.commandsFor("w-a")).toHaveLength(0);
    sim.apply({
      type: "conversation.observed",
      workerId: "w-a",
      state: "idle",
      seq: 1,
      continuationBlock: block("complete"),
    });
    expect(sim.worker("w-a").status).toBe("active"); // a block from before the adoption decides nothing
    const [first] = sim.commandsFor("w-a");
    expect(first).toMatchObject({ type: "conversation.send", conversationUrl: URL });
    expect(first?.prompt).toMatchObject({
      kind: "bootstrap",
      reason: "initial",
      promptId: "adopt-bootstrap@1",
    });
    sim.result("w-a");
    sim.apply({ type: "conversation.observed", workerId: "w-a", state: "generating", seq: 2 });
    sim.apply({
      type: "conversation.observed",
      workerId: "w-a",
      state: "idle",
      seq: 3,
      continuationBlock: block("working"),
    });
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-a")[1]?.prompt).toMatchObject({
      reason: "auto_resume",
      promptId: "block-resume@1",
    });
  });

  it("refuses a conversation already kept going, allows it again once that worker ended", () => {
    const sim = new Simulation();
    adopt(sim, "w-a");
    const before = sim.state;
    const again = adopt(sim, "w-b", "run-b");
    expect(again.error?.code).toBe("CONFLICT");
    expect(again.error?.message).toContain("/root (w-a)");
    expect(sim.state).toBe(before);
    sim.apply({ type: "worker.stop", workerId: "w-a", reason: "released" });
    expect(adopt(sim, "w-b", "run-b").error).toBeUndefined();
  });

  it("joins a chosen run under its /root", () => {
    const sim = new Simulation();
    sim.start();
    expect(adopt(sim, "w-b", "run-1", false).error).toBeUndefined();
    expect(sim.worker("w-b")).toMatchObject({
      path: "/root/conversation-6a1f0c2e",
      parentId: "w-1",
      runId: "run-1",
    });
  });

  it("refuses what is not a chatgpt.com conversation, an unknown run and a run id that exists", () => {
    const sim = new Simulation();
    for (const conversationUrl of [
      "https://example.com/c/6a1f0c2e-1111-4222-8333-944455556666",
      "https://chatgpt.com/",
      "nope",
    ]) {
      expect(
        sim.try({ type: "worker.adopt", workerId: "w", runId: "r", conversationUrl, newRun: { name: "x" } })
          .error?.code,
      ).toBe("INVALID_INPUT");
    }
    expect(adopt(sim, "w", "missing", false).error?.code).toBe("NOT_FOUND");
    sim.apply({ type: "run.create", runId: "run-x", name: "X" });
    expect(adopt(sim, "w", "run-x", true).error?.code).toBe("CONFLICT");
    expect(sim.state.workers).toEqual({});
  });
});
