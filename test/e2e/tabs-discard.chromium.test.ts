// Managed tabs in real Chromium, discarded (docs/e2e.md, "Managed tabs"): the worker's tab is discarded through the
// extension's service worker, as Memory Saver does (the page and its content script go, the tab gets a new id),
// while the worker waits for a person and while a turn runs. The answer still reaches the same conversation exactly
// once; a running turn is still seen to end, and resumed once.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, tool, waitFor } from "./harness.ts";
import { block, completingTurn, expectCleanRun, FAST_POLICY, HeldTurns } from "./scenario-kit.ts";
import {
  closeChatTabs,
  discardTab,
  pageLoadedSince,
  sentAttempts,
  tabsShowing,
  turnRunning,
  waitDone,
} from "./tabs-kit.ts";

let e2e: ChromiumE2E;
let runId: string | undefined;
const held = new HeldTurns();

beforeAll(async () => {
  e2e = await ChromiumE2E.start(await buildExtension("chrome"));
}, 120_000);

beforeEach(() => {
  e2e.fake.reset();
  runId = undefined;
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
  held.releaseAll();
  if (runId) await tool(e2e.mcp, "run_stop", { runId }).catch(() => undefined);
  await e2e.fake.settled();
  await closeChatTabs(e2e);
}, 30_000);

afterAll(async () => {
  await e2e?.close();
});

describe("a discarded tab (Memory Saver) in Chromium", { timeout: 120_000 }, () => {
  it("discarded while the worker waits for a person: the answer goes to the same conversation exactly once", async () => {
    e2e.fake.setAssistant(async (turn) => {
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
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    await e2e.waitWorker(
      workerId,
      "Needs you, turn ended",
      (w) => w.worker.label === "Needs you" && w.worker.conversation.state === "idle",
    );
    const tab = await discardTab(e2e, conversationId);
    expect.soft(tab.autoDiscardable, "a bound tab is exempt from automatic discarding").toBe(false);
    await tool(e2e.mcp, "human_resolve", { workerId, answer: "SQLite" });
    const done = await waitDone(e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "followup"]);
    await e2e.fake.settled();
    const prompts = e2e.fake.stored(conversationId);
    expect(prompts).toHaveLength(2);
    expect(prompts[1]!.text).toContain("SQLite");
    expect(e2e.fake.stored()).toHaveLength(2);
    // The same tab (under its new id), loaded again; no second tab.
    const tabs = await tabsShowing(e2e, conversationId);
    expect(tabs.map((t) => [t.id, t.discarded])).toEqual([[tab.after, false]]);
    expectCleanRun(e2e.fake);
  });

  it("discarded mid-turn: loaded again, the turn's end is seen, one resume, no duplicate", async () => {
    const gate = held.hold();
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        await gate.promise;
        await turn.say(`\n\n${block("working", "half way")}`);
      } else await completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    await e2e.waitWorker(workerId, "our turn running", turnRunning);
    const since = Date.now();
    const tab = await discardTab(e2e, conversationId);
    expect.soft(tab.autoDiscardable, "a bound tab is exempt from automatic discarding").toBe(false);
    // A turn was running: the tab is loaded again at once, and the page picks the live turn up.
    await waitFor(
      () => pageLoadedSince(e2e.fake, conversationId, since),
      "the discarded tab to load again while its turn runs",
      30_000,
    );
    gate.resolve();
    const done = await waitDone(e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    // The first attempt ended with the page's own end of its answer, not before.
    const [end] = e2e.fake.turnEnds(conversationId);
    expect(done.attempts[0]!.terminalAt).toBeGreaterThanOrEqual(end!.t);
    await e2e.fake.settled();
    expect(e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(e2e.fake.stored()).toHaveLength(2);
    expect((await tabsShowing(e2e, conversationId)).map((t) => t.id)).toEqual([tab.after]);
    expectCleanRun(e2e.fake);
  });
});
