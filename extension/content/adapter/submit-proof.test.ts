// Runs in the node environment: each test builds its own happy-dom Window from a fixture (fixtures/fake-chatgpt.ts).
// After the ONE click only our marker in a new user turn proves a submission (docs/adapter.md, "Submission"): Stop
// appearing or the composer emptying never do, and a send the page ignored is SEND_IGNORED with our text removed.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakePageSuite, type FakeChatGpt } from "./fixtures/fake-chatgpt.ts";
import { editorText } from "./page-text.ts";
import type { SubmitOutcome, SubmitRequest } from "./types.ts";

const LAYOUTS = ["classic", "composer-2026"] as const;

const setup = fakePageSuite({
  forbidClicks: true,
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

function request(marker: string): SubmitRequest {
  return { text: `Continue the work.\n\n[ref: ${marker}]`, marker, mode: "send" };
}

/** Runs `fn` this long after the page saw a click on Send (the fake page's own handling runs first). */
function afterSendClick(page: FakeChatGpt, ms: number, fn: () => void): void {
  let seen = page.clicks.send;
  page.doc.addEventListener(
    "click",
    () => {
      if (page.clicks.send === seen) return;
      seen = page.clicks.send;
      setTimeout(fn, ms);
    },
    true,
  );
}

/** A prompt and its answer that looks finished (action bar shown), as in a long pause of a turn still running. */
async function pausedTurn(page: FakeChatGpt): Promise<Element> {
  page.appendUserTurn("An earlier prompt.");
  const turn = page.appendAssistantTurn("The old answer, paused.", { actionBar: true });
  await vi.advanceTimersByTimeAsync(3_000);
  return turn;
}

/** The paused answer streams on: Stop shows and the text grows. */
function oldTurnStreamsOn(page: FakeChatGpt, turn: Element): void {
  page.generating = true;
  page.setPrimary("stop");
  page.setStreaming(turn, true);
  page.markdownOf(turn).appendChild(page.doc.createTextNode(" …and more of the old answer."));
}

/** Starts the submission and reports its outcome once it settles, so a test can see that it has not yet. */
function track(promise: Promise<SubmitOutcome>): { outcome: SubmitOutcome | undefined } {
  const box: { outcome: SubmitOutcome | undefined } = { outcome: undefined };
  void promise.then((out) => (box.outcome = out));
  return box;
}

describe.each(LAYOUTS)("%s layout", (layout) => {
  it("Stop appearing after an ignored click is no proof: SEND_IGNORED, our text removed, one click", async () => {
    const { adapter, page } = await setup({ layout });
    page.reply = { outcome: "nothing" }; // the page keeps the draft and makes no turn
    const old = await pausedTurn(page);
    afterSendClick(page, 1_000, () => oldTurnStreamsOn(page, old));
    const run = track(adapter.submit(request("orc-ignored-stop")));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(page.primaryButton.getAttribute("aria-label")).toMatch(/stop/i);
    expect(run.outcome).toBeUndefined(); // Stop showed at 1 s; it proved nothing
    await vi.advanceTimersByTimeAsync(14_000);
    expect(run.outcome).toMatchObject({ outcome: "failed", errorCode: "SEND_IGNORED", phase: "after-click" });
    expect(run.outcome?.outcome === "failed" && run.outcome.detail).toMatch(/ignored/);
    // No draft is left behind to block the next attempt.
    expect(editorText(page.editorEl)).toBe("");
    expect(page.model).toBe("");
    expect(page.accepted).toEqual([]);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(page.clicks.send).toBe(1);
  });

  it("a page that visibly did nothing at all: SEND_IGNORED after a few seconds, before the whole window", async () => {
    const { adapter, page } = await setup({ layout });
    page.reply = { outcome: "nothing" };
    const run = track(adapter.submit(request("orc-ignored-quiet")));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(page.clicks.send).toBe(1);
    expect(run.outcome).toBeUndefined(); // not rushed: a page may be slow to show it took the prompt
    await vi.advanceTimersByTimeAsync(5_000);
    expect(run.outcome).toMatchObject({ outcome: "failed", errorCode: "SEND_IGNORED", phase: "after-click" });
    expect(editorText(page.editorEl)).toBe("");
    await vi.advanceTimersByTimeAsync(20_000);
    expect(page.clicks.send).toBe(1);
    expect(page.accepted).toEqual([]);
  });

  it("a page that shows signs of working is given the whole window; its late user turn is the proof", async () => {
    const { adapter, page } = await setup({ layout });
    page.reply = { outcome: "nothing" };
    const req = request("orc-slow-page");
    // Send greys out at once (the page is busy with it); our turn and the emptied composer come 8 s later.
    afterSendClick(page, 0, () => page.setPrimary("send", true));
    afterSendClick(page, 8_000, () => {
      page.appendUserTurn(req.text);
      page.typeDraft("");
    });
    const run = track(adapter.submit(req));
    await vi.advanceTimersByTimeAsync(7_000);
    expect(run.outcome).toBeUndefined();
    expect(editorText(page.editorEl)).toBe(req.text); // our text was not taken away from a slow page
    await vi.advanceTimersByTimeAsync(2_000);
    expect(run.outcome).toMatchObject({ outcome: "submitted" });
    expect(page.clicks.send).toBe(1);
  });

  it("the composer emptied without a user turn carrying the marker: AMBIGUOUS_SUBMISSION, not submitted", async () => {
    const { adapter, page } = await setup({ layout });
    page.reply = { outcome: "nothing" };
    afterSendClick(page, 200, () => page.typeDraft(""));
    const run = track(adapter.submit(request("orc-cleared")));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(run.outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(6_000);
    expect(run.outcome).toMatchObject({
      outcome: "failed",
      errorCode: "AMBIGUOUS_SUBMISSION",
      phase: "after-click",
    });
    expect(run.outcome?.outcome === "failed" && run.outcome.detail).toMatch(/emptied/);
    expect(page.clicks.send).toBe(1);
  });

  it("the composer emptied and Stop showing, with no marker turn, is still AMBIGUOUS_SUBMISSION", async () => {
    const { adapter, page } = await setup({ layout });
    page.reply = { outcome: "nothing" };
    const old = await pausedTurn(page);
    afterSendClick(page, 200, () => {
      page.typeDraft("");
      oldTurnStreamsOn(page, old);
    });
    const run = track(adapter.submit(request("orc-cleared-stop")));
    await vi.advanceTimersByTimeAsync(17_000);
    expect(run.outcome).toMatchObject({ outcome: "failed", errorCode: "AMBIGUOUS_SUBMISSION" });
    expect(page.clicks.send).toBe(1);
  });

  it("the new user turn carrying the marker is the proof, however late after Stop and the emptied composer", async () => {
    const { adapter, page, states } = await setup({ layout });
    page.reply = { outcome: "nothing" };
    const req = request("orc-late-turn");
    // The page empties the composer and shows Stop at once, and renders our turn only 3 s later.
    afterSendClick(page, 0, () => {
      page.typeDraft("");
      page.generating = true;
      page.setPrimary("stop");
    });
    afterSendClick(page, 3_000, () => {
      page.appendUserTurn(req.text);
      page.appendAssistantTurn("On it.", { streaming: true });
    });
    const run = track(adapter.submit(req));
    await vi.advanceTimersByTimeAsync(2_900);
    expect(run.outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(run.outcome).toMatchObject({ outcome: "submitted" });
    expect(states().at(-1)).toBe("generating");
    expect(page.clicks.send).toBe(1);
  });
});
