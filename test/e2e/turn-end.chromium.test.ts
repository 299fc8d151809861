// When a turn ends, in real Chromium (docs/e2e.md, "Managed tabs"): only the page's own finished-turn evidence ends
// it. A pause in the middle of a turn with no Stop and no busy signal, during which the page ignores a send, leads to
// no phantom submission and to exactly one real continue after the turn's end; a reload in the middle of a turn
// (streaming, and again in such a pause) ends nothing: the attempt stays open until the page's real end.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, tool, waitFor, type WorkerOut } from "./harness.ts";
import { quietFor } from "./liveness-kit.ts";
import { block, completingTurn, expectCleanRun, FAST_POLICY, HeldTurns } from "./scenario-kit.ts";
import {
  closeChatTabs,
  composerDraft,
  sentAttempts,
  turnRunning,
  waitDone,
  workerEvents,
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

/** The first attempt's turn is still open (submitted or generating), and nothing else went out. */
const firstTurnOpen = (w: WorkerOut) =>
  ["submitted", "generating"].includes(w.attempts[0]?.state ?? "") && sentAttempts(w).length === 1;

describe("the end of a turn in Chromium", { timeout: 120_000 }, () => {
  it("a send the page ignores in a pause without Stop: no submission for it, one real continue after the turn", async () => {
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        // Long enough for a quiet-period rule to take the pause for the end; over as soon as the page ignored a send.
        await turn.quietPause(
          waitFor(() => e2e.fake.ignoredSends().length > 0, "a send the page ignores", 6_000).then(
            () => undefined,
            () => undefined,
          ),
        );
        await turn.say(`\n\nStill at it.\n\n${block("working", "half way")}`);
      } else await completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    const page = await e2e.pageFor(conversationId);
    const done = await waitDone(e2e, workerId, 60_000);
    await e2e.fake.settled();
    const ignored = e2e.fake.ignoredSends().length;
    console.log(`sends the page ignored: ${ignored}`);
    const sent = sentAttempts(done);
    expect(sent.map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    // Every submission the host recorded is a user message on the page: none for the ignored send.
    const submitted = (await workerEvents(e2e, workerId)).filter((e) => e.type === "execution.submitted");
    expect(submitted.map((e) => e.data.execution?.seq)).toEqual(sent.map((a) => a.seq));
    const prompts = e2e.fake.stored(conversationId);
    expect(prompts).toHaveLength(2);
    // The one continue went out after the page's own end of the first answer.
    const [end] = e2e.fake.turnEnds(conversationId);
    expect(prompts[1]!.at).toBeGreaterThanOrEqual(end!.t);
    // An attempt the page ignored was never delivered.
    for (const a of done.attempts.filter((x) => x.errorCode === "SEND_IGNORED"))
      expect(a.submittedAt, `attempt ${a.seq}`).toBeNull();
    expect(await composerDraft(page), "the draft left in the composer").toBe("");
    expectCleanRun(e2e.fake);
  });

  it("reloads mid-turn (streaming, then in a pause without Stop): the attempt stays open until the page's real end", async () => {
    const streaming = held.hold();
    const pause = held.hold();
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        await streaming.promise;
        await turn.say(" Reading the code.");
        await turn.quietPause(pause.promise);
        await turn.say(`\n\n${block("working", "half way")}`);
      } else await completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    const page = await e2e.pageFor(conversationId);
    await e2e.waitWorker(workerId, "our turn running", turnRunning);
    await page.reload();
    // Longer than any quiet period an adapter might take for an end.
    await quietFor(e2e, workerId, 4_000, "reloaded while streaming: the turn goes on", firstTurnOpen);
    streaming.resolve();
    const since = Date.now();
    await waitFor(
      () => e2e.fake.log.some((e) => e.source === "page" && e.kind === "quiet-pause" && e.at >= since),
      "the page to show the pause",
    );
    await page.reload();
    await quietFor(e2e, workerId, 4_000, "reloaded in a pause without Stop: the turn goes on", firstTurnOpen);
    pause.resolve();
    const done = await waitDone(e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    const [end] = e2e.fake.turnEnds(conversationId);
    expect(done.attempts[0]!.terminalAt, "the first attempt ended at the page's end").toBeGreaterThanOrEqual(
      end!.t,
    );
    const idle = (await workerEvents(e2e, workerId)).find(
      (e) => e.type === "execution.idle" && e.data.execution?.seq === 1,
    );
    expect(idle?.at, "the host's idle for the first turn").toBeGreaterThanOrEqual(end!.t);
    await e2e.fake.settled();
    expect(e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(e2e.fake.stored()).toHaveLength(2);
    expectCleanRun(e2e.fake);
  });
});
