// Managed tabs in Debian's Firefox ESR (WebDriver BiDi; docs/e2e.md, "Managed tabs"): the person closes the worker's
// tab, and the next command, a Continue now or an automatic resume, reopens the conversation in a background tab and
// sends once. (No discard here: it needs the extension's own tabs API, which these tests reach only through
// Chromium's service worker.)
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AssistantTurn } from "../fake-chatgpt/server.ts";
import { tool, waitFor } from "./harness.ts";
import { FirefoxE2E } from "./firefox-kit.ts";
import { livenessOf } from "./liveness-kit.ts";
import { block, expectCleanRun, FAST_POLICY, HeldTurns } from "./scenario-kit.ts";
import { sentAttempts, turnRunning, waitBindingLeft, waitDoneIn } from "./tabs-kit.ts";

let ff: FirefoxE2E;
let runId: string | undefined;
const held = new HeldTurns();

beforeAll(async () => {
  ff = await FirefoxE2E.start();
}, 180_000);

beforeEach(() => {
  ff.fake.reset();
  runId = undefined;
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await ff.diagnostics());
  held.releaseAll();
  if (runId) await tool(ff.mcp, "run_stop", { runId }).catch(() => undefined);
  await ff.fake.settled();
  for (const t of await ff.firefox.tabs())
    if (t.url.startsWith("https://chatgpt.com")) await ff.firefox.closeTab(t.context).catch(() => undefined);
}, 30_000);

afterAll(async () => {
  await ff?.close();
}, 60_000);

/**
 * The last turn completes. It takes a moment first: Firefox proves a submission only once generation shows, and an
 * answer already complete by then waits for the adapter's fallback (docs/e2e.md, "Known gaps").
 */
async function slowCompletingTurn(turn: AssistantTurn): Promise<void> {
  await turn.wait(2_500);
  await turn.say("Finishing up.");
  await turn.tool("worker_complete", { workerId: turn.workerId, summary: "all done" });
  await turn.say(`\n\n${block("complete", "all done")}`);
}

/** One tab on the conversation, in the background, and exactly two prompts, both there. */
async function expectReopenedOnce(
  conversationId: string,
  reasons: string[],
  workerId: string,
): Promise<void> {
  const done = await waitDoneIn(ff, ff.fake, workerId, 60_000);
  expect(sentAttempts(done).map((a) => a.reason)).toEqual(reasons);
  const tabs = await ff.tabsShowing(conversationId);
  expect(tabs, "tabs on the conversation").toHaveLength(1);
  expect(await ff.firefox.evaluate(tabs[0]!, "document.visibilityState"), "the reopened tab").toBe("hidden");
  await ff.fake.settled();
  expect(ff.fake.stored(conversationId)).toHaveLength(2);
  expect(ff.fake.stored()).toHaveLength(2);
  expectCleanRun(ff.fake);
}

describe("a closed tab in Firefox ESR", { timeout: 150_000 }, () => {
  it("closed while paused, then Continue now: reopened in a background tab, sent once", async () => {
    const gate = held.hold();
    ff.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        await gate.promise;
        await turn.say(`\n\n${block("working", "half way")}`);
      } else await slowCompletingTurn(turn);
    });
    runId = await ff.createRun(FAST_POLICY);
    const workerId = await ff.spawn(runId, "/root");
    const conversationId = await ff.conversationOf(workerId);
    await ff.waitWorker(workerId, "our turn running", turnRunning);
    await tool(ff.mcp, "worker_pause", { workerId });
    gate.resolve();
    await ff.waitWorker(
      workerId,
      "paused after the turn",
      (w) => w.worker.label === "Paused" && w.worker.conversation.state === "idle",
    );
    const [tab] = await waitFor(async () => {
      const tabs = await ff.tabsShowing(conversationId);
      return tabs.length > 0 && tabs;
    }, "the worker's tab");
    const since = Date.now();
    await ff.firefox.closeTab(tab!);
    await waitBindingLeft(ff, workerId, since, "the binding to leave the closed tab");
    await tool(ff.mcp, "worker_continue_now", { workerId, clearPause: true });
    await waitFor(
      () => ff.fake.stored(conversationId).length >= 2,
      "Continue now's prompt in the reopened conversation",
      45_000,
    );
    await expectReopenedOnce(conversationId, ["initial", "manual_resume"], workerId);
  });

  it("closed during the idle grace: the automatic resume reopens it and sends once", async () => {
    ff.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.wait(2_500);
        await turn.say(`Looking at the repository.\n\n${block("working", "step 1")}`);
      } else await slowCompletingTurn(turn);
    });
    runId = await ff.createRun({ ...FAST_POLICY, idleGraceMs: 5_000 });
    const workerId = await ff.spawn(runId, "/root");
    const conversationId = await ff.conversationOf(workerId);
    await ff.waitWorker(workerId, "in its idle grace", (w) => livenessOf(w)?.reason === "idle_grace");
    const [tab] = await ff.tabsShowing(conversationId);
    expect(tab, "the worker's tab").toBeDefined();
    const since = Date.now();
    await ff.firefox.closeTab(tab!);
    await waitBindingLeft(ff, workerId, since, "the binding to leave the closed tab");
    expect(sentAttempts(await ff.worker(workerId)), "closed before the resume went out").toHaveLength(1);
    await waitFor(
      () => ff.fake.stored(conversationId).length >= 2,
      "the automatic resume in the reopened conversation",
      45_000,
    );
    await expectReopenedOnce(conversationId, ["initial", "auto_resume"], workerId);
  });
});
