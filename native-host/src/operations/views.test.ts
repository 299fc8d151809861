// Operator words for a worker's state: a turn held only because Auto Resume is off reads Idle (Continue now is
// offered), never Resuming; with Auto Resume on, or after Continue now, the pending turn is Resuming.
import { describe, expect, it } from "vitest";
import { CONNECTED_ENV } from "../core/liveness.ts";
import { Simulation } from "../core/simulation.ts";
import { runView, stateLabel, workerView } from "./views.ts";

function endedTurn(mode: "auto" | "manual"): Simulation {
  const sim = new Simulation();
  sim.start({ mode });
  sim.observe("w-1", "idle"); // the idle wake waits out the grace period
  return sim;
}

/** The view at the simulation's time (a browser connected). */
const at = (sim: Simulation) => ({ now: sim.now, env: CONNECTED_ENV });
const label = (sim: Simulation) => workerView(sim.state, sim.worker("w-1"), at(sim)).label;

describe("stateLabel", () => {
  it("Auto Resume off: the idle turn held for a person is Idle, in the worker view and the run's counts", () => {
    const sim = endedTurn("manual");
    sim.advance(60_000);
    expect(sim.worker("w-1").intent).toBeDefined(); // the core still holds the wake (manual_policy)
    expect(label(sim)).toBe("Idle");
    expect(runView(sim.state, sim.state.runs["run-1"]!, at(sim)).counts).toMatchObject({
      Idle: 1,
      Resuming: 0,
    });
    // The label is the liveness's word: held, Auto Resume off, with Continue now as the remedy.
    expect(workerView(sim.state, sim.worker("w-1"), at(sim)).liveness).toMatchObject({
      state: "held",
      reason: "auto_resume_off",
      remedy: { action: "continue_now" },
    });
    expect(stateLabel(sim.worker("w-1"), undefined)).toBe("Idle");
  });

  it("Auto Resume off, then Continue now: Resuming until the turn is sent", () => {
    const sim = endedTurn("manual");
    sim.apply({ type: "worker.continue_now", workerId: "w-1" });
    expect(label(sim)).toBe("Resuming");
  });

  it("Auto Resume on: the idle wake in its grace period is Resuming", () => {
    const sim = endedTurn("auto");
    expect(label(sim)).toBe("Resuming");
  });

  it("a tool-confirmation card holds the turn: Needs you, nothing is sent while it shows, Working once answered", () => {
    const sim = new Simulation();
    sim.start({ mode: "auto" });
    sim.observe("w-1", "error", "AWAITING_APPROVAL");
    const view = workerView(sim.state, sim.worker("w-1"), at(sim));
    expect(view.label).toBe("Needs you");
    expect(view.conversation).toMatchObject({ state: "error", errorCode: "AWAITING_APPROVAL" });
    expect(runView(sim.state, sim.state.runs["run-1"]!, at(sim)).counts).toMatchObject({ "Needs you": 1 });
    // Ten minutes later (far past the idle grace) nothing has been sent: the card is a person's decision.
    const before = sim.worker("w-1").current?.seq;
    sim.advance(10 * 60_000);
    expect(sim.worker("w-1").intent).toBeUndefined();
    expect(sim.worker("w-1").current?.seq).toBe(before);
    expect(label(sim)).toBe("Needs you");
    // The person answers the card in ChatGPT; the turn streams on.
    sim.observe("w-1", "generating");
    expect(label(sim)).toBe("Working");
  });
});
