// Core unit tests of the continuation rules (docs/continuation-core.md) plus further acceptance cases, on a
// simulated clock.
import { describe, expect, it } from "vitest";
import { dispositionOf } from "./policy.ts";
import { Simulation } from "./simulation.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** Ends the current turn and lets the idle grace pass. */
function endTurn(sim: Simulation, workerId = "w-1"): void {
  sim.observe(workerId, "idle");
  sim.advance(3 * SECOND);
}

describe("core continuation rules", () => {
  it("idle + active + auto -> one resume scheduled", () => {
    const sim = new Simulation();
    sim.start({ mode: "auto" });
    endTurn(sim);
    const cmds = sim.commandsFor("w-1");
    expect(cmds.map((c) => c.type)).toEqual(["conversation.create", "conversation.send"]);
    expect(cmds[1]?.prompt.reason).toBe("auto_resume");
    expect(sim.worker("w-1").current?.seq).toBe(2);
    sim.advance(10 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("idle + active + manual -> no resume", () => {
    const sim = new Simulation();
    sim.start({ mode: "manual" });
    endTurn(sim);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(dispositionOf(sim.worker("w-1"))).toBe("awaiting_execution");
  });

  it("idle + completed -> no resume", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.complete", workerId: "w-1", summary: "done" });
    endTurn(sim);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(sim.worker("w-1").current?.state).toBe("completed");
  });

  it.each(["failed", "cancelled"] as const)("idle + %s -> no resume", (end) => {
    const sim = new Simulation();
    sim.start();
    if (end === "failed") sim.apply({ type: "worker.fail", workerId: "w-1", reason: "broken" });
    else sim.apply({ type: "worker.stop", workerId: "w-1" });
    endTurn(sim);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(sim.worker("w-1").status).toBe(end);
  });

  it("idle + awaiting human -> no resume", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "choice", question: "Which DB?" });
    endTurn(sim);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(dispositionOf(sim.worker("w-1"))).toBe("awaiting_human");
    expect(sim.worker("w-1").current?.state).toBe("blocked");
  });

  it("idle + awaiting dependency -> no resume", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.await_dependency", workerId: "w-1", condition: "CI green" });
    endTurn(sim);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(dispositionOf(sim.worker("w-1"))).toBe("awaiting_dependency");
  });

  it("idle + paused -> no resume", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    endTurn(sim);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(dispositionOf(sim.worker("w-1"))).toBe("paused");
  });

  it("duplicate idle events -> one resume", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "idle");
    sim.observe("w-1", "idle");
    sim.advance(5 * MINUTE);
    sim.observe("w-1", "idle");
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("completion arriving during grace -> pending resume cancelled", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "idle");
    sim.advance(1 * SECOND);
    expect(sim.worker("w-1").intent?.reasons).toContain("idle");
    sim.apply({ type: "worker.complete", workerId: "w-1" });
    expect(sim.worker("w-1").intent).toBeUndefined();
    expect(sim.eventTypes("w-1")).toContain("execution.cancelled");
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
  });

  it("completion after submission -> no subsequent resume", () => {
    const sim = new Simulation();
    sim.start();
    endTurn(sim);
    sim.result("w-1");
    sim.observe("w-1", "generating");
    sim.apply({ type: "worker.complete", workerId: "w-1" });
    endTurn(sim);
    sim.advance(60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(sim.worker("w-1").current).toMatchObject({ seq: 2, state: "completed" });
    // The event trace: completion, then the final idle, and nothing after it.
    const types = sim.eventTypes("w-1");
    expect(types.slice(types.indexOf("worker.completed"))).toEqual([
      "worker.completed",
      "execution.completed",
    ]);
  });

  it("progress resets no-progress counter", () => {
    const sim = new Simulation();
    sim.start();
    for (let i = 0; i < 3; i++) {
      endTurn(sim);
      sim.result("w-1");
      sim.observe("w-1", "generating");
    }
    expect(sim.worker("w-1").stall.noProgressAttempts).toBe(3);
    sim.apply({ type: "worker.progress", workerId: "w-1", summary: "tests pass" });
    expect(sim.worker("w-1").stall.noProgressAttempts).toBe(0);
    endTurn(sim);
    expect(sim.worker("w-1").stall.noProgressAttempts).toBe(0);
  });

  it("no-progress thresholds warn/pause correctly (by attempts)", () => {
    const sim = new Simulation();
    sim.apply({
      type: "run.create",
      runId: "run-1",
      name: "Run",
      policy: {
        mode: "auto",
        stallWarningAfterNoProgressAttempts: 2,
        stallPauseAfterNoProgressAttempts: 4,
        stallWarningAfterNoProgressMs: null,
        stallPauseAfterNoProgressMs: null,
      },
    });
    sim.start();
    const turn = () => {
      endTurn(sim);
      if (sim.worker("w-1").current?.state === "scheduled") {
        sim.result("w-1");
        sim.observe("w-1", "generating");
      }
    };
    turn();
    expect(sim.eventTypes("w-1")).not.toContain("continuation.warning");
    turn();
    expect(sim.eventTypes("w-1").filter((t) => t === "continuation.warning")).toHaveLength(1);
    turn();
    turn();
    expect(sim.eventTypes("w-1")).toContain("continuation.paused_for_stall");
    expect(sim.worker("w-1").pause?.source).toBe("stall");
    const sent = sim.commandsFor("w-1").length;
    sim.advance(2 * 60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(sent);
    // Continue anyway: acknowledges the stall, keeps history, resumes exactly once.
    sim.apply({ type: "worker.resume", workerId: "w-1" });
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(sent + 1);
    expect(sim.worker("w-1").stall.noProgressAttempts).toBe(0);
  });

  it("no-progress thresholds warn/pause correctly (by time)", () => {
    const sim = new Simulation();
    sim.start();
    // A turn still running is judged when it ends, never mid-turn.
    sim.advance(31 * MINUTE);
    expect(sim.eventTypes("w-1")).not.toContain("continuation.warning");
    sim.observe("w-1", "idle");
    expect(sim.eventTypes("w-1")).toContain("continuation.warning");
    sim.apply({ type: "worker.progress", workerId: "w-1" });
    sim.advance(59 * MINUTE);
    expect(sim.worker("w-1").pause).toBeUndefined();
    sim.advance(2 * MINUTE);
    expect(sim.worker("w-1").pause?.source).toBe("stall");
  });

  it("policy changes append events (restart is covered by the repository tests)", () => {
    const sim = new Simulation();
    sim.start({ mode: "manual" });
    sim.apply({ type: "worker.set_policy", workerId: "w-1", patch: { mode: "auto" } });
    sim.apply({ type: "run.set_default_policy", runId: "run-1", patch: { idleGraceMs: 5_000 } });
    const changes = sim.events.filter((e) => e.type === "continuation.policy_changed");
    expect(changes.map((e) => e.data.scope)).toEqual(["worker", "run"]);
    expect(sim.worker("w-1").policyOverride).toEqual({ mode: "auto" });
  });
});

describe("further acceptance cases", () => {
  it("keepalive fires while generating and is held until idle when steering is unavailable", () => {
    const sim = new Simulation(7);
    sim.start();
    const keepaliveAt = sim.worker("w-1").keepaliveAt ?? 0;
    const submittedAt = sim.worker("w-1").lastSubmittedAt ?? 0;
    expect(keepaliveAt - submittedAt).toBeGreaterThanOrEqual(20 * MINUTE);
    expect(keepaliveAt - submittedAt).toBeLessThanOrEqual(21 * MINUTE);
    sim.advance(21 * MINUTE);
    const steer = sim.commandsFor("w-1")[1];
    expect(steer?.type).toBe("conversation.steer");
    expect(steer?.prompt.kind).toBe("keepalive");
    sim.result("w-1", "STEERING_UNAVAILABLE");
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(sim.worker("w-1").intent?.reasons).toContain("active_keepalive");
    endTurn(sim);
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(3);
    expect(cmds[2]?.type).toBe("conversation.send");
    expect(cmds[2]?.prompt.wakeReasons).toEqual(expect.arrayContaining(["active_keepalive", "idle"]));
  });

  it("a pending steer is not taken as submitted when the same turn flickers back to generating", () => {
    const sim = new Simulation(7);
    sim.start();
    sim.advance(21 * MINUTE);
    const steer = sim.worker("w-1").current;
    expect(steer).toMatchObject({ delivery: "steer", state: "scheduled" });
    // A late Stop: idle for a moment, then the same turn generates again. That is not proof of our steer.
    sim.observe("w-1", "idle");
    sim.observe("w-1", "generating");
    expect(sim.worker("w-1").current).toMatchObject({ id: steer?.id, state: "scheduled" });
    sim.result("w-1", "STEERING_UNAVAILABLE");
    expect(sim.worker("w-1").current?.state).toBe("cancelled");
    expect(sim.worker("w-1").autoResumes).toBe(0);
    expect(sim.worker("w-1").intent?.reasons).toContain("active_keepalive");
  });

  it("a refused steer leaves the running turn on record: it ends at its own idle, with its progress", () => {
    const sim = new Simulation(7);
    sim.start();
    const turn = sim.worker("w-1").current;
    sim.advance(21 * MINUTE);
    expect(sim.worker("w-1").current).toMatchObject({ delivery: "steer", state: "scheduled" });
    sim.apply({ type: "worker.progress", workerId: "w-1", summary: "half way" });
    sim.result("w-1", "STEERING_UNAVAILABLE");
    expect(sim.worker("w-1").current).toMatchObject({
      id: turn?.id,
      state: "generating",
      progressSeen: true,
    });
    expect(sim.events.some((e) => e.type === "execution.completed")).toBe(false);
    sim.advance(14 * MINUTE);
    endTurn(sim);
    const ended = sim.events.filter((e) => e.type === "execution.idle");
    expect(ended.map((e) => (e.data.execution as { id: string }).id)).toEqual([turn?.id]);
    expect(sim.worker("w-1").stall.noProgressAttempts).toBe(0);
  });

  it("a submitted steer supersedes the turn it landed in", () => {
    const sim = new Simulation(7);
    sim.start();
    const turn = sim.worker("w-1").current;
    sim.advance(21 * MINUTE);
    const steer = sim.worker("w-1").current;
    sim.result("w-1");
    const completed = sim.events.filter((e) => e.type === "execution.completed");
    expect(completed.map((e) => e.data.execution)).toEqual([
      expect.objectContaining({ id: turn?.id, outcome: "superseded_by_steer" }),
    ]);
    expect(sim.worker("w-1").current).toMatchObject({ id: steer?.id, state: "submitted" });
    expect(sim.worker("w-1").steeredTurn).toBeUndefined();
  });

  it("a turn that ends before its pending steer is delivered is recorded as ended; the steer stays pending", () => {
    const sim = new Simulation(7);
    sim.start();
    const turn = sim.worker("w-1").current;
    sim.advance(21 * MINUTE);
    const steer = sim.worker("w-1").current;
    sim.observe("w-1", "idle");
    expect(sim.events.filter((e) => e.type === "execution.idle").map((e) => e.data.execution)).toEqual([
      expect.objectContaining({ id: turn?.id, outcome: "turn_ended" }),
    ]);
    expect(sim.worker("w-1").current).toMatchObject({ id: steer?.id, state: "scheduled" });
  });

  it("a successful submission resets the keepalive deadline", () => {
    const sim = new Simulation(3);
    sim.start();
    sim.advance(10 * MINUTE);
    endTurn(sim);
    sim.result("w-1");
    const w = sim.worker("w-1");
    expect((w.keepaliveAt ?? 0) - (w.lastSubmittedAt ?? 0)).toBeGreaterThanOrEqual(20 * MINUTE);
    expect(w.lastSubmittedAt).toBe(sim.now);
  });

  it("a wake inside the floor is kept and delivered at notBefore, not dropped", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "run.create", runId: "run-1b", name: "other" });
    const submittedAt = sim.worker("w-1").lastSubmittedAt ?? 0;
    sim.advance(5 * MINUTE);
    sim.apply({
      type: "message.send",
      messageId: "m-1",
      from: "operator",
      toWorkerId: "w-1",
      body: "new API",
    });
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    const deferred = sim.events.find((e) => e.type === "execution.deferred");
    expect(deferred?.data.notBefore).toBe(submittedAt + 15 * MINUTE);
    sim.advance(10 * MINUTE - 1);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.advance(1);
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]?.type).toBe("conversation.steer");
    expect(cmds[1]?.prompt.wakeReasons).toEqual(["event:message.sent"]);
  });

  it("two idle events 5 ms apart give one attempt", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "idle");
    sim.advance(5);
    sim.observe("w-1", "idle");
    sim.advance(10 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("a late generating report inside the idle grace withdraws the resume", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "idle");
    sim.advance(1 * SECOND);
    sim.observe("w-1", "generating");
    sim.advance(10 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
  });

  it("Continue now while awaiting_human fails unless the request says to override", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "approval", question: "Deploy?" });
    endTurn(sim);
    const refused = sim.try({ type: "worker.continue_now", workerId: "w-1" });
    expect(refused.error?.code).toBe("WORKER_AWAITING_HUMAN");
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.apply({ type: "worker.continue_now", workerId: "w-1", overrideWait: true });
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]?.prompt.reason).toBe("manual_resume");
  });

  it("Continue now on a terminal worker fails; while generating it queues one resume after the turn", () => {
    const sim = new Simulation();
    sim.start({ mode: "manual" });
    const queued = sim.apply({ type: "worker.continue_now", workerId: "w-1" });
    expect(queued.reply).toEqual({ coalesced: false, afterCurrentTurn: true });
    sim.apply({ type: "worker.continue_now", workerId: "w-1" });
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    endTurn(sim);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    sim.apply({ type: "worker.stop", workerId: "w-1" });
    expect(sim.try({ type: "worker.continue_now", workerId: "w-1" }).error?.code).toBe("WORKER_TERMINAL");
  });

  it("Pause after current turn, then Continue now resumes the same conversation exactly once", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    endTurn(sim);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(sim.try({ type: "worker.continue_now", workerId: "w-1" }).error?.code).toBe("WORKER_PAUSED");
    sim.apply({ type: "worker.continue_now", workerId: "w-1", clearPause: true });
    sim.apply({ type: "worker.continue_now", workerId: "w-1", clearPause: true });
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]).toMatchObject({
      type: "conversation.send",
      conversationUrl: "https://chatgpt.com/c/w-1",
    });
  });

  it("Stop cancels a scheduled intent", () => {
    const sim = new Simulation();
    sim.start();
    sim.advance(2 * MINUTE);
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "hi" });
    expect(sim.worker("w-1").intent).toBeDefined();
    sim.apply({ type: "worker.stop", workerId: "w-1" });
    expect(sim.worker("w-1").intent).toBeUndefined();
    sim.advance(60 * MINUTE);
    endTurn(sim);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    expect(sim.timer).toBeNull();
  });

  it("Stop while a submission is pending asks the executor to cancel it", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    const pending = sim.worker("w-1").current;
    expect(pending?.state).toBe("scheduled");
    sim.apply({ type: "worker.stop", workerId: "w-1" });
    expect(sim.cancelled).toEqual([pending?.commandId]);
  });

  it("completion while a resume is dispatched: the executor's CANCELLED closes it, nothing more follows", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    const pending = sim.worker("w-1").current;
    expect(pending?.state).toBe("scheduled");
    sim.apply({ type: "worker.complete", workerId: "w-1", summary: "done" });
    expect(sim.cancelled).toEqual([pending?.commandId]);
    // The attempt waits for the executor's word: it may have been submitted just before the cancel arrived.
    expect(sim.worker("w-1").current?.state).toBe("scheduled");
    sim.apply({
      type: "command.result",
      workerId: "w-1",
      commandId: pending!.commandId,
      outcome: "failed",
      errorCode: "CANCELLED",
    });
    expect(sim.worker("w-1").current?.state).toBe("cancelled");
    expect(sim.worker("w-1").intent).toBeUndefined();
    expect(sim.eventTypes("w-1").at(-1)).toBe("execution.cancelled");
    sim.advance(60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(sim.timer).toBeNull();
  });

  it("a dependency event releases await_dependency and schedules exactly one attempt", () => {
    const sim = new Simulation();
    sim.start({ workerId: "root", path: "/root" });
    sim.start({ workerId: "api", path: "/root/api" });
    sim.start({ workerId: "ui", path: "/root/ui" });
    sim.apply({
      type: "worker.await_dependency",
      workerId: "ui",
      condition: "API merged",
      onWorkerIds: ["api"],
    });
    endTurn(sim, "ui");
    expect(sim.commandsFor("ui")).toHaveLength(1);
    sim.apply({ type: "worker.complete", workerId: "api" });
    sim.advance(3 * SECOND);
    const cmds = sim.commandsFor("ui");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]?.prompt.wakeReasons).toContain("event:dependency_completed");
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("ui")).toHaveLength(2);
  });

  it("corrective steering bypasses the floor but identical corrections are deduplicated", () => {
    const sim = new Simulation();
    sim.start();
    sim.advance(1 * MINUTE);
    sim.apply({ type: "worker.steer", workerId: "w-1", text: "Stop editing the UI lane", key: "scope-1" });
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]).toMatchObject({ type: "conversation.steer", prompt: { kind: "corrective" } });
    sim.result("w-1");
    const again = sim.apply({
      type: "worker.steer",
      workerId: "w-1",
      text: "Stop editing the UI lane",
      key: "scope-1",
    });
    expect(again.reply).toEqual({ deduplicated: true });
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("a message sent before anyone waits stays in the inbox until read", () => {
    const sim = new Simulation();
    sim.start({ mode: "manual" });
    sim.apply({
      type: "message.send",
      messageId: "m-1",
      from: "operator",
      toWorkerId: "w-1",
      body: "context",
    });
    expect(Object.values(sim.state.unread)).toHaveLength(1);
    sim.apply({ type: "message.read", workerId: "w-1", upToSeq: 1 });
    expect(sim.state.unread).toEqual({});
  });

  it("ambiguous submission is never resent: the worker pauses with the error", () => {
    const sim = new Simulation();
    sim.start();
    endTurn(sim);
    sim.result("w-1", "AMBIGUOUS_SUBMISSION");
    sim.advance(60 * MINUTE);
    sim.observe("w-1", "ready");
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(sim.worker("w-1").pause).toMatchObject({ source: "error", errorCode: "AMBIGUOUS_SUBMISSION" });
  });

  it("message delivery timeout ends the attempt and sends a fresh continue once, never a retry", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "error", "MESSAGE_DELIVERY_TIMEOUT");
    sim.advance(3 * SECOND);
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]).toMatchObject({ type: "conversation.send", prompt: { kind: "continue" } });
    expect(sim.worker("w-1").current?.resumeOf).toBe("w-1:1");
    sim.observe("w-1", "error", "MESSAGE_DELIVERY_TIMEOUT");
    sim.advance(10 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("a tool-confirmation card pauses the running turn without ending it; the turn ends at its own idle", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "error", "AWAITING_APPROVAL");
    // Published, but the turn is still the person's to answer: not failed, and nothing is sent while it shows.
    expect(sim.eventTypes("w-1")).toContain("execution.error");
    expect(sim.eventTypes("w-1")).not.toContain("execution.failed");
    sim.advance(10 * MINUTE);
    expect(sim.worker("w-1").current).toMatchObject({ seq: 1, state: "generating" });
    expect(sim.worker("w-1").stall.noProgressAttempts).toBe(0);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    // Approved in ChatGPT: the same turn streams on and ends normally; Auto Resume then sends the next one.
    sim.observe("w-1", "generating");
    endTurn(sim);
    expect(sim.worker("w-1").current).toMatchObject({ seq: 2, state: "scheduled" });
    expect(sim.commandsFor("w-1")[1]).toMatchObject({
      type: "conversation.send",
      prompt: { kind: "resume" },
    });
    expect(sim.events.find((e) => e.type === "execution.idle" && e.workerId === "w-1")).toBeDefined();
    expect(sim.eventTypes("w-1")).not.toContain("execution.failed");
  });

  it("other product errors are boundaries: no resume until the page changes", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "error", "RESPONSE_FAILED");
    sim.advance(60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("a child's progress wakes /root, which resumes at once only when idle", () => {
    const sim = new Simulation();
    sim.start({ workerId: "root", path: "/root" });
    sim.start({ workerId: "api", path: "/root/api" });
    endTurn(sim, "root");
    sim.result("root");
    sim.observe("root", "generating");
    sim.observe("root", "idle");
    sim.advance(3 * SECOND);
    sim.result("root");
    sim.observe("root", "generating");
    const before = sim.commandsFor("root").length;
    sim.apply({ type: "worker.progress", workerId: "api" });
    expect(sim.commandsFor("root")).toHaveLength(before);
    sim.observe("root", "idle");
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("root").at(-1)?.prompt.wakeReasons).toEqual(
      expect.arrayContaining(["event:worker.progress:/root/api", "idle"]),
    );
  });

  it("a lane's repeated progress leaves /root's pending wake, and so its record, as it was", () => {
    const sim = new Simulation();
    sim.start({ workerId: "root", path: "/root" });
    sim.start({ workerId: "api", path: "/root/api" });
    sim.observe("root", "generating");
    sim.apply({ type: "worker.progress", workerId: "api" });
    const root = sim.worker("root");
    expect(root.intent?.reasons).toEqual(["event:worker.progress:/root/api"]);
    sim.advance(5 * SECOND);
    sim.apply({ type: "worker.progress", workerId: "api" });
    // The same object: the store rewrites only the records a transition replaced.
    expect(sim.worker("root")).toBe(root);
    expect(sim.worker("api").stall.progressCursor).toBe(2);
  });
});

// Counterexamples found by the property tests (continuation.property.test.ts), kept as plain cases.
describe("regressions from the property tests", () => {
  it("effects are plain data: an event built from the draft can be serialised after the transition", () => {
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "auto" } });
    sim.apply({
      type: "worker.spawn",
      runId: "run-1",
      workerId: "w-1",
      path: "/root",
      objective: "Build it",
    });
    const submitted = sim.result("w-1");
    // The execution snapshot used to share the attempt's arrays with the immer draft, revoked on return.
    expect(() => JSON.stringify(submitted.effects)).not.toThrow();
    const event = submitted.effects.find((e) => e.kind === "event" && e.event.type === "execution.submitted");
    expect(event?.kind === "event" && event.event.data.execution).toMatchObject({ wakeReasons: ["spawn"] });
  });

  it("manual mode: a bootstrap that was never delivered goes out as the initial turn, not an automatic one", () => {
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "manual" } });
    sim.apply({
      type: "worker.spawn",
      runId: "run-1",
      workerId: "w-1",
      path: "/root",
      objective: "Build it",
    });
    sim.result("w-1", "TAB_CLOSED");
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "hi" });
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]?.prompt).toMatchObject({ reason: "initial", kind: "bootstrap" });
    expect(sim.worker("w-1").autoResumes).toBe(0);
  });

  it("manual mode: a human answer without text resumes as a manual resume, not an automatic one", () => {
    const sim = new Simulation();
    sim.start({ mode: "manual" });
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "approval", question: "Deploy?" });
    endTurn(sim);
    sim.apply({ type: "human.resolve", workerId: "w-1" });
    sim.advance(3 * SECOND);
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]?.prompt.reason).toBe("manual_resume");
    expect(sim.worker("w-1").autoResumes).toBe(0);
  });

  it("Continue now on a generating conversation does not carry a steerable wake inside the floor", () => {
    const sim = new Simulation();
    sim.apply({ type: "run.create", runId: "run-1", name: "Run", policy: { mode: "auto" } });
    sim.apply({
      type: "worker.spawn",
      runId: "run-1",
      workerId: "w-1",
      path: "/root",
      objective: "Build it",
    });
    sim.apply({ type: "worker.continue_now", workerId: "w-1" });
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "news" });
    sim.result("w-1");
    sim.observe("w-1", "generating");
    // Queued for after the turn: nothing is steered into it, not even after the 15 min floor,
    // so the person's Continue now is not used up inside the turn it was meant to follow.
    sim.advance(20 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")[1]).toMatchObject({
      type: "conversation.send",
      prompt: { reason: "manual_resume" },
    });
  });

  it("a turn so short that generating was never reported still ends on the next idle report", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    sim.result("w-1");
    // idle → (submitted) → idle: the executor never saw generating.
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(3);
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(3);
  });

  it("records the versioned prompt template on the attempt and in its command", () => {
    const sim = new Simulation();
    sim.start();
    expect(sim.worker("w-1").current?.promptId).toBe("bootstrap@1");
    endTurn(sim);
    expect(sim.worker("w-1").current?.promptId).toBe("resume@1");
    expect(sim.commandsFor("w-1")[1]?.prompt.promptId).toBe("resume@1");
  });

  it("Continue now after the turn still bypasses the floor when the conversation is idle", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.continue_now", workerId: "w-1" });
    sim.apply({ type: "message.send", messageId: "m-1", from: "operator", toWorkerId: "w-1", body: "news" });
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    const cmds = sim.commandsFor("w-1");
    expect(cmds).toHaveLength(2);
    expect(cmds[1]).toMatchObject({ type: "conversation.send", prompt: { reason: "manual_resume" } });
  });

  it("await_dependency cannot replace an open human request (and so cannot release it)", () => {
    const sim = new Simulation();
    sim.start({ workerId: "root", path: "/root" });
    sim.start({ workerId: "b", path: "/root/b" });
    sim.apply({ type: "worker.complete", workerId: "root" });
    sim.apply({ type: "worker.await_human", workerId: "b", reason: "choice", question: "Which?" });
    endTurn(sim, "b");
    const refused = sim.try({
      type: "worker.await_dependency",
      workerId: "b",
      condition: "root",
      onWorkerIds: ["root"],
    });
    expect(refused.error?.code).toBe("WORKER_AWAITING_HUMAN");
    expect(sim.worker("b").wait?.kind).toBe("human");
    sim.advance(10 * MINUTE);
    expect(sim.commandsFor("b")).toHaveLength(1);
  });

  it("a time-based stall pause does not leave the timer armed in the past", () => {
    const sim = new Simulation();
    sim.start();
    // The turn ends and the next one is scheduled but never answered: no turn runs, so the clock decides.
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(sim.worker("w-1").current?.state).toBe("scheduled");
    const deadline = sim.worker("w-1").stall.baselineAt + 60 * MINUTE;
    sim.advance(deadline - 1 - sim.now);
    expect(sim.worker("w-1").pause).toBeUndefined();
    sim.now = deadline;
    const tick = sim.apply({ type: "tick" });
    expect(sim.worker("w-1").pause?.source).toBe("stall");
    // The stall clock used to keep running for one more pass, arming the timer at this very instant.
    expect(tick.effects.at(-1)).toEqual({ kind: "timer", at: null });
  });
});

describe("continuation-state block signal (completionSignal mcp)", () => {
  it("records the reported status without letting it end, block or resume the worker", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "idle",
      seq: 100,
      continuationStatus: "complete",
    });
    expect(sim.worker("w-1").conversation.reportedStatus).toBe("complete");
    expect(sim.worker("w-1").status).toBe("active");
    sim.advance(3 * SECOND);
    // Durable state stays authoritative: the worker did not call worker_complete, so it resumes.
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });
});
