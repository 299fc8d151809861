// Managed tabs in real Chromium, used by the person (docs/e2e.md, "Managed tabs"): the worker's tab opens another chat
// from the sidebar and comes back (Back button), while the worker is paused and while its turn runs, and the
// conversation is opened in a second tab. The worker is rebound to the tab that shows its conversation again, and no
// conversation ever gets two sends for one turn.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { tool, waitFor } from "./harness.ts";
import { tabsSuite } from "./tabs-suite.ts";
import { block, completingTurn, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";
import {
  conversationUrl,
  pageLoadedSince,
  sentAttempts,
  tabsShowing,
  turnRunning,
  waitBindingLeft,
  waitDone,
  waitStored,
  workerEvents,
} from "./tabs-kit.ts";

const suite = tabsSuite();

/** Turn 1 runs until the test releases it; then `more` working turns; the last one completes. */
function heldTurns(more: number): { release: () => void } {
  const gate = suite.held.hold();
  suite.e2e.fake.setAssistant(async (turn) => {
    if (turn.index === 1) {
      await turn.say("Working on it.");
      await gate.promise;
      await turn.say(`\n\n${block("working", "half way")}`);
    } else if (turn.index <= more) await workingTurn(turn, `step ${turn.index}`);
    else await completingTurn(turn);
  });
  return { release: gate.resolve };
}

/**
 * The person opens another chat from the sidebar of the worker's tab (the app changes the URL itself; the content
 * script stays), then goes back with the browser's Back button (the page loads the conversation again). Resolves with
 * the moment of going back.
 */
async function awayAndBack(
  page: Page,
  workerId: string,
  conversationId: string,
  other: string,
): Promise<number> {
  const since = Date.now();
  await page.locator(`nav a[href="/c/${other}"]`).click();
  await waitFor(() => page.url().includes(other), "the tab to show the other chat");
  await waitBindingLeft(suite.e2e, workerId, since, "the binding to leave the tab");
  const back = Date.now();
  await page.goBack();
  await waitFor(
    () => pageLoadedSince(suite.e2e.fake, conversationId, back),
    "the tab to show the conversation again",
  );
  return back;
}

describe("the person uses the worker's conversation in Chromium", { timeout: 120_000 }, () => {
  it("paused, the tab opens another chat and comes back: rebound to it, Continue now goes there once", async () => {
    // Another chat of the person's, listed in the sidebar.
    const other = suite.e2e.fake.seedConversation();
    const turns = heldTurns(1);
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    const page = await suite.e2e.pageFor(conversationId);
    await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
    await tool(suite.e2e.mcp, "worker_pause", { workerId });
    turns.release();
    await suite.e2e.waitWorker(
      workerId,
      "paused after the turn",
      (w) => w.worker.label === "Paused" && w.worker.conversation.state === "idle",
    );
    const back = await awayAndBack(page, workerId, conversationId, other);
    // Rebound to the person's tab: nothing needed the conversation meanwhile, so no tab was opened for it.
    await waitFor(
      async () =>
        (await workerEvents(suite.e2e, workerId)).some(
          (e) => e.type === "binding.changed" && e.at >= back && e.data.binding === "bound",
        ) && (await suite.e2e.worker(workerId)).worker.conversation.binding === "bound",
      "rebound to the tab that shows the conversation again",
      30_000,
    );
    expect(await tabsShowing(suite.e2e, conversationId), "tabs on the conversation").toHaveLength(1);
    await tool(suite.e2e.mcp, "worker_continue_now", { workerId, clearPause: true });
    await waitStored(suite.e2e.fake, conversationId, 2, "Continue now's prompt");
    const done = await waitDone(suite.e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "manual_resume"]);
    await suite.e2e.fake.settled();
    expect(suite.e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(suite.e2e.fake.stored()).toHaveLength(2);
    expect(suite.e2e.fake.conversations.get(other)?.turns, "the other chat untouched").toHaveLength(2);
    expect(await tabsShowing(suite.e2e, conversationId), "tabs on the conversation").toHaveLength(1);
    expectCleanRun(suite.e2e.fake);
  });

  it("mid-turn, the tab opens another chat and comes back: one resume, no duplicate", async () => {
    const other = suite.e2e.fake.seedConversation();
    const turns = heldTurns(1);
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    const page = await suite.e2e.pageFor(conversationId);
    await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
    await awayAndBack(page, workerId, conversationId, other);
    turns.release();
    const done = await waitDone(suite.e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    await suite.e2e.fake.settled();
    expect(suite.e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(suite.e2e.fake.stored()).toHaveLength(2);
    expect(suite.e2e.fake.conversations.get(other)?.turns, "the other chat untouched").toHaveLength(2);
    expectCleanRun(suite.e2e.fake);
  });

  it("the conversation is open in a second tab as well: one send per turn", async () => {
    const turns = heldTurns(2);
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    await suite.e2e.pageFor(conversationId);
    await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
    const second = await suite.e2e.context.newPage();
    await second.goto(conversationUrl(conversationId));
    turns.release();
    const done = await waitDone(suite.e2e, workerId, 60_000);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "auto_resume", "auto_resume"]);
    await suite.e2e.fake.settled();
    expect(suite.e2e.fake.stored(conversationId)).toHaveLength(3);
    expect(suite.e2e.fake.stored()).toHaveLength(3);
    expect(await tabsShowing(suite.e2e, conversationId)).toHaveLength(2);
    expectCleanRun(suite.e2e.fake);
  });

  it("the worker's tab is closed while a second tab shows the conversation: the resume goes there, once", async () => {
    const turns = heldTurns(1);
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    const first = await suite.e2e.pageFor(conversationId);
    await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
    const second = await suite.e2e.context.newPage();
    await second.goto(conversationUrl(conversationId));
    await first.close();
    turns.release();
    await waitStored(suite.e2e.fake, conversationId, 2, "the automatic resume");
    const done = await waitDone(suite.e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    await suite.e2e.fake.settled();
    expect(suite.e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(suite.e2e.fake.stored()).toHaveLength(2);
    // The tab that shows the conversation took it; none was reopened beside it.
    expect.soft(await tabsShowing(suite.e2e, conversationId), "tabs on the conversation").toHaveLength(1);
    expectCleanRun(suite.e2e.fake);
  });
});
