// Conversation rollover on the simulated clock (docs/continuation-core.md, "Rollover"): each trigger, the brief, the
// move as one create attempt, and the decision order against completion, pause, Needs you and the anti-spam floor.
import { describe, expect, it } from "vitest";
import type { PolicyPatch } from "../../../shared/continuation-policy.ts";
import { pendingCommands } from "./commands.ts";
import type { ExecutorCommand } from "./effects.ts";
import { Simulation } from "./simulation.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const OLD_URL = "https://chatgpt.com/c/11111111-1111-4111-8111-111111111111";
const NEW_URL = "https://chatgpt.com/c/22222222-2222-4222-8222-222222222222";
const TOO_LONG = "CONVERSATION_TOO_LONG";

/** A worker whose bootstrap went out into OLD_URL and is generating, with `policy` on its run. */
function generating(policy: PolicyPatch = {}, startUrl?: string): Simulation {
  const sim = new Simulation();
  sim.spawn({ policy: { idleGraceMs: 3 * SECOND, ...policy }, ...(startUrl ? { startUrl } : {}) });
  submit(sim, OLD_URL);
  sim.observe("w-1", "generating");
  return sim;
}

/** The executor confirms the worker's current command, the page now showing `url`. */
function submit(sim: Simulation, url: string): void {
  const attempt = sim.worker("w-1").current!;
  sim.apply({
    type: "command.result",
    workerId: "w-1",
    commandId: attempt.commandId,
    outcome: "submitted",
    url,
  });
}

function last(sim: Simulation): ExecutorCommand {
  const all = sim.commandsFor("w-1");
  return all[all.length - 1]!;
}

function rolledOver(sim: Simulation) {
  return sim.events.filter((e) => e.type === "worker.rolled_over");
}

describe("the length-limit notice", () => {
  it("an Auto Resume worker moves on by itself: one create with a composed brief, then rebound to the new conversation", () => {
    const sim = generating();
    sim.observe("w-1", "error", TOO_LONG);
    const create = last(sim);
    expect(create.type).toBe("conversation.create");
    expect(create.conversationUrl).toBeUndefined(); // a plain new chat, never the old conversation
    expect(create.prompt).toMatchObject({ kind: "rollover", reason: "rollover" });
    expect(create.rendered.promptId).toBe("rollover@1");
    expect(create.rendered.text).toContain('workerId "w-1"');
    expect(create.rendered.text).toContain("composed by the orchestrator");
    expect(create.rendered.text).toContain("reached ChatGPT's length limit");
    expect(sim.worker("w-1").rollover).toMatchObject({
      trigger: "length_limit",
      phase: "opening",
      fromUrl: OLD_URL,
    });

    submit(sim, NEW_URL);
    const w = sim.worker("w-1");
    expect(w.rollover).toBeUndefined();
    expect(w.conversation).toMatchObject({ url: NEW_URL, binding: "bound", state: "unknown" });
    expect(w.conversation.errorCode).toBeUndefined();
    expect(w.pastConversations).toEqual([
      expect.objectContaining({ url: OLD_URL, trigger: "length_limit", turns: 1, briefSource: "composed" }),
    ]);
    expect(rolledOver(sim)).toHaveLength(1);
    expect(rolledOver(sim)[0]!.data).toMatchObject({ from: OLD_URL, to: NEW_URL, conversation: 2 });

    // Life goes on in the new conversation: its turn ends, the next resume is a send there.
    sim.observe("w-1", "generating");
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(last(sim)).toMatchObject({ type: "conversation.send", conversationUrl: NEW_URL });
    expect(sim.commandsFor("w-1").filter((c) => c.type === "conversation.create")).toHaveLength(2);
    expect(rolledOver(sim)).toHaveLength(1);
  });

  it("opens the new conversation where the old one was: the worker's GPT or project page", () => {
    const project = "https://chatgpt.com/g/g-p-0123456789abcdef-billing/project";
    const sim = generating({}, project);
    sim.observe("w-1", "error", TOO_LONG);
    expect(last(sim)).toMatchObject({ type: "conversation.create", conversationUrl: project });
  });

  it("an adopted (zero-setup) worker moves with the block prompts, still named by its id", () => {
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "manual" } });
    sim.apply({ type: "worker.adopt", workerId: "w-1", runId: "run-1", conversationUrl: OLD_URL });
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    submit(sim, OLD_URL);
    sim.observe("w-1", "generating");
    sim.observe("w-1", "error", TOO_LONG);
    const create = last(sim);
    expect(create).toMatchObject({ type: "conversation.create", rendered: { promptId: "block-rollover@1" } });
    expect(create.rendered.text).toContain('workerId "w-1"');
    expect(create.rendered.text).toContain("status: working | complete | blocked");
  });

  it("a command refused for the limit starts the move too", () => {
    const sim = generating();
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(last(sim).type).toBe("conversation.send");
    sim.result("w-1", TOO_LONG);
    expect(last(sim)).toMatchObject({ type: "conversation.create", prompt: { kind: "rollover" } });
  });

  it("is held with its remedy when the worker is manual or rolloverOnLimit is off", () => {
    for (const policy of [{ mode: "manual" as const }, { rolloverOnLimit: false }]) {
      const sim = generating(policy);
      const before = sim.commandsFor("w-1").length;
      sim.observe("w-1", "error", TOO_LONG);
      sim.advance(30 * MINUTE);
      expect(sim.worker("w-1").rollover).toBeUndefined();
      expect(sim.commandsFor("w-1")).toHaveLength(before);
      // The operator's remedy: Continue in a new conversation, with a composed brief (the page cannot answer).
      sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
      expect(last(sim)).toMatchObject({ type: "conversation.create", prompt: { kind: "rollover" } });
    }
  });
});

describe("asking for the brief", () => {
  function idleWorker(policy: PolicyPatch = {}): Simulation {
    const sim = generating(policy);
    sim.observe("w-1", "idle");
    return sim;
  }

  it("the operator's request asks once in the old conversation; the page's block becomes the first prompt's brief", () => {
    const sim = idleWorker({ mode: "manual" });
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator", reason: "too slow" });
    sim.advance(3 * SECOND); // the idle grace of the turn that just ended
    const handoff = last(sim);
    expect(handoff).toMatchObject({
      type: "conversation.send",
      conversationUrl: OLD_URL,
      prompt: { kind: "handoff" },
    });
    expect(handoff.rendered.text).toContain("BEGIN HANDOFF BRIEF");
    expect(handoff.rendered.text).toContain("worker_rollover");
    submit(sim, OLD_URL);
    sim.observe("w-1", "generating");
    const brief = "done: parser\nnext steps: wire the CLI";
    sim.observe("w-1", "idle", undefined, { handoffBrief: brief, visibleChars: 91_000 });
    expect(sim.state.briefs?.["w-1"]).toBe(brief);
    sim.advance(3 * SECOND);
    const create = last(sim);
    expect(create.type).toBe("conversation.create");
    expect(create.rendered.text).toContain(brief);
    expect(create.rendered.text).toContain("the operator asked for a new conversation");
    submit(sim, NEW_URL);
    expect(sim.worker("w-1").pastConversations).toEqual([
      expect.objectContaining({
        trigger: "operator",
        note: "too slow",
        turns: 2,
        visibleChars: 91_000,
        briefSource: "page",
        briefChars: brief.length,
      }),
    ]);
    // The brief is gone from memory once its prompt is submitted; it was never part of the durable records.
    expect(sim.state.briefs?.["w-1"]).toBeUndefined();
    expect(JSON.stringify(sim.state.workers)).not.toContain("wire the CLI");
    expect(JSON.stringify(sim.events)).not.toContain("wire the CLI");
  });

  it("a handoff turn that ends without a block gives way to a composed brief", () => {
    const sim = idleWorker();
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
    sim.advance(3 * SECOND);
    submit(sim, OLD_URL);
    sim.observe("w-1", "generating");
    sim.observe("w-1", "idle");
    expect(sim.worker("w-1").rollover).toMatchObject({ phase: "opening", briefSource: "composed" });
    sim.advance(3 * SECOND);
    expect(last(sim).rendered.text).toContain("composed by the orchestrator");
  });

  it("no answer in time: the host composes the brief, and the move waits for the running turn's end", () => {
    const sim = idleWorker();
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
    sim.advance(3 * SECOND);
    submit(sim, OLD_URL);
    sim.observe("w-1", "generating");
    expect(sim.timer).toBe(sim.worker("w-1").rollover!.briefDeadlineAt!);
    sim.advance(10 * MINUTE);
    expect(sim.worker("w-1").rollover).toMatchObject({ phase: "opening", briefSource: "composed" });
    expect(last(sim).type).toBe("conversation.send"); // still generating: nothing opened beside it
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(last(sim).type).toBe("conversation.create");
  });

  it("the agent's worker_rollover gives the brief at once; the move waits for its turn to end", () => {
    const sim = generating();
    const brief = "done: schema\nnext steps: migrations";
    sim.apply({
      type: "worker.rollover",
      workerId: "w-1",
      trigger: "agent",
      brief,
      reason: "context is long",
    });
    expect(sim.worker("w-1").rollover).toMatchObject({ phase: "opening", briefSource: "agent" });
    expect(last(sim).type).toBe("conversation.create"); // only the bootstrap so far
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(last(sim).rendered.text).toContain(brief);
    expect(last(sim).rendered.text).toContain("you (the worker) asked for a new conversation");
  });

  it("asked for before the first turn's page showed its /c/ URL: the conversation left is the one the page showed", () => {
    const sim = new Simulation();
    sim.spawn({ policy: { idleGraceMs: 3 * SECOND } });
    submit(sim, "https://chatgpt.com/"); // the new chat's page, before it moved to /c/<id>
    sim.observe("w-1", "generating");
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "agent", brief: "done: x" });
    sim.observe("w-1", "idle", undefined, { url: OLD_URL });
    sim.advance(3 * SECOND);
    expect(last(sim).type).toBe("conversation.create");
    // The new tab's own reports before the submission change nothing about the conversation left.
    sim.observe("w-1", "ready", undefined, { url: "https://chatgpt.com/" });
    submit(sim, NEW_URL);
    expect(sim.worker("w-1").pastConversations).toEqual([expect.objectContaining({ url: OLD_URL })]);
    expect(rolledOver(sim)[0]!.data).toMatchObject({ from: OLD_URL, to: NEW_URL });
  });

  it("the agent's brief answers a pending request; a second request changes nothing", () => {
    const sim = idleWorker();
    expect(sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" }).reply).toEqual({
      rollover: "started",
    });
    expect(sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" }).reply).toEqual({
      rollover: "already_under_way",
    });
    sim.advance(3 * SECOND);
    submit(sim, OLD_URL);
    sim.observe("w-1", "generating");
    const reply = sim.apply({
      type: "worker.rollover",
      workerId: "w-1",
      trigger: "agent",
      brief: "done: all but docs",
    });
    expect(reply.reply).toEqual({ rollover: "brief_received" });
    expect(sim.worker("w-1").rollover).toMatchObject({ phase: "opening", briefSource: "agent" });
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(last(sim).rendered.text).toContain("done: all but docs");
  });

  it("a brief that comes before the request went out withdraws the request", () => {
    const sim = idleWorker();
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
    sim.advance(3 * SECOND);
    const handoff = last(sim);
    expect(handoff.prompt.kind).toBe("handoff");
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "agent", brief: "done: early" });
    expect(sim.cancelled).toEqual([handoff.commandId]);
    sim.result("w-1", "CANCELLED");
    const create = last(sim);
    expect(create).toMatchObject({ type: "conversation.create", prompt: { kind: "rollover" } });
    expect(create.rendered.text).toContain("done: early");
  });

  it("refuses what cannot roll over: unknown or ended workers, an empty brief", () => {
    const sim = idleWorker();
    expect(sim.try({ type: "worker.rollover", workerId: "nope", trigger: "operator" }).error?.code).toBe(
      "NOT_FOUND",
    );
    expect(
      sim.try({ type: "worker.rollover", workerId: "w-1", trigger: "agent", brief: "  " }).error?.code,
    ).toBe("INVALID_INPUT");
    sim.apply({ type: "worker.complete", workerId: "w-1" });
    expect(sim.try({ type: "worker.rollover", workerId: "w-1", trigger: "operator" }).error?.code).toBe(
      "WORKER_TERMINAL",
    );
  });
});

describe("the size budget", () => {
  it("after the budgeted turns in one conversation, the worker is asked for its brief at a turn's end", () => {
    const sim = generating({ rolloverAfterTurns: 3 });
    for (let turn = 2; turn <= 3; turn++) {
      sim.observe("w-1", "idle");
      sim.advance(3 * SECOND);
      expect(last(sim).prompt.kind).toBe("resume");
      submit(sim, OLD_URL);
      sim.observe("w-1", "generating");
    }
    sim.observe("w-1", "idle");
    expect(sim.worker("w-1").rollover).toMatchObject({ trigger: "size_budget", phase: "brief_requested" });
    sim.advance(3 * SECOND);
    expect(last(sim).prompt.kind).toBe("handoff");
    submit(sim, OLD_URL);
    sim.observe("w-1", "generating");
    sim.observe("w-1", "idle", undefined, { handoffBrief: "done: a lot" });
    sim.advance(3 * SECOND);
    submit(sim, NEW_URL);
    // The budget counts turns of the current conversation only: the new one starts again from 1.
    sim.observe("w-1", "generating");
    sim.observe("w-1", "idle");
    expect(sim.worker("w-1").rollover).toBeUndefined();
    expect(sim.worker("w-1").pastConversations?.[0]).toMatchObject({
      turns: 4,
      note: "3 turns in this conversation",
    });
  });

  it("by the conversation's visible length, as the page measured it at a turn's end", () => {
    const sim = generating({ rolloverAtChars: 200_000 });
    sim.observe("w-1", "idle", undefined, { visibleChars: 150_000 });
    expect(sim.worker("w-1").rollover).toBeUndefined();
    sim.advance(3 * SECOND);
    submit(sim, OLD_URL);
    sim.observe("w-1", "generating");
    sim.observe("w-1", "idle", undefined, { visibleChars: 210_000 });
    expect(sim.worker("w-1").rollover).toMatchObject({
      trigger: "size_budget",
      note: "210000 characters in this conversation",
    });
  });
});

describe("decision order", () => {
  it("completion wins: a worker that completes during the handoff turn opens nothing", () => {
    const sim = generating();
    sim.observe("w-1", "idle");
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
    sim.advance(3 * SECOND);
    submit(sim, OLD_URL);
    sim.observe("w-1", "generating");
    sim.apply({ type: "worker.complete", workerId: "w-1", summary: "done" });
    sim.observe("w-1", "idle", undefined, { handoffBrief: "done: everything" });
    sim.advance(30 * MINUTE);
    expect(sim.worker("w-1").rollover).toBeUndefined();
    expect(sim.state.briefs?.["w-1"]).toBeUndefined();
    expect(sim.commandsFor("w-1").filter((c) => c.prompt.kind === "rollover")).toHaveLength(0);
  });

  it("a worker that completes while the move's create waits for its result still records the move", () => {
    const sim = generating();
    sim.observe("w-1", "error", TOO_LONG);
    expect(last(sim)).toMatchObject({ type: "conversation.create", prompt: { kind: "rollover" } });
    // The agent in the new conversation is quick: its worker_complete reaches the host before the browser's result.
    sim.apply({ type: "worker.complete", workerId: "w-1", summary: "done" });
    expect(sim.worker("w-1").rollover).toMatchObject({ phase: "opening" });
    submit(sim, NEW_URL);
    const w = sim.worker("w-1");
    expect(w.status).toBe("completed");
    expect(w.rollover).toBeUndefined();
    expect(w.conversation.url).toBe(NEW_URL);
    expect(w.pastConversations).toEqual([
      expect.objectContaining({ url: OLD_URL, trigger: "length_limit", briefSource: "composed" }),
    ]);
    expect(rolledOver(sim)).toHaveLength(1);
  });

  it("a worker that completes while the move's create waits drops the move if the create never went", () => {
    const sim = generating();
    sim.observe("w-1", "error", TOO_LONG);
    sim.apply({ type: "worker.complete", workerId: "w-1", summary: "done" });
    sim.result("w-1", "EXECUTOR_UNAVAILABLE");
    sim.advance(30 * MINUTE);
    const w = sim.worker("w-1");
    expect(w.rollover).toBeUndefined();
    expect(w.pastConversations ?? []).toEqual([]);
    expect(w.conversation.url).toBe(OLD_URL);
    expect(sim.commandsFor("w-1").filter((c) => c.prompt.kind === "rollover")).toHaveLength(1);
  });

  it("a pause holds the move until Resume; then exactly one create", () => {
    const sim = generating();
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    sim.observe("w-1", "error", TOO_LONG);
    sim.advance(30 * MINUTE);
    expect(sim.worker("w-1").rollover).toMatchObject({ phase: "opening" });
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.apply({ type: "worker.resume", workerId: "w-1" });
    expect(last(sim).prompt.kind).toBe("rollover");
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1").filter((c) => c.prompt.kind === "rollover")).toHaveLength(1);
  });

  it("Needs you holds it until the person answers, and the answer goes into the new conversation's first prompt", () => {
    const sim = generating();
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "choice", question: "Which DB?" });
    sim.observe("w-1", "error", TOO_LONG);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.apply({ type: "human.resolve", workerId: "w-1", answer: "Postgres" });
    expect(last(sim)).toMatchObject({ type: "conversation.create", prompt: { kind: "rollover" } });
    expect(last(sim).rendered.text).toContain("Postgres");
  });

  it("an automatic move keeps the anti-spam floor; the operator's passes it like Continue now", () => {
    const floor = { idleMayBypassMinSpacing: false, minContinuationSpacingMs: 15 * MINUTE };
    const auto = generating(floor);
    auto.observe("w-1", "error", TOO_LONG);
    expect(auto.commandsFor("w-1")).toHaveLength(1);
    auto.advance(14 * MINUTE);
    expect(auto.commandsFor("w-1")).toHaveLength(1);
    auto.advance(1 * MINUTE);
    expect(last(auto).prompt.kind).toBe("rollover");

    const operator = generating({ ...floor, rolloverOnLimit: false });
    operator.observe("w-1", "error", TOO_LONG);
    operator.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
    expect(last(operator).prompt.kind).toBe("rollover");
  });
});

describe("the old conversation's running turn", () => {
  it("a tool card waiting for a person holds the move: the turn is still ours", () => {
    const sim = generating({ rolloverOnLimit: false });
    sim.observe("w-1", "error", "AWAITING_APPROVAL");
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "agent", brief: "done: x" });
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(sim.worker("w-1").current?.state).toBe("generating");
    sim.observe("w-1", "generating");
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(last(sim).prompt.kind).toBe("rollover");
  });

  it("a turn whose tab is gone is recorded as left behind when the move is scheduled, never overwritten", () => {
    const sim = generating();
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "unavailable" });
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
    expect(last(sim).prompt.kind).toBe("rollover");
    const ended = sim.events.filter((e) => e.type === "execution.idle").map((e) => e.data.execution);
    expect(ended).toEqual([expect.objectContaining({ seq: 1, state: "idle", outcome: "conversation_left" })]);
  });
});

describe("the move is a command like any other", () => {
  it("a create proven not delivered is retried with backoff; one move in the end", () => {
    const sim = generating();
    sim.observe("w-1", "error", TOO_LONG);
    const first = last(sim);
    sim.result("w-1", "EXECUTOR_UNAVAILABLE");
    expect(sim.worker("w-1").rollover).toMatchObject({ phase: "opening" });
    sim.advance(5 * MINUTE);
    const retry = last(sim);
    expect(retry.type).toBe("conversation.create");
    expect(retry.commandId).not.toBe(first.commandId);
    submit(sim, NEW_URL);
    expect(rolledOver(sim)).toHaveLength(1);
  });

  it("an ambiguous create is never sent again by itself: the worker is held as delivery uncertain", () => {
    const sim = generating();
    sim.observe("w-1", "error", TOO_LONG);
    sim.result("w-1", "AMBIGUOUS_SUBMISSION");
    sim.advance(60 * MINUTE);
    expect(sim.commandsFor("w-1").filter((c) => c.prompt.kind === "rollover")).toHaveLength(1);
    expect(sim.worker("w-1").pause).toMatchObject({ source: "error", errorCode: "AMBIGUOUS_SUBMISSION" });
    expect(rolledOver(sim)).toHaveLength(0);
    // The person checked that no new conversation opened: Continue now (not refused for the old page's error) or
    // asking again opens it, once.
    sim.apply({ type: "worker.continue_now", workerId: "w-1", clearPause: true });
    expect(sim.commandsFor("w-1").filter((c) => c.prompt.kind === "rollover")).toHaveLength(2);
    submit(sim, NEW_URL);
    expect(rolledOver(sim)).toHaveLength(1);
  });

  it("asking again for a move under way in manual mode gives it a turn (after an uncertain create)", () => {
    const sim = generating({ mode: "manual" });
    sim.observe("w-1", "error", TOO_LONG);
    sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
    sim.result("w-1", "AMBIGUOUS_SUBMISSION");
    sim.apply({ type: "worker.resume", workerId: "w-1" });
    expect(sim.commandsFor("w-1").filter((c) => c.prompt.kind === "rollover")).toHaveLength(1);
    const again = sim.apply({ type: "worker.rollover", workerId: "w-1", trigger: "operator" });
    expect(again.reply).toEqual({ rollover: "already_under_way" });
    expect(sim.commandsFor("w-1").filter((c) => c.prompt.kind === "rollover")).toHaveLength(2);
  });

  it("a worker stopped while the create waits for its result has the command cancelled; the result decides the move", () => {
    for (const result of ["CANCELLED", "submitted"] as const) {
      const sim = generating();
      sim.observe("w-1", "error", TOO_LONG);
      const create = last(sim);
      sim.apply({ type: "worker.stop", workerId: "w-1" });
      expect(sim.cancelled).toContain(create.commandId);
      // A cancel that comes after the submission started is ignored by the executor, and the real result follows.
      if (result === "submitted") submit(sim, NEW_URL);
      else sim.result("w-1", result);
      sim.advance(SECOND);
      const w = sim.worker("w-1");
      expect(w.rollover).toBeUndefined();
      expect(w.conversation.url).toBe(result === "submitted" ? NEW_URL : OLD_URL);
      expect(w.pastConversations?.length ?? 0).toBe(result === "submitted" ? 1 : 0);
    }
  });

  it("after a restart the pending create is offered again under the same id; a brief lost with memory is composed", () => {
    const sim = generating();
    sim.apply({
      type: "worker.rollover",
      workerId: "w-1",
      trigger: "agent",
      brief: "done: secret-free brief",
    });
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    const sent = last(sim);
    expect(sent.rendered.text).toContain("secret-free brief");
    // A restart: the store gives back every record, but not the in-memory briefs.
    const { briefs: _lost, ...restored } = sim.state;
    const [offered] = pendingCommands(restored);
    expect(offered).toMatchObject({ commandId: sent.commandId, idempotencyKey: sent.idempotencyKey });
    expect(offered!.rendered.text).toContain("composed by the orchestrator");
  });
});
