// Managed tabs in real Chromium, closed by the person (docs/e2e.md, "Managed tabs"): the worker stays bound to its
// conversation, and the next command reopens it in a background tab and sends once, whether that command is a
// person's Continue now or an automatic resume (the tab closed during the idle grace, or in the middle of a turn).
// With reopening turned off in the settings, the worker waits as "Tab closed" until the person opens it again.
import { describe, expect, it } from "vitest";
import { tool, type WorkerOut } from "./harness.ts";
import { tabsSuite } from "./tabs-suite.ts";
import { livenessOf, quietFor, waitLiveness } from "./liveness-kit.ts";
import { block, completingTurn, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";
import {
  conversationUrl,
  sentAttempts,
  setReopenClosedTabs,
  tabsShowing,
  turnRunning,
  waitBindingLeft,
  waitDone,
  waitStored,
} from "./tabs-kit.ts";

const suite = tabsSuite();

/** Turn 1 runs until the test releases it and says it is still working; turn 2 completes. */
function heldThenComplete(): { release: () => void } {
  const gate = suite.held.hold();
  suite.e2e.fake.setAssistant(async (turn) => {
    if (turn.index === 1) {
      await turn.say("Working on it.");
      await gate.promise;
      await turn.say(`\n\n${block("working", "half way")}`);
    } else await completingTurn(turn);
  });
  return { release: gate.resolve };
}

/** After the resume: one tab on the conversation, opened in the background, and exactly two prompts, both there. */
async function expectReopenedOnce(conversationId: string, reasons: string[], done: WorkerOut): Promise<void> {
  expect(sentAttempts(done).map((a) => a.reason)).toEqual(reasons);
  const tabs = await tabsShowing(suite.e2e, conversationId);
  expect(tabs, "tabs on the conversation").toHaveLength(1);
  expect(tabs[0]!.active, "the reopened tab is in the background").toBe(false);
  await suite.e2e.fake.settled();
  expect(suite.e2e.fake.stored(conversationId)).toHaveLength(2);
  expect(suite.e2e.fake.stored()).toHaveLength(2);
  expectCleanRun(suite.e2e.fake);
}

describe("a closed tab in Chromium", { timeout: 120_000 }, () => {
  it("closed while paused, then Continue now: reopened in a background tab, sent once", async () => {
    const turn1 = heldThenComplete();
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    const page = await suite.e2e.pageFor(conversationId);
    await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
    await tool(suite.e2e.mcp, "worker_pause", { workerId });
    turn1.release();
    await suite.e2e.waitWorker(
      workerId,
      "paused after the turn",
      (w) => w.worker.label === "Paused" && w.worker.conversation.state === "idle",
    );
    const since = Date.now();
    await page.close();
    await waitBindingLeft(suite.e2e, workerId, since, "the binding to leave the closed tab");
    await tool(suite.e2e.mcp, "worker_continue_now", { workerId, clearPause: true });
    await waitStored(suite.e2e.fake, conversationId, 2, "Continue now's prompt in the reopened conversation");
    await expectReopenedOnce(
      conversationId,
      ["initial", "manual_resume"],
      await waitDone(suite.e2e, workerId),
    );
  });

  it("closed during the idle grace: the automatic resume reopens it and sends once", async () => {
    suite.e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) await workingTurn(turn, "step 1");
      else await completingTurn(turn);
    });
    // A grace long enough to close the tab inside it.
    const runId = await suite.createRun({ ...FAST_POLICY, idleGraceMs: 5_000 });
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    const page = await suite.e2e.pageFor(conversationId);
    await suite.e2e.waitWorker(workerId, "in its idle grace", (w) => livenessOf(w)?.reason === "idle_grace");
    const since = Date.now();
    await page.close();
    await waitBindingLeft(suite.e2e, workerId, since, "the binding to leave the closed tab");
    expect(sentAttempts(await suite.e2e.worker(workerId)), "closed before the resume went out").toHaveLength(
      1,
    );
    await waitStored(suite.e2e.fake, conversationId, 2, "the automatic resume in the reopened conversation");
    await expectReopenedOnce(conversationId, ["initial", "auto_resume"], await waitDone(suite.e2e, workerId));
  });

  it("closed mid-turn: the automatic resume reopens it and sends once", async () => {
    const turn1 = heldThenComplete();
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    const page = await suite.e2e.pageFor(conversationId);
    await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
    const since = Date.now();
    await page.close();
    // The browser may open the conversation again at once, to see the running turn end.
    await waitBindingLeft(suite.e2e, workerId, since, "the binding to leave the closed tab");
    turn1.release();
    await waitStored(
      suite.e2e.fake,
      conversationId,
      2,
      "the automatic resume in the reopened conversation",
      60_000,
    );
    await expectReopenedOnce(conversationId, ["initial", "auto_resume"], await waitDone(suite.e2e, workerId));
  });

  it("reopening turned off: held as Tab closed, nothing sent; opened again by the person: one resume there", async () => {
    await setReopenClosedTabs(suite.e2e, false);
    // Turned back on for the other scenarios even if this one fails.
    try {
      const turn1 = heldThenComplete();
      const runId = await suite.createRun(FAST_POLICY);
      const workerId = await suite.e2e.spawn(runId, "/root");
      const conversationId = await suite.e2e.conversationOf(workerId);
      const page = await suite.e2e.pageFor(conversationId);
      await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
      await page.close();
      await suite.e2e.waitWorker(
        workerId,
        "binding closed",
        (w) => w.worker.conversation.binding === "closed",
      );
      turn1.release();
      await suite.e2e.fake.settled();
      await waitLiveness(suite.e2e, workerId, "tab_closed");
      await quietFor(
        suite.e2e,
        workerId,
        3_000,
        "Tab closed: nothing is sent",
        (w) => livenessOf(w)?.reason === "tab_closed",
      );
      expect(await tabsShowing(suite.e2e, conversationId), "no tab reopened").toEqual([]);
      // The person opens the conversation again (a tab in front, as a person's is).
      const again = await suite.e2e.context.newPage();
      await again.goto(conversationUrl(conversationId));
      await waitStored(suite.e2e.fake, conversationId, 2, "the resume in the person's tab");
      const done = await waitDone(suite.e2e, workerId);
      expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
      expect(await tabsShowing(suite.e2e, conversationId)).toHaveLength(1);
      await suite.e2e.fake.settled();
      expect(suite.e2e.fake.stored(conversationId)).toHaveLength(2);
      expect(suite.e2e.fake.stored()).toHaveLength(2);
      expectCleanRun(suite.e2e.fake);
    } finally {
      await setReopenClosedTabs(suite.e2e, true);
    }
  });
});
