// The continuation core against its documented details (docs/continuation-core.md): the policy defaults (and the
// stall thresholds at them), the keepalive jitter, the evaluation order with several conditions true at once, and
// each domain event type.
import { describe, expect, it } from "vitest";
import {
  type ContinuationPolicy,
  continuationPolicySchema,
  DEFAULT_CONTINUATION_POLICY,
} from "../../../shared/continuation-policy.ts";
import { type Decision, evaluateIntent } from "./evaluate.ts";
import type { DomainEvent, EventType } from "./events.ts";
import type { Intent, Run, Worker } from "./model.ts";
import { dispositionOf, effectivePolicy } from "./policy.ts";
import { seededRandom, Simulation } from "./simulation.ts";
import { transition } from "./transition.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** Ends the current turn and lets the idle grace pass (as in continuation.test.ts). */
function endTurn(sim: Simulation, workerId = "w-1"): void {
  sim.observe(workerId, "idle");
  sim.advance(3 * SECOND);
}

/** The events appended while `act` runs. */
function eventsDuring(sim: Simulation, act: () => unknown): DomainEvent[] {
  const before = sim.events.length;
  act();
  return sim.events.slice(before);
}

/** The one event of `type` among `events`; fails unless there is exactly one. */
function onlyEvent(events: readonly DomainEvent[], type: EventType): DomainEvent {
  const matching = events.filter((e) => e.type === type);
  expect(matching, `${type} events`).toHaveLength(1);
  return matching[0]!;
}

function runOf(sim: Simulation, runId = "run-1"): Run {
  const run = sim.state.runs[runId];
  if (!run) throw new Error(`no run ${runId}`);
  return run;
}

function policyFor(sim: Simulation, workerId = "w-1"): ContinuationPolicy {
  const w = sim.worker(workerId);
  return effectivePolicy(runOf(sim, w.runId), w);
}

// ---------------------------------------------------------------------------------------------------------------
// Policy defaults.

describe("default continuation policy", () => {
  it("every default equals the documented default (docs/continuation-core.md)", () => {
    expect(DEFAULT_CONTINUATION_POLICY).toEqual({
      mode: "manual",
      idleGraceMs: 3 * SECOND,
      activeKeepaliveMinMs: 20 * MINUTE,
      activeKeepaliveMaxMs: 21 * MINUTE,
      minContinuationSpacingMs: 15 * MINUTE,
      idleMayBypassMinSpacing: true,
      requireProgressHeartbeat: false,
      stallWarningAfterNoProgressAttempts: 10,
      stallPauseAfterNoProgressAttempts: 20,
      stallWarningAfterNoProgressMs: 30 * MINUTE,
      stallPauseAfterNoProgressMs: 60 * MINUTE,
      // Zero-setup mode's fields (docs/continuation-core.md, "Completion signal").
      completionSignal: "mcp",
      pauseAfterInvalidBlocks: 3,
      // Not in the recommended defaults either: optional caps (none by default) and the rate-limit buffer (docs/continuation-core.md).
      maxAutoTurns: null,
      maxWallTimeMs: null,
      rateLimitBufferMs: 2 * MINUTE,
      // Conversation rollover (docs/continuation-core.md, "Rollover"): on at the length limit, no size budget.
      rolloverOnLimit: true,
      rolloverAfterTurns: null,
      rolloverAtChars: null,
      rolloverBriefTimeoutMs: 10 * MINUTE,
    });
    expect(continuationPolicySchema.parse(DEFAULT_CONTINUATION_POLICY)).toEqual(DEFAULT_CONTINUATION_POLICY);
    // A run created without a policy gets exactly these defaults, and its workers inherit them.
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run" });
    sim.apply({ type: "worker.spawn", runId: "run-1", workerId: "w-1", path: "/root", objective: "x" });
    expect(runOf(sim).defaultPolicy).toEqual(DEFAULT_CONTINUATION_POLICY);
    expect(policyFor(sim)).toEqual(DEFAULT_CONTINUATION_POLICY);
  });

  it("with the default thresholds, warns at the 10th no-progress attempt and pauses at the 20th", () => {
    const sim = new Simulation();
    // Only Auto Resume is switched on; every stall threshold keeps its default.
    sim.start({ mode: "auto" });
    expect(policyFor(sim)).toEqual({ ...DEFAULT_CONTINUATION_POLICY, mode: "auto" });
    for (let n = 1; n <= 20; n++) {
      const events = eventsDuring(sim, () => endTurn(sim));
      const types = events.map((e) => e.type);
      expect(sim.worker("w-1").stall.noProgressAttempts).toBe(n);
      expect(types.filter((t) => t === "continuation.warning")).toHaveLength(n === 10 ? 1 : 0);
      expect(types.filter((t) => t === "execution.stalled")).toHaveLength(n === 20 ? 1 : 0);
      expect(types.filter((t) => t === "continuation.paused_for_stall")).toHaveLength(n === 20 ? 1 : 0);
      if (n === 10) {
        expect(onlyEvent(events, "continuation.warning").data).toMatchObject({ noProgressAttempts: 10 });
      }
      if (n === 20) {
        expect(onlyEvent(events, "execution.stalled").data).toMatchObject({ noProgressAttempts: 20 });
        break;
      }
      // Not yet paused: the next turn goes out and starts.
      expect(sim.worker("w-1").pause).toBeUndefined();
      expect(sim.worker("w-1").current?.state).toBe("scheduled");
      sim.result("w-1");
      sim.observe("w-1", "generating");
    }
    expect(sim.worker("w-1").pause?.source).toBe("stall");
    expect(sim.commandsFor("w-1")).toHaveLength(20);
    sim.advance(2 * 60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(20);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Keepalive jitter.

describe("keepalive jitter", () => {
  it("over 50 seeds, every deadline is 20–21 min after its submission, fires there, and they spread", () => {
    const offsets: number[] = [];
    for (let seed = 1; seed <= 50; seed++) {
      const sim = new Simulation(seed);
      sim.start();
      const w = sim.worker("w-1");
      const keepaliveAt = w.keepaliveAt ?? Number.NaN;
      offsets.push(keepaliveAt - (w.lastSubmittedAt ?? Number.NaN));
      // The deadline is the one the scheduler acts on: nothing before it, the keepalive steer at it.
      sim.advance(keepaliveAt - 1 - sim.now);
      expect(sim.commandsFor("w-1")).toHaveLength(1);
      sim.advance(1);
      expect(sim.commandsFor("w-1")[1]?.prompt.kind).toBe("keepalive");
      // The submission of that steer resets the deadline, again within the window.
      sim.result("w-1");
      const after = sim.worker("w-1");
      offsets.push((after.keepaliveAt ?? Number.NaN) - (after.lastSubmittedAt ?? Number.NaN));
    }
    for (const offset of offsets) {
      expect(offset).toBeGreaterThanOrEqual(20 * MINUTE);
      expect(offset).toBeLessThanOrEqual(21 * MINUTE);
    }
    expect(Math.min(...offsets)).toBeLessThan(20.3 * MINUTE);
    expect(Math.max(...offsets)).toBeGreaterThan(20.7 * MINUTE);
    expect(new Set(offsets).size).toBeGreaterThan(offsets.length / 2);
  });

  it("the extremes of the random draw map onto both ends of the window, inclusive", () => {
    const deadline = (random: () => number): number => {
      const sim = new Simulation();
      sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "auto" } });
      sim.apply({ type: "worker.spawn", runId: "run-1", workerId: "w-1", path: "/root", objective: "x" });
      const w = sim.worker("w-1");
      const result = transition(
        sim.state,
        { type: "command.result", workerId: "w-1", commandId: w.current!.commandId, outcome: "submitted" },
        { now: sim.now, random },
      );
      const after = result.state.workers["w-1"]!;
      return (after.keepaliveAt ?? Number.NaN) - (after.lastSubmittedAt ?? Number.NaN);
    };
    expect(deadline(() => 0)).toBe(20 * MINUTE);
    expect(deadline(() => 1 - 2 ** -53)).toBe(21 * MINUTE);
    expect(deadline(seededRandom(42))).toBeGreaterThan(20 * MINUTE);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Evaluation order with several conditions true at once.

interface Situation {
  readonly run: Run;
  readonly worker: Worker;
  readonly intent: Intent;
  readonly policy: ContinuationPolicy;
  readonly now: number;
}

interface Rule {
  readonly name: string;
  /** Conditions kept in the same field (one wait, one pause) cannot hold together. */
  readonly slot?: "wait" | "pause";
  readonly apply: (s: Situation) => Situation;
  readonly decision: (s: Situation) => Decision;
}

const withWorker = (s: Situation, patch: Partial<Worker>): Situation => ({
  ...s,
  worker: { ...s.worker, ...patch },
});

/** The hold/cancel steps of evaluateIntent, in its order (docs/continuation-core.md); delivery is the baseline. */
const RULES: readonly Rule[] = [
  {
    name: "run ended",
    apply: (s) => ({ ...s, run: { ...s.run, status: "cancelled", endedAt: s.now } }),
    decision: () => ({ kind: "cancel", why: "run_ended" }),
  },
  {
    name: "worker ended",
    apply: (s) => withWorker(s, { status: "completed", endedAt: s.now }),
    decision: () => ({ kind: "cancel", why: "worker_ended" }),
  },
  {
    name: "awaiting human",
    slot: "wait",
    apply: (s) =>
      withWorker(s, { wait: { kind: "human", reason: "choice", question: "Which?", requestedAt: s.now } }),
    decision: () => ({ kind: "hold", why: "awaiting_human" }),
  },
  {
    name: "awaiting dependency",
    slot: "wait",
    apply: (s) =>
      withWorker(s, {
        wait: { kind: "dependency", condition: "CI green", onWorkerIds: [], requestedAt: s.now },
      }),
    decision: () => ({ kind: "hold", why: "awaiting_dependency" }),
  },
  {
    name: "paused",
    slot: "pause",
    apply: (s) => withWorker(s, { pause: { source: "operator", reason: "review", at: s.now } }),
    decision: () => ({ kind: "hold", why: "paused" }),
  },
  {
    name: "manual policy",
    apply: (s) => ({ ...s, policy: { ...s.policy, mode: "manual" } }),
    decision: () => ({ kind: "hold", why: "manual_policy" }),
  },
  {
    name: "stall guard paused",
    slot: "pause",
    apply: (s) => withWorker(s, { pause: { source: "stall", reason: "20 attempts", at: s.now } }),
    decision: () => ({ kind: "hold", why: "stalled" }),
  },
  {
    name: "continuation in flight",
    apply: (s) => withWorker(s, { current: { ...s.worker.current!, state: "scheduled" } }),
    decision: () => ({ kind: "hold", why: "in_flight" }),
  },
  {
    name: "inside the anti-spam floor",
    apply: (s) => withWorker(s, { lastSubmittedAt: s.now - MINUTE }),
    decision: (s) => ({ kind: "wait", why: "spacing_floor", until: s.now - MINUTE + 15 * MINUTE }),
  },
];

/** An Auto Resume worker 16 min into a generating turn with a steerable event wake: it would be steered now. */
function baseline(): Situation {
  const sim = new Simulation();
  sim.start({ mode: "auto" });
  sim.advance(16 * MINUTE);
  const worker = { ...sim.worker("w-1"), lastSubmittedAt: sim.now - 16 * MINUTE };
  expect(worker.current?.state).toBe("generating");
  const intent: Intent = {
    createdAt: sim.now,
    reasons: ["event:message.sent"],
    notBefore: sim.now,
    explicit: false,
    manual: false,
    corrective: false,
    allowSteer: true,
    afterDeliveryTimeout: false,
    texts: [],
  };
  return { run: runOf(sim), worker, intent, policy: policyFor(sim), now: sim.now };
}

const decide = (s: Situation): Decision => evaluateIntent(s.run, s.worker, s.intent, s.policy, s.now);

const PAIRS = RULES.flatMap((first, i) =>
  RULES.slice(i + 1)
    .filter((later) => first.slot === undefined || first.slot !== later.slot)
    .map((later) => [first.name, later.name] as const),
);

const rule = (name: string): Rule => RULES.find((r) => r.name === name)!;

describe("evaluation order, several conditions at once (evaluateIntent)", () => {
  it("baseline: with no condition the wake is delivered (steered into the turn)", () => {
    expect(decide(baseline())).toEqual({ kind: "deliver", delivery: "steer" });
  });

  it.each(RULES.map((r) => [r.name] as const))("%s alone decides", (name) => {
    const s = rule(name).apply(baseline());
    expect(decide(s)).toEqual(rule(name).decision(s));
  });

  it.each(PAIRS)("%s + %s: the earlier step decides", (earlier, later) => {
    // Applied in both orders: the result must not depend on which condition arose first.
    const a = rule(earlier).apply(rule(later).apply(baseline()));
    const b = rule(later).apply(rule(earlier).apply(baseline()));
    expect(decide(a)).toEqual(rule(earlier).decision(a));
    expect(decide(b)).toEqual(rule(earlier).decision(b));
  });

  it.each(RULES.map((r, i) => [r.name, i] as const))(
    "%s together with every later condition: it still decides",
    (name, i) => {
      // Later rules first, so an earlier rule sharing a slot (wait, pause) is the one that stays.
      const s = [...RULES.slice(i)].reverse().reduce((acc, r) => r.apply(acc), baseline());
      expect(decide(s)).toEqual(rule(name).decision(s));
    },
  );

  it("an explicit intent passes the manual step but not the stall guard that follows it", () => {
    const s0 = rule("manual policy").apply(rule("stall guard paused").apply(baseline()));
    expect(decide(s0)).toEqual({ kind: "hold", why: "manual_policy" });
    expect(decide({ ...s0, intent: { ...s0.intent, explicit: true } })).toEqual({
      kind: "hold",
      why: "stalled",
    });
  });
});

describe("evaluation order, several conditions at once (through the engine)", () => {
  /** A worker awaiting a person, with a held event wake. */
  function humanWaitWithHeldWake(): Simulation {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "choice", question: "Which DB?" });
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "hi" });
    expect(sim.worker("w-1").intent?.reasons).toEqual(["event:message.sent"]);
    return sim;
  }

  it("run ended + awaiting human: the held intent is cancelled for the run-ended reason", () => {
    const sim = humanWaitWithHeldWake();
    // A stored state whose run has ended while the worker record still waits (e.g. read back after a crash).
    const state = {
      ...sim.state,
      runs: { ...sim.state.runs, "run-1": { ...runOf(sim), status: "cancelled" as const, endedAt: sim.now } },
    };
    const result = transition(state, { type: "tick" }, { now: sim.now, random: () => 0.5 });
    const events = result.effects.flatMap((e) => (e.kind === "event" ? [e.event] : []));
    expect(onlyEvent(events, "execution.cancelled")).toMatchObject({
      workerId: "w-1",
      data: { why: "run_ended", wakeReasons: ["event:message.sent"] },
    });
    expect(result.effects.some((e) => e.kind === "command")).toBe(false);
    expect(result.state.workers["w-1"]?.intent).toBeUndefined();
    expect(result.effects.at(-1)).toEqual({ kind: "timer", at: null });
  });

  it("run stopped + awaiting human: the held intent is cancelled for the run-ended reason, nothing is sent", () => {
    const sim = humanWaitWithHeldWake();
    const events = eventsDuring(sim, () => sim.apply({ type: "run.stop", runId: "run-1" }));
    const cancelled = onlyEvent(events, "execution.cancelled");
    expect(cancelled.data).toEqual({ why: "run_ended", wakeReasons: ["event:message.sent"] });
    expect(events.indexOf(cancelled)).toBeLessThan(events.findIndex((e) => e.type === "run.stopped"));
    expect(sim.worker("w-1")).toMatchObject({ status: "cancelled", intent: undefined });
    sim.advance(60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
  });

  it("awaiting human + paused: reported and refused as the human hold, then the pause still holds", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "approval", question: "Deploy?" });
    endTurn(sim);
    expect(dispositionOf(sim.worker("w-1"))).toBe("awaiting_human");
    expect(sim.try({ type: "worker.resume", workerId: "w-1" }).error?.code).toBe("WORKER_AWAITING_HUMAN");
    expect(sim.try({ type: "worker.continue_now", workerId: "w-1", clearPause: true }).error?.code).toBe(
      "WORKER_AWAITING_HUMAN",
    );
    // The answer lifts step 3; step 5 (paused) still holds the resume it queued.
    sim.apply({ type: "human.resolve", workerId: "w-1", answer: "yes" });
    sim.advance(30 * MINUTE);
    expect(dispositionOf(sim.worker("w-1"))).toBe("paused");
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.apply({ type: "worker.resume", workerId: "w-1" });
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(sim.commandsFor("w-1")[1]?.prompt.texts).toEqual(["yes"]);
  });

  it("awaiting dependency + paused: releasing the dependency leaves the pause holding", () => {
    const sim = new Simulation();
    sim.start({ workerId: "root", path: "/root" });
    sim.start({ workerId: "api", path: "/root/api" });
    sim.start({ workerId: "ui", path: "/root/ui" });
    sim.apply({ type: "worker.pause", workerId: "ui" });
    sim.apply({ type: "worker.await_dependency", workerId: "ui", condition: "API", onWorkerIds: ["api"] });
    endTurn(sim, "ui");
    expect(dispositionOf(sim.worker("ui"))).toBe("awaiting_dependency");
    sim.apply({ type: "worker.complete", workerId: "api" });
    sim.advance(30 * MINUTE);
    expect(dispositionOf(sim.worker("ui"))).toBe("paused");
    expect(sim.commandsFor("ui")).toHaveLength(1);
    sim.apply({ type: "worker.resume", workerId: "ui" });
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("ui")).toHaveLength(2);
    expect(sim.commandsFor("ui")[1]?.prompt.wakeReasons).toContain("event:dependency_completed");
  });

  it("paused + inside the floor: the pause holds, no deferral is announced until it is lifted", () => {
    const sim = new Simulation();
    sim.start();
    const submittedAt = sim.worker("w-1").lastSubmittedAt ?? 0;
    sim.advance(5 * MINUTE);
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "x" });
    sim.advance(1 * MINUTE);
    expect(sim.eventTypes("w-1")).not.toContain("execution.deferred");
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    const events = eventsDuring(sim, () => sim.apply({ type: "worker.resume", workerId: "w-1" }));
    expect(onlyEvent(events, "execution.deferred").data).toMatchObject({
      notBefore: submittedAt + 15 * MINUTE,
      wakeReasons: ["event:message.sent"],
    });
    sim.advance(submittedAt + 15 * MINUTE - sim.now);
    expect(sim.commandsFor("w-1")[1]).toMatchObject({ type: "conversation.steer" });
  });

  it("stall guard paused + manual: an explicit follow-up passes the manual step, the stall guard holds it", () => {
    const sim = new Simulation();
    sim.start();
    sim.advance(61 * MINUTE);
    // Never mid-turn: the time-based decision is taken when the turn ends.
    expect(sim.worker("w-1").pause).toBeUndefined();
    sim.observe("w-1", "idle");
    expect(sim.worker("w-1").pause?.source).toBe("stall");
    sim.apply({ type: "worker.set_policy", workerId: "w-1", patch: { mode: "manual" } });
    const sent = sim.commandsFor("w-1").length;
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "x" });
    const held = () => {
      const w = sim.worker("w-1");
      return evaluateIntent(runOf(sim), w, w.intent!, policyFor(sim), sim.now);
    };
    expect(held()).toEqual({ kind: "hold", why: "manual_policy" });
    sim.apply({ type: "worker.followup", workerId: "w-1", text: "also do Y" });
    expect(held()).toEqual({ kind: "hold", why: "stalled" });
    sim.observe("w-1", "idle");
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(sent);
  });

  it("in flight + inside the floor: the wake coalesces behind the submission; the floor applies after it", () => {
    const sim = new Simulation();
    sim.start();
    endTurn(sim);
    expect(sim.worker("w-1").current?.state).toBe("scheduled");
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "x" });
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(sim.eventTypes("w-1")).not.toContain("execution.deferred");
    sim.result("w-1");
    const events = eventsDuring(sim, () => sim.observe("w-1", "generating"));
    const submittedAt = sim.worker("w-1").lastSubmittedAt ?? 0;
    expect(onlyEvent(events, "execution.deferred").data.notBefore).toBe(submittedAt + 15 * MINUTE);
    sim.advance(15 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(3);
    expect(sim.commandsFor("w-1")[2]?.prompt.wakeReasons).toEqual(["event:message.sent"]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Domain event types, each asserted by name with its key fields.

describe("domain event types", () => {
  it("execution.generating: a submitted turn observed generating", () => {
    const sim = new Simulation();
    sim.start();
    endTurn(sim);
    sim.result("w-1");
    const events = eventsDuring(sim, () => sim.observe("w-1", "generating"));
    expect(onlyEvent(events, "execution.generating")).toMatchObject({
      runId: "run-1",
      workerId: "w-1",
      at: sim.now,
      data: {
        execution: {
          id: "w-1:2",
          workerId: "w-1",
          seq: 2,
          reason: "auto_resume",
          state: "generating",
          generatingAt: sim.now,
        },
      },
    });
  });

  it("execution.resume_scheduled: an idle runnable Auto Resume worker, not the bootstrap turn", () => {
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "auto" } });
    const spawn = eventsDuring(sim, () =>
      sim.apply({ type: "worker.spawn", runId: "run-1", workerId: "w-1", path: "/root", objective: "x" }),
    );
    expect(spawn.map((e) => e.type)).not.toContain("execution.resume_scheduled");
    sim.result("w-1");
    sim.observe("w-1", "generating");
    const events = eventsDuring(sim, () => endTurn(sim));
    expect(onlyEvent(events, "execution.resume_scheduled")).toMatchObject({
      workerId: "w-1",
      data: { executionId: "w-1:2", reason: "auto_resume", wakeReasons: ["idle"] },
    });
  });

  it("execution.resumed: the resume's submission is confirmed, not the bootstrap's", () => {
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "auto" } });
    sim.apply({ type: "worker.spawn", runId: "run-1", workerId: "w-1", path: "/root", objective: "x" });
    const bootstrap = eventsDuring(sim, () => sim.result("w-1"));
    expect(bootstrap.map((e) => e.type)).not.toContain("execution.resumed");
    sim.observe("w-1", "generating");
    endTurn(sim);
    const events = eventsDuring(sim, () => sim.result("w-1"));
    expect(onlyEvent(events, "execution.resumed")).toMatchObject({
      workerId: "w-1",
      data: { executionId: "w-1:2", reason: "auto_resume" },
    });
  });

  it.each([
    {
      source: "operator",
      act: (sim: Simulation) => sim.apply({ type: "worker.pause", workerId: "w-1", reason: "review" }),
      data: { source: "operator", reason: "review" },
    },
    {
      source: "run",
      act: (sim: Simulation) => sim.apply({ type: "run.pause_all", runId: "run-1" }),
      data: { source: "run" },
    },
    {
      source: "error",
      act: (sim: Simulation) => {
        endTurn(sim);
        sim.result("w-1", "AMBIGUOUS_SUBMISSION");
      },
      data: { source: "error", errorCode: "AMBIGUOUS_SUBMISSION" },
    },
  ])("execution.paused ($source)", ({ act, data }) => {
    const sim = new Simulation();
    sim.start();
    const events = eventsDuring(sim, () => act(sim));
    expect(onlyEvent(events, "execution.paused")).toMatchObject({ workerId: "w-1", data });
    expect(sim.worker("w-1").pause?.source).toBe(data.source);
  });

  it.each([
    {
      wait: "human",
      act: (sim: Simulation) =>
        sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "choice", question: "Which?" }),
    },
    {
      wait: "dependency",
      act: (sim: Simulation) =>
        sim.apply({ type: "worker.await_dependency", workerId: "w-1", condition: "CI green" }),
    },
  ])("execution.blocked: the turn ends while the worker awaits a $wait", ({ act }) => {
    const sim = new Simulation();
    sim.start();
    act(sim);
    const events = eventsDuring(sim, () => sim.observe("w-1", "idle"));
    expect(onlyEvent(events, "execution.blocked")).toMatchObject({
      workerId: "w-1",
      data: { execution: { id: "w-1:1", state: "blocked", outcome: "turn_ended", terminalAt: sim.now } },
    });
    expect(events.map((e) => e.type)).not.toContain("execution.idle");
  });

  it("execution.stalled: no progress for the default 60 minutes", () => {
    const sim = new Simulation();
    sim.start();
    sim.advance(61 * MINUTE);
    // Decided when the turn ends, not mid-turn.
    expect(sim.eventTypes("w-1")).not.toContain("execution.stalled");
    const events = eventsDuring(sim, () => sim.observe("w-1", "idle"));
    expect(onlyEvent(events, "execution.stalled")).toMatchObject({
      workerId: "w-1",
      data: { why: "no progress for 61 min", noProgressAttempts: 1 },
    });
    onlyEvent(events, "continuation.paused_for_stall");
  });

  it("execution.failed: a product error ends the running turn", () => {
    const sim = new Simulation();
    sim.start();
    const events = eventsDuring(sim, () => sim.observe("w-1", "error", "RATE_LIMITED"));
    expect(onlyEvent(events, "execution.failed")).toMatchObject({
      workerId: "w-1",
      data: {
        execution: {
          id: "w-1:1",
          state: "failed",
          outcome: "product_error",
          errorCode: "RATE_LIMITED",
          terminalAt: sim.now,
        },
      },
    });
  });

  it("worker.awaiting_human: with reason and question, at the request time", () => {
    const sim = new Simulation();
    sim.start();
    const events = eventsDuring(sim, () =>
      sim.apply({
        type: "worker.await_human",
        workerId: "w-1",
        reason: "approval",
        question: "Deploy?",
        choices: ["yes", "no"],
      }),
    );
    const event = onlyEvent(events, "worker.awaiting_human");
    expect(event).toMatchObject({ workerId: "w-1", data: { reason: "approval", question: "Deploy?" } });
    expect(sim.worker("w-1").wait).toMatchObject({ requestedAt: event.at, choices: ["yes", "no"] });
  });

  it("worker.awaiting_dependency: with the condition and the workers waited on", () => {
    const sim = new Simulation();
    sim.start({ workerId: "root", path: "/root" });
    sim.start({ workerId: "api", path: "/root/api" });
    const events = eventsDuring(sim, () =>
      sim.apply({
        type: "worker.await_dependency",
        workerId: "root",
        condition: "API merged",
        onWorkerIds: ["api"],
      }),
    );
    expect(onlyEvent(events, "worker.awaiting_dependency")).toMatchObject({
      workerId: "root",
      data: { condition: "API merged", onWorkerIds: ["api"] },
    });
  });

  it.each([
    {
      released: "a human wait, by the answer",
      setup: (sim: Simulation) =>
        sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "r", question: "q" }),
      act: (sim: Simulation) => sim.apply({ type: "human.resolve", workerId: "w-1", answer: "ok" }),
      data: { released: "human", reason: "human_resolved" },
    },
    {
      released: "a dependency wait, by its end",
      setup: (sim: Simulation) => {
        sim.start({ workerId: "api", path: "/root/api" });
        sim.apply({ type: "worker.await_dependency", workerId: "w-1", condition: "c", onWorkerIds: ["api"] });
      },
      act: (sim: Simulation) => sim.apply({ type: "worker.complete", workerId: "api" }),
      data: { released: "dependency", reason: "event:dependency_completed" },
    },
    {
      released: "an operator pause, by Resume",
      setup: (sim: Simulation) => sim.apply({ type: "worker.pause", workerId: "w-1" }),
      act: (sim: Simulation) => sim.apply({ type: "worker.resume", workerId: "w-1" }),
      data: { released: "pause:operator", by: "resume" },
    },
    {
      released: "a wait, by Continue now overriding it",
      setup: (sim: Simulation) =>
        sim.apply({ type: "worker.await_dependency", workerId: "w-1", condition: "c" }),
      act: (sim: Simulation) =>
        sim.apply({ type: "worker.continue_now", workerId: "w-1", overrideWait: true }),
      data: { released: "override", by: "continue_now" },
    },
  ])("worker.resumed: $released", ({ setup, act, data }) => {
    const sim = new Simulation();
    sim.start();
    setup(sim);
    expect(dispositionOf(sim.worker("w-1"))).not.toBe("running");
    const events = eventsDuring(sim, () => act(sim));
    expect(
      onlyEvent(
        events.filter((e) => e.workerId === "w-1"),
        "worker.resumed",
      ),
    ).toMatchObject({
      workerId: "w-1",
      data,
    });
    expect(dispositionOf(sim.worker("w-1"))).toBe("running");
  });
});
