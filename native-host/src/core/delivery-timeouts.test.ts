// Commands that did not reach the conversation: repeated delivery timeouts each get one fresh `continue` and count as
// turns without progress (docs/continuation-core.md, "Stall guard"), so the stall rules end the series; a refused
// create is tried again on Continue now.
import { describe, expect, it } from "vitest";
import { Simulation } from "./simulation.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

function timeoutSeries(): Simulation {
  const sim = new Simulation();
  sim.spawn({ policy: { stallWarningAfterNoProgressAttempts: 2, stallPauseAfterNoProgressAttempts: 3 } });
  sim.result("w-1");
  sim.observe("w-1", "generating");
  return sim;
}

/** The page shows "Message delivery timed out" on the newest turn; the grace passes. */
function timeOut(sim: Simulation): void {
  sim.observe("w-1", "error", "MESSAGE_DELIVERY_TIMEOUT");
  sim.advance(3 * SECOND);
}

describe("repeated delivery timeouts", () => {
  it("each gets one fresh continue until the stall rules warn and then pause the worker", () => {
    const sim = timeoutSeries();
    const types = () => sim.events.map((e) => e.type);
    timeOut(sim);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    expect(sim.commandsFor("w-1")[1]).toMatchObject({
      type: "conversation.send",
      prompt: { kind: "continue" },
    });
    sim.result("w-1");
    sim.observe("w-1", "generating");
    timeOut(sim);
    expect(sim.commandsFor("w-1")).toHaveLength(3);
    expect(types()).toContain("continuation.warning");
    expect(types()).not.toContain("continuation.paused_for_stall");
    sim.result("w-1");
    sim.observe("w-1", "generating");
    timeOut(sim);
    // The third turn without progress pauses the worker: no fourth submission, however long we wait.
    expect(types()).toContain("continuation.paused_for_stall");
    expect(sim.worker("w-1").pause?.source).toBe("stall");
    sim.advance(60 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(3);
  });

  it("while the operator has paused the worker, a timeout's continue waits for Resume, then goes once", () => {
    const sim = timeoutSeries();
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    timeOut(sim);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.apply({ type: "worker.resume", workerId: "w-1" });
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    sim.advance(30 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });
});

describe("a command that never reached a conversation", () => {
  it("a create refused before any tab showed it (DEADLINE_EXCEEDED) is tried again with backoff, never left waiting", () => {
    const sim = new Simulation();
    sim.spawn();
    sim.result("w-1", "DEADLINE_EXCEEDED");
    // Nothing can change a conversation that does not exist: the host retries after 5 s, 30 s, 2 min, then every 10 min.
    sim.advance(5 * SECOND - 1);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.advance(1);
    expect(sim.commandsFor("w-1").map((c) => c.type)).toEqual(["conversation.create", "conversation.create"]);
    sim.result("w-1", "DEADLINE_EXCEEDED");
    sim.advance(30 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(3);
    sim.result("w-1", "DEADLINE_EXCEEDED");
    sim.advance(2 * MINUTE);
    expect(sim.commandsFor("w-1")).toHaveLength(4);
    sim.result("w-1", "DEADLINE_EXCEEDED");
    sim.advance(10 * MINUTE - 1);
    expect(sim.commandsFor("w-1")).toHaveLength(4);
    sim.advance(1);
    expect(sim.commandsFor("w-1")).toHaveLength(5);
    // Every attempt is the initial turn: a bootstrap the browser proved undelivered is still the first turn.
    expect(sim.commandsFor("w-1").every((c) => c.prompt.kind === "bootstrap")).toBe(true);
  });

  it("a browser that connects ends the backoff: the create goes at once, exactly once", () => {
    const sim = new Simulation();
    sim.spawn();
    sim.result("w-1", "EXECUTOR_UNAVAILABLE");
    sim.advance(SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(1);
    sim.apply({ type: "executor.connected", executorId: "x" });
    expect(sim.commandsFor("w-1")).toHaveLength(2);
    sim.apply({ type: "executor.connected", executorId: "y" });
    sim.advance(10 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });

  it("Continue now retries at once, overriding the backoff", () => {
    const sim = new Simulation();
    sim.spawn();
    sim.result("w-1", "DEADLINE_EXCEEDED");
    sim.result("w-1", "DEADLINE_EXCEEDED");
    sim.apply({ type: "worker.continue_now", workerId: "w-1" });
    expect(sim.commandsFor("w-1")).toHaveLength(2);
  });
});
