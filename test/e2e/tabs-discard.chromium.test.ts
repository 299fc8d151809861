// Managed tabs in real Chromium, discarded (docs/e2e.md, "Managed tabs"): the worker's tab is discarded through the
// extension's service worker, as Memory Saver does (the page and its content script go, the tab gets a new id),
// while the worker waits for a person and while a turn runs. The answer still reaches the same conversation exactly
// once; a running turn is still seen to end, and resumed once.
import { describe, expect, it } from "vitest";
import { tool, waitFor } from "./harness.ts";
import { tabsSuite } from "./tabs-suite.ts";
import { block, completingTurn, expectCleanRun, FAST_POLICY } from "./scenario-kit.ts";
import { discardTab, pageLoadedSince, sentAttempts, tabsShowing, turnRunning, waitDone } from "./tabs-kit.ts";

const suite = tabsSuite();

describe("a discarded tab (Memory Saver) in Chromium", { timeout: 120_000 }, () => {
  it("discarded while the worker waits for a person: the answer goes to the same conversation exactly once", async () => {
    suite.e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("I need a decision first.");
        await turn.tool("worker_await_human", {
          workerId: turn.workerId,
          reason: "choice",
          question: "Postgres or SQLite?",
        });
        await turn.say(`\n\n${block("blocked", "waiting for a database choice")}`);
      } else {
        expect(turn.text).toContain("SQLite");
        await completingTurn(turn);
      }
    });
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    await suite.e2e.waitWorker(
      workerId,
      "Needs you, turn ended",
      (w) => w.worker.label === "Needs you" && w.worker.conversation.state === "idle",
    );
    const tab = await discardTab(suite.e2e, conversationId);
    expect.soft(tab.autoDiscardable, "a bound tab is exempt from automatic discarding").toBe(false);
    await tool(suite.e2e.mcp, "human_resolve", { workerId, answer: "SQLite" });
    const done = await waitDone(suite.e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "followup"]);
    await suite.e2e.fake.settled();
    const prompts = suite.e2e.fake.stored(conversationId);
    expect(prompts).toHaveLength(2);
    expect(prompts[1]!.text).toContain("SQLite");
    expect(suite.e2e.fake.stored()).toHaveLength(2);
    // The same tab (under its new id), loaded again; no second tab.
    const tabs = await tabsShowing(suite.e2e, conversationId);
    expect(tabs.map((t) => [t.id, t.discarded])).toEqual([[tab.after, false]]);
    expectCleanRun(suite.e2e.fake);
  });

  it("discarded mid-turn: loaded again, the turn's end is seen, one resume, no duplicate", async () => {
    const gate = suite.held.hold();
    suite.e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        await gate.promise;
        await turn.say(`\n\n${block("working", "half way")}`);
      } else await completingTurn(turn);
    });
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
    const since = Date.now();
    const tab = await discardTab(suite.e2e, conversationId);
    expect.soft(tab.autoDiscardable, "a bound tab is exempt from automatic discarding").toBe(false);
    // A turn was running: the tab is loaded again at once, and the page picks the live turn up.
    await waitFor(
      () => pageLoadedSince(suite.e2e.fake, conversationId, since),
      "the discarded tab to load again while its turn runs",
      30_000,
    );
    gate.resolve();
    const done = await waitDone(suite.e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    // The first attempt ended with the page's own end of its answer, not before.
    const [end] = suite.e2e.fake.turnEnds(conversationId);
    expect(done.attempts[0]!.terminalAt).toBeGreaterThanOrEqual(end!.t);
    await suite.e2e.fake.settled();
    expect(suite.e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(suite.e2e.fake.stored()).toHaveLength(2);
    expect((await tabsShowing(suite.e2e, conversationId)).map((t) => t.id)).toEqual([tab.after]);
    expectCleanRun(suite.e2e.fake);
  });
});
