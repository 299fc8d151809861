// Every way a worker used to hang under a label that said nothing was wrong, replayed on the simulated clock: each
// test failed on the core before the liveness work (docs/continuation-core.md, "Liveness").
import { describe, expect, it } from "vitest";
import { CONNECTED_ENV, type LivenessEnv, workerLiveness } from "./liveness.ts";
import { RATE_LIMIT_STEPS_MS } from "./backoff.ts";
import { Simulation } from "./simulation.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

function live(sim: Simulation, id = "w-1", env: LivenessEnv = CONNECTED_ENV) {
  return workerLiveness(sim.state, sim.worker(id), sim.now, env);
}

/**
 * An adopted conversation (its worker's policy auto inside a manual run, as "Keep this conversation going" makes it)
 * whose bootstrap turn went out and is generating.
 */
function adoptedAndGenerating(): Simulation {
  const sim = new Simulation();
  sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "manual" } });
  sim.apply({
    type: "worker.adopt",
    workerId: "w-1",
    runId: "run-1",
    conversationUrl: "https://chatgpt.com/c/0b0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
  });
  sim.observe("w-1", "idle");
  sim.advance(3 * SECOND);
  sim.result("w-1");
  sim.observe("w-1", "generating");
  return sim;
}

/** A worker whose turn just ended idle and whose next turn went out and is generating. */
function idleAfterTurn(sim: Simulation): void {
  sim.observe("w-1", "idle");
}

describe("refused commands are retried, never left waiting for a change that cannot come", () => {
  it("no browser at spawn: the create refused DEADLINE_EXCEEDED is due again in 5 s, and shows why meanwhile", () => {
    const sim = new Simulation();
    sim.spawn();
    sim.result("w-1", "DEADLINE_EXCEEDED");
    expect(live(sim)).toMatchObject({ state: "due", reason: "retry_backoff", until: sim.now + 5 * SECOND });
    const offline: LivenessEnv = { browser: { connected: false, since: 5 }, dispatch: () => undefined };
    expect(live(sim, "w-1", offline)).toMatchObject({
      state: "held",
      reason: "browser_not_connected",
      since: 5,
    });
    sim.advance(5 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("a command queued for a tab slot shows its position", () => {
    const sim = new Simulation();
    sim.spawn();
    const queued: LivenessEnv = {
      browser: { connected: true, since: 0 },
      dispatch: () => ({ kind: "queued", position: 2, since: 7 }),
    };
    expect(live(sim, "w-1", queued)).toMatchObject({
      state: "held",
      reason: "tab_slot",
      detail: { position: 2 },
    });
  });

  it("a refused steer does not overwrite an idle wake that came meanwhile: one turn after the grace", () => {
    const sim = new Simulation();
    sim.start();
    sim.advance(16 * MINUTE);
    // A message wakes the worker; past the floor it may steer into the running turn.
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "news" });
    expect(sim.commandsFor("w-1").at(-1)?.type).toBe("conversation.steer");
    // The turn ends before the executor answers the steer; then the steer is refused (the page cannot steer).
    idleAfterTurn(sim);
    sim.result("w-1", "STEERING_UNAVAILABLE");
    sim.advance(3 * SECOND);
    const sent = sim.commandsFor("w-1");
    expect(sent).toHaveLength(3);
    expect(sent.at(-1)?.type).toBe("conversation.send");
    expect(sent.at(-1)?.prompt.wakeReasons).toEqual(expect.arrayContaining(["event:message.sent", "idle"]));
  });
});

describe("page errors are held with their code, and Continue now makes exactly one attempt", () => {
  it("'Something went wrong' holds the worker; Continue now sends one turn into the page", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "error", "RESPONSE_FAILED");
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(live(sim)).toMatchObject({
      state: "held",
      reason: "page_error",
      detail: { code: "RESPONSE_FAILED" },
      needsYou: true,
      remedy: { action: "continue_now" },
    });
    sim.apply({ type: "worker.continue_now", workerId: "w-1" });
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(sim.commandsFor("w-1").at(-1)?.type).toBe("conversation.send");
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it.each([
    ["NOT_SIGNED_IN", "signed_out"],
    ["HUMAN_VERIFICATION", "human_verification"],
    ["CONVERSATION_TOO_LONG", "conversation_too_long"],
    ["AWAITING_APPROVAL", "approval"],
  ])("%s: held as %s, and Continue now says why it cannot instead of doing nothing", (code, reason) => {
    const sim = new Simulation();
    sim.start();
    // Without automatic rollover (docs/continuation-core.md, "Rollover"), a too-long conversation is held too.
    sim.apply({ type: "worker.set_policy", workerId: "w-1", patch: { rolloverOnLimit: false } });
    sim.observe("w-1", "error", code);
    expect(live(sim)).toMatchObject({ state: "held", reason, needsYou: true });
    const refused = sim.try({ type: "worker.continue_now", workerId: "w-1" });
    expect(refused.error?.code).toBe("CONVERSATION_BLOCKED");
    expect(sim.commandsFor("w-1")).toHaveLength(1);
  });

  it("an adopted conversation before its page reported is waiting for the page, not needing a person", () => {
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "manual" } });
    sim.apply({
      type: "worker.adopt",
      workerId: "w-1",
      runId: "run-1",
      conversationUrl: "https://chatgpt.com/c/0b0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
    });
    expect(live(sim)).toMatchObject({ state: "held", reason: "page_loading", needsYou: false });
  });

  it("a conversation whose tab is lost: Continue now refuses with the remedy", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "unavailable" });
    expect(live(sim)).toMatchObject({ state: "held", reason: "tab_unavailable" });
    expect(sim.try({ type: "worker.continue_now", workerId: "w-1" }).error?.code).toBe(
      "CONVERSATION_UNAVAILABLE",
    );
  });
});

describe("rate limits", () => {
  it("with a reset time: held until reset + buffer, exactly one resume after it, even if the notice goes away", () => {
    const sim = new Simulation();
    sim.start();
    const resetAt = sim.now + 40 * MINUTE;
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "error",
      errorCode: "USAGE_CAP",
      seq: 50,
      resetAt,
    });
    expect(live(sim)).toMatchObject({ state: "due", reason: "rate_limited", until: resetAt + 2 * MINUTE });
    // The notice disappears: the idle page must not be prompted 3 s later.
    sim.apply({ type: "conversation.observed", workerId: "w-1", state: "idle", seq: 51 });
    sim.advance(42 * MINUTE - 1);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.advance(1);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    sim.advance(60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("without a time: one prompt per backoff step (2, 5, 15, 30, 30 min), never more", () => {
    const sim = new Simulation();
    sim.start();
    let seq = 100;
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "error",
      errorCode: "RATE_LIMITED",
      seq,
    });
    const times: number[] = [];
    const start = sim.now;
    for (let step = 0; step < 5; step++) {
      const before = sim.commandsFor("w-1").length;
      // The notice comes and goes; the page is idle now and then.
      sim.apply({ type: "conversation.observed", workerId: "w-1", state: "idle", seq: ++seq });
      sim.advance(RATE_LIMIT_STEPS_MS[Math.min(step, 3)]! - 1);
      expect(sim.commandsFor("w-1")).toHaveLength(before);
      sim.advance(1);
      expect(sim.commandsFor("w-1")).toHaveLength(before + 1);
      times.push(sim.now - start);
      // The prompt at the step's end is refused: still limited.
      sim.result("w-1", "RATE_LIMITED");
    }
    expect(times.map((t) => t / MINUTE)).toEqual([2, 7, 22, 52, 82]);
  });

  it("Continue now overrides the limit once, at once", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "error", "RATE_LIMITED");
    sim.apply({ type: "worker.continue_now", workerId: "w-1" });
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    // Refused again: the override is used up, the next step waits.
    sim.result("w-1", "RATE_LIMITED");
    sim.advance(4 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(live(sim)).toMatchObject({ state: "due", reason: "rate_limited" });
  });

  it("a turn that generates ends the limit", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "error", "RATE_LIMITED");
    sim.advance(2 * MINUTE);
    sim.result("w-1");
    sim.observe("w-1", "generating");
    expect(sim.worker("w-1").rateLimit).toBeUndefined();
    expect(live(sim)).toMatchObject({ state: "moving", reason: "generating" });
  });
});

describe("long turns", () => {
  it("a turn generating for 90 minutes without progress is never stall-paused mid-turn; the decision comes at its end", () => {
    const sim = new Simulation();
    sim.start();
    sim.advance(90 * MINUTE);
    expect(sim.worker("w-1").pause).toBeUndefined();
    expect(live(sim)).toMatchObject({ state: "moving", reason: "generating" });
    sim.observe("w-1", "idle");
    expect(sim.worker("w-1").pause?.source).toBe("stall");
  });

  it("an adopted conversation whose long turn ends with new block progress is not stalled", () => {
    const sim = adoptedAndGenerating();
    sim.advance(75 * MINUTE);
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "idle",
      seq: 99,
      continuationBlock: { result: "block", status: "working", progressHash: "a".repeat(64) },
    });
    expect(sim.worker("w-1").pause).toBeUndefined();
  });

  it("a keepalive steer the page refuses is not a turn", () => {
    const sim = new Simulation();
    sim.start();
    expect(sim.worker("w-1").turns).toBe(1);
    sim.advance(22 * MINUTE);
    expect(sim.commandsFor("w-1").at(-1)?.type).toBe("conversation.steer");
    sim.result("w-1", "STEERING_UNAVAILABLE");
    expect(sim.worker("w-1").attemptCount).toBe(2);
    expect(sim.worker("w-1").turns).toBe(1);
    // The keepalive waits for the turn's end and goes out as the next turn.
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    sim.result("w-1");
    expect(sim.worker("w-1").turns).toBe(2);
  });
});

describe("controls that mean what they say", () => {
  it("global Auto Resume Off holds an adopted conversation (policy auto inside a manual run) and withdraws its scheduled turn", () => {
    const sim = adoptedAndGenerating();
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    const scheduled = sim.worker("w-1").current;
    expect(scheduled?.state).toBe("scheduled");
    sim.apply({ type: "auto_resume.set", enabled: false });
    expect(sim.cancelled).toContain(scheduled?.commandId);
    sim.result("w-1", "CANCELLED");
    sim.advance(2 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(live(sim)).toMatchObject({ state: "held", reason: "auto_resume_off" });
    // On: the worker's own policy (auto) governs again; one turn goes out.
    sim.apply({ type: "auto_resume.set", enabled: true });
    sim.advance(10 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(3);
  });

  it("Pause withdraws a scheduled turn that has not reached the page", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    const scheduled = sim.worker("w-1").current;
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    expect(sim.cancelled).toEqual([scheduled?.commandId]);
    sim.result("w-1", "CANCELLED");
    sim.advance(60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(live(sim)).toMatchObject({ state: "held", reason: "paused", remedy: { action: "resume" } });
  });

  it("a Waiting worker says which workers it waits for, and Resume releases it", () => {
    const sim = new Simulation();
    sim.start({ workerId: "root", path: "/root" });
    sim.start({ workerId: "api", path: "/root/api" });
    sim.apply({
      type: "worker.await_dependency",
      workerId: "root",
      condition: "api done",
      onWorkerIds: ["api"],
    });
    expect(live(sim, "root")).toMatchObject({
      state: "held",
      reason: "waiting_for_workers",
      detail: { workerIds: ["api"], workerPaths: ["/root/api"] },
      remedy: { action: "release" },
    });
    sim.apply({ type: "worker.resume", workerId: "root" });
    expect(sim.worker("root").wait).toBeUndefined();
  });

  it("Stop run records only run.stopped", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "run.stop", runId: "run-1" });
    const runEvents = sim.events.filter((e) => e.type.startsWith("run.") && e.type !== "run.created");
    expect(runEvents.map((e) => e.type)).toEqual(["run.stopped"]);
  });

  it("a cap on automatic turns holds with 'cap reached'; Continue anyway allows another round", () => {
    const sim = new Simulation();
    sim.spawn({ policy: { maxAutoTurns: 2 } });
    sim.result("w-1");
    for (let i = 0; i < 2; i++) {
      sim.observe("w-1", "generating");
      sim.observe("w-1", "idle");
      sim.advance(3 * SECOND);
      sim.result("w-1");
    }
    sim.observe("w-1", "generating");
    sim.observe("w-1", "idle");
    sim.advance(10 * MINUTE);
    expect(sim.worker("w-1").autoResumes).toBe(2);
    expect(live(sim)).toMatchObject({
      state: "held",
      reason: "cap_reached",
      remedy: { action: "continue_anyway" },
    });
    sim.apply({ type: "worker.continue_now", workerId: "w-1", clearPause: true });
    expect(sim.commandsFor("w-1")).toHaveLength(4);
  });

  it("a wall-time cap holds at a turn boundary", () => {
    const sim = new Simulation();
    sim.spawn({ policy: { maxWallTimeMs: 30 * MINUTE } });
    sim.result("w-1");
    sim.observe("w-1", "generating");
    sim.advance(40 * MINUTE);
    expect(sim.worker("w-1").pause).toBeUndefined();
    sim.observe("w-1", "idle");
    expect(sim.worker("w-1").pause?.source).toBe("cap");
  });

  it("Continue anyway releases a time-based stall pause and is not re-paused on the spot", () => {
    const sim = new Simulation();
    sim.start();
    sim.advance(61 * MINUTE);
    sim.observe("w-1", "idle");
    expect(live(sim)).toMatchObject({ state: "held", reason: "stalled" });
    sim.apply({ type: "worker.continue_now", workerId: "w-1", clearPause: true });
    expect(sim.worker("w-1").pause).toBeUndefined();
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    sim.advance(SECOND);
    expect(sim.worker("w-1").pause).toBeUndefined();
  });

  it("under the default completion signal a 'blocked' block holds for a person instead of re-prompting", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "idle",
      seq: 10,
      continuationBlock: {
        result: "block",
        status: "blocked",
        progressHash: "b".repeat(64),
        summary: "need a key",
      },
    });
    sim.advance(10 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(live(sim)).toMatchObject({ state: "held", reason: "question" });
  });
});
