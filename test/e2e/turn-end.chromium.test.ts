// When a turn ends, in real Chromium (docs/e2e.md, "Managed tabs"): only the page's own finished-turn evidence ends
// it. A pause in the middle of a turn with no Stop and no busy signal, during which the page ignores a send, leads to
// no phantom submission and to exactly one real continue after the turn's end; a reload in the middle of a turn
// (streaming, and again in such a pause) ends nothing: the attempt stays open until the page's real end.
import { describe, expect, it } from "vitest";
import { waitFor, type WorkerOut } from "./harness.ts";
import { quietFor } from "./liveness-kit.ts";
import { tabsSuite } from "./tabs-suite.ts";
import { block, completingTurn, expectCleanRun, FAST_POLICY } from "./scenario-kit.ts";
import { composerDraft, sentAttempts, turnRunning, waitDone, workerEvents } from "./tabs-kit.ts";

const suite = tabsSuite();

/** The first attempt's turn is still open (submitted or generating), and nothing else went out. */
const firstTurnOpen = (w: WorkerOut) =>
  ["submitted", "generating"].includes(w.attempts[0]?.state ?? "") && sentAttempts(w).length === 1;

describe("the end of a turn in Chromium", { timeout: 120_000 }, () => {
  it("a send the page ignores in a pause without Stop: no submission for it, one real continue after the turn", async () => {
    suite.e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        // Long enough for a quiet-period rule to take the pause for the end; over as soon as the page ignored a send.
        await turn.quietPause(
          waitFor(() => suite.e2e.fake.ignoredSends().length > 0, "a send the page ignores", 6_000).then(
            () => undefined,
            () => undefined,
          ),
        );
        await turn.say(`\n\nStill at it.\n\n${block("working", "half way")}`);
      } else await completingTurn(turn);
    });
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    const page = await suite.e2e.pageFor(conversationId);
    const done = await waitDone(suite.e2e, workerId, 60_000);
    await suite.e2e.fake.settled();
    const ignored = suite.e2e.fake.ignoredSends().length;
    console.log(`sends the page ignored: ${ignored}`);
    const sent = sentAttempts(done);
    expect(sent.map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    // Every submission the host recorded is a user message on the page: none for the ignored send.
    const submitted = (await workerEvents(suite.e2e, workerId)).filter(
      (e) => e.type === "execution.submitted",
    );
    expect(submitted.map((e) => e.data.execution?.seq)).toEqual(sent.map((a) => a.seq));
    const prompts = suite.e2e.fake.stored(conversationId);
    expect(prompts).toHaveLength(2);
    // The one continue went out after the page's own end of the first answer.
    const [end] = suite.e2e.fake.turnEnds(conversationId);
    expect(prompts[1]!.at).toBeGreaterThanOrEqual(end!.t);
    // An attempt the page ignored was never delivered.
    for (const a of done.attempts.filter((x) => x.errorCode === "SEND_IGNORED"))
      expect(a.submittedAt, `attempt ${a.seq}`).toBeNull();
    expect(await composerDraft(page), "the draft left in the composer").toBe("");
    expectCleanRun(suite.e2e.fake);
  });

  it("reloads mid-turn (streaming, then in a pause without Stop): the attempt stays open until the page's real end", async () => {
    const streaming = suite.held.hold();
    const pause = suite.held.hold();
    suite.e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) {
        await turn.say("Working on it.");
        await streaming.promise;
        await turn.say(" Reading the code.");
        await turn.quietPause(pause.promise);
        await turn.say(`\n\n${block("working", "half way")}`);
      } else await completingTurn(turn);
    });
    const runId = await suite.createRun(FAST_POLICY);
    const workerId = await suite.e2e.spawn(runId, "/root");
    const conversationId = await suite.e2e.conversationOf(workerId);
    const page = await suite.e2e.pageFor(conversationId);
    await suite.e2e.waitWorker(workerId, "our turn running", turnRunning);
    await page.reload();
    // Longer than any quiet period an adapter might take for an end.
    await quietFor(suite.e2e, workerId, 4_000, "reloaded while streaming: the turn goes on", firstTurnOpen);
    streaming.resolve();
    const since = Date.now();
    await waitFor(
      () => suite.e2e.fake.log.some((e) => e.source === "page" && e.kind === "quiet-pause" && e.at >= since),
      "the page to show the pause",
    );
    await page.reload();
    await quietFor(
      suite.e2e,
      workerId,
      4_000,
      "reloaded in a pause without Stop: the turn goes on",
      firstTurnOpen,
    );
    pause.resolve();
    const done = await waitDone(suite.e2e, workerId);
    expect(sentAttempts(done).map((a) => a.reason)).toEqual(["initial", "auto_resume"]);
    const [end] = suite.e2e.fake.turnEnds(conversationId);
    expect(done.attempts[0]!.terminalAt, "the first attempt ended at the page's end").toBeGreaterThanOrEqual(
      end!.t,
    );
    const idle = (await workerEvents(suite.e2e, workerId)).find(
      (e) => e.type === "execution.idle" && e.data.execution?.seq === 1,
    );
    expect(idle?.at, "the host's idle for the first turn").toBeGreaterThanOrEqual(end!.t);
    await suite.e2e.fake.settled();
    expect(suite.e2e.fake.stored(conversationId)).toHaveLength(2);
    expect(suite.e2e.fake.stored()).toHaveLength(2);
    expectCleanRun(suite.e2e.fake);
  });
});
