// The worker belongs to its conversation, not to a tab, and only proof makes a turn submitted
// (docs/continuation-core.md, "Bindings" and "Submission needs proof"), replayed on the simulated clock.
import { describe, expect, it } from "vitest";
import { CONNECTED_ENV, workerLiveness } from "./liveness.ts";
import { Simulation } from "./simulation.ts";

const SECOND = 1_000;

function live(sim: Simulation, id = "w-1") {
  return workerLiveness(sim.state, sim.worker(id), sim.now, CONNECTED_ENV);
}

/** A worker whose bootstrap turn ran and ended idle; its auto resume is due after the grace. */
function idleWorker(): Simulation {
  const sim = new Simulation();
  sim.start();
  sim.observe("w-1", "idle");
  return sim;
}

describe("a closed or left tab keeps the worker bound to its conversation", () => {
  it("detached: the auto resume still goes out (the browser reopens the tab) and the worker is not held", () => {
    const sim = idleWorker();
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "detached" });
    expect(live(sim)).toMatchObject({ state: "due", reason: "idle_grace" });
    const before = sim.commandsFor("w-1").length;
    sim.advance(3 * SECOND);
    const sent = sim.commandsFor("w-1");
    expect(sent).toHaveLength(before + 1);
    expect(sent.at(-1)?.type).toBe("conversation.send");
  });

  it("detached: Continue now makes its one attempt instead of refusing", () => {
    const sim = new Simulation();
    sim.start({ mode: "manual" });
    sim.observe("w-1", "idle");
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "detached" });
    const before = sim.commandsFor("w-1").length;
    expect(sim.try({ type: "worker.continue_now", workerId: "w-1" }).error).toBeUndefined();
    expect(sim.commandsFor("w-1")).toHaveLength(before + 1);
  });

  it("detached mid-turn: waiting for the page to report (the browser reopens it), never a silent generating", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "detached" });
    expect(live(sim)).toMatchObject({ state: "held", reason: "page_loading", needsYou: false });
    // The reopened tab reports: bound again, the turn's end is seen, the resume goes out once.
    sim.observe("w-1", "generating");
    expect(sim.worker("w-1").conversation.binding).toBe("bound");
    sim.observe("w-1", "idle");
    const before = sim.commandsFor("w-1").length;
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(before + 1);
  });

  it("closed with reopening off: held 'Tab closed' with its remedy; Continue now says how to reopen", () => {
    const sim = idleWorker();
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "closed" });
    const before = sim.commandsFor("w-1").length;
    sim.advance(10 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(before);
    expect(live(sim)).toMatchObject({ state: "held", reason: "tab_closed", needsYou: true });
    const refused = sim.try({ type: "worker.continue_now", workerId: "w-1" }).error;
    expect(refused?.code).toBe("CONVERSATION_UNAVAILABLE");
    expect(refused?.message).toMatch(/reopen/i);
    // A person reopens it: the tab reports, the worker is bound and resumes once.
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "bound" });
    sim.observe("w-1", "ready");
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(before + 1);
  });

  it("a page unloading mid-turn (reload) ends nothing: the attempt stays open until the real end", () => {
    const sim = new Simulation();
    sim.start();
    const attempt = sim.worker("w-1").current;
    sim.observe("w-1", "closed");
    expect(sim.worker("w-1").current).toEqual(attempt);
    expect(sim.worker("w-1").conversation.binding).toBe("bound");
    expect(live(sim)).toMatchObject({ state: "moving", reason: "generating" });
    sim.observe("w-1", "generating"); // the reloaded page: the reply resumed
    expect(sim.worker("w-1").current?.state).toBe("generating");
    sim.observe("w-1", "idle");
    expect(sim.worker("w-1").current?.state).not.toBe("generating");
  });
});

describe("submission needs proof", () => {
  it("a turn that generates while our command is pending is not proof it was delivered", () => {
    const sim = idleWorker();
    sim.advance(3 * SECOND);
    expect(sim.worker("w-1").current?.state).toBe("scheduled");
    sim.observe("w-1", "generating"); // the turn before ours streams on (a pause the page resumed)
    expect(sim.worker("w-1").current?.state).toBe("scheduled");
    expect(sim.eventTypes("w-1").filter((t) => t === "execution.submitted")).toHaveLength(1); // the bootstrap only
  });

  it("SEND_IGNORED: not delivered; the one continue goes out after the running turn ends", () => {
    const sim = idleWorker();
    sim.advance(3 * SECOND);
    sim.observe("w-1", "generating");
    sim.result("w-1", "SEND_IGNORED");
    expect(sim.worker("w-1").current?.state).toBe("cancelled");
    expect(sim.worker("w-1").intent).toBeDefined();
    const before = sim.commandsFor("w-1").length;
    sim.advance(60 * SECOND); // still generating: nothing is sent into the running turn
    expect(sim.commandsFor("w-1")).toHaveLength(before);
    sim.observe("w-1", "idle");
    sim.advance(3 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(before + 1);
    expect(sim.commandsFor("w-1").at(-1)?.type).toBe("conversation.send");
  });

  it("DRAFT_IN_COMPOSER: held 'your draft is in the composer', looked at again in 15 s, never sent over it", () => {
    const sim = idleWorker();
    sim.advance(3 * SECOND);
    sim.result("w-1", "DRAFT_IN_COMPOSER");
    expect(live(sim)).toMatchObject({
      state: "due",
      reason: "draft_in_composer",
      needsYou: true,
      until: sim.now + 15 * SECOND,
    });
    const before = sim.commandsFor("w-1").length;
    sim.advance(15 * SECOND);
    expect(sim.commandsFor("w-1")).toHaveLength(before + 1);
  });
});

describe("the idle grace counts from the page's own end of turn", () => {
  function endTurn(sim: Simulation, since: number) {
    sim.apply({ type: "conversation.observed", workerId: "w-1", state: "idle", seq: 1_000, since });
  }

  it("the report came 400 ms after the page's evidence: the resume is due 400 ms sooner", () => {
    const sim = new Simulation();
    sim.start();
    endTurn(sim, sim.now - 400);
    expect(live(sim)).toMatchObject({ state: "due", reason: "idle_grace", until: sim.now + 2_600 });
    const before = sim.commandsFor("w-1").length;
    sim.advance(2_600);
    expect(sim.commandsFor("w-1")).toHaveLength(before + 1);
  });

  it("an evidence time far in the past counts at most 5 s; one in the future counts as now", () => {
    const sim = new Simulation();
    sim.start();
    const before = sim.commandsFor("w-1").length;
    endTurn(sim, sim.now - 60_000);
    // Counted from 5 s ago, the grace (3 s) is over: the resume goes out at once.
    expect(sim.commandsFor("w-1")).toHaveLength(before + 1);

    const later = new Simulation();
    later.start();
    endTurn(later, later.now + 60_000);
    expect(later.worker("w-1").intent?.notBefore).toBe(later.now + 3 * SECOND);
  });
});

describe("the core records which browser holds a worker's conversation (the bridge routes by it)", () => {
  const holder = (sim: Simulation) => sim.worker("w-1").conversation.executorId;

  it("a bound or detached binding, a state report and a routed command name the holder; a closed binding keeps it", () => {
    const sim = new Simulation();
    sim.start();
    expect(holder(sim)).toBeUndefined();
    sim.apply({ type: "conversation.held", workerId: "w-1", executorId: "chrome" });
    expect(holder(sim)).toBe("chrome");
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "detached", executorId: "firefox" });
    expect(holder(sim)).toBe("firefox");
    // A browser that closed the tab (reopening off) or lost it does not take the worker; the holder stays.
    sim.apply({ type: "binding.changed", workerId: "w-1", binding: "closed", executorId: "chrome" });
    expect(holder(sim)).toBe("firefox");
    sim.apply({
      type: "conversation.observed",
      workerId: "w-1",
      state: "idle",
      seq: 9,
      executorId: "chrome",
    });
    expect(holder(sim)).toBe("chrome");
    // Even a stale report comes from the browser showing the conversation.
    sim.apply({ type: "conversation.observed", workerId: "w-1", state: "idle", seq: 1, executorId: "edge" });
    expect(holder(sim)).toBe("edge");
  });

  it("an adopted conversation is held by the browser that asked", () => {
    const sim = new Simulation();
    sim.apply({
      type: "worker.adopt",
      workerId: "w-1",
      runId: "r",
      newRun: { name: "kept" },
      conversationUrl: "https://chatgpt.com/c/0b0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
      executorId: "chrome",
    });
    expect(holder(sim)).toBe("chrome");
  });
});
