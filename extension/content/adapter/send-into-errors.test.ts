// An explicit send (an operator's Continue now, or the host's prompt once a rate limit's time has come) into a page
// that shows a product error: sent through the usable composer without touching Retry, and the reports move on; the
// conditions where a person or the product must act first are refused before anything is typed (docs/adapter.md).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakePageSuite, type FakeChatGpt } from "./fixtures/fake-chatgpt.ts";

const LAYOUTS = ["classic", "composer-2026"] as const;

const setup = fakePageSuite({
  forbidClicks: true,
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

const prompt = (marker: string) => `continue\n\n[ref: ${marker}]`;

/** Monday 30 November 2026, 14:00 local time. */
const START = new Date(2026, 10, 30, 14, 0, 0);

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(START);
});

/** The newest turn is an answer that failed: the page's error in it, the composer below still usable. */
function failedTurn(page: FakeChatGpt, add: (page: FakeChatGpt) => void): void {
  page.appendUserTurn("continue");
  page.appendAssistantTurn("");
  add(page);
}

/** Counts every edit event the editor receives: a refusal must come before anything is typed. */
function editsOf(page: FakeChatGpt): () => number {
  let edits = 0;
  const count = () => void edits++;
  for (const type of ["beforeinput", "input", "paste"]) page.doc.addEventListener(type, count, true);
  return () => edits;
}

describe.each(LAYOUTS)("%s layout", (layout) => {
  const sendable: Array<[string, (page: FakeChatGpt) => void, string]> = [
    [
      "'Something went wrong' card with Retry",
      (p) =>
        p.addToNewestTurn(
          "error-card",
          "Something went wrong. If this issue persists please contact us through our help center at help.openai.com.",
        ),
      "RESPONSE_FAILED",
    ],
    [
      "a network error card with Retry",
      (p) => p.addToNewestTurn("error-card", "A network error occurred."),
      "RESPONSE_FAILED",
    ],
    ["'Thinking failed'", (p) => p.addToNewestTurn("thinking-failed"), "THINKING_FAILED"],
    [
      "a delivery timeout card with Retry",
      (p) => p.addToNewestTurn("error-card", "Message delivery timed out. Please try again."),
      "MESSAGE_DELIVERY_TIMEOUT",
    ],
  ];
  for (const [name, add, code] of sendable) {
    it(`${name} (${code}): sent once through the composer, Retry untouched, then generating → idle`, async () => {
      const { page, adapter, states, reports } = await setup({ layout });
      failedTurn(page, add);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(states()).toEqual(["ready", `error:${code}`]);
      const [out] = await Promise.all([
        adapter.submit({ text: prompt("orc-explicit"), marker: "orc-explicit", mode: "send" }),
        vi.advanceTimersByTimeAsync(3_000),
      ]);
      expect(out).toMatchObject({ outcome: "submitted" });
      expect(page.accepted).toEqual([prompt("orc-explicit")]);
      expect(page.clicks.send).toBe(1);
      await vi.advanceTimersByTimeAsync(5_000);
      // The old card now sits in the turn before ours: stale, so nothing holds the state on it.
      expect(states()).toEqual(["ready", `error:${code}`, "generating", "idle"]);
      expect(reports.at(-1)).not.toHaveProperty("errorCode");
      expect(page.clicks.retry + page.clicks.regenerate + page.clicks.answerNow).toBe(0);
      expect(page.forbiddenClicks).toBe(0);
    });
  }

  it("sent into a failed turn, the composer empties but no user turn carries the marker: AMBIGUOUS, the error stands", async () => {
    const { page, adapter, states } = await setup({ layout });
    failedTurn(page, (p) => p.addToNewestTurn("error-card", "A network error occurred."));
    await vi.advanceTimersByTimeAsync(2_000);
    page.reply = { outcome: "nothing" }; // the page drops the prompt: no turn, and then it empties the composer
    let dropped = false;
    page.doc.addEventListener("click", () => {
      if (page.clicks.send === 0 || dropped) return;
      dropped = true;
      setTimeout(() => page.typeDraft(""), 300);
    });
    const [out] = await Promise.all([
      adapter.submit({ text: prompt("orc-dropped"), marker: "orc-dropped", mode: "send" }),
      vi.advanceTimersByTimeAsync(17_000),
    ]);
    expect(out).toMatchObject({ outcome: "failed", errorCode: "AMBIGUOUS_SUBMISSION", phase: "after-click" });
    // Not taken for ours: the reports never claimed our answer was on its way.
    expect(states()).toEqual(["ready", "error:RESPONSE_FAILED"]);
    expect(page.clicks.send).toBe(1);
    expect(page.clicks.retry + page.clicks.regenerate + page.forbiddenClicks).toBe(0);
  });

  const refused: Array<[string, (page: FakeChatGpt) => void, string, string]> = [
    ["signed out", (p) => p.addToPortal("login-button"), "NOT_SIGNED_IN", "NOT_SIGNED_IN"],
    [
      "a human-verification challenge",
      (p) => p.addDialog("Verify you are human. Complete the security check to continue.", "Verify"),
      "HUMAN_VERIFICATION",
      "NOT_SIGNED_IN",
    ],
    [
      "the conversation is too long",
      (p) =>
        failedTurn(p, (q) =>
          q.addToNewestTurn("error-card", "The conversation is too long, please start a new one."),
        ),
      "CONVERSATION_TOO_LONG",
      "CONVERSATION_TOO_LONG",
    ],
    [
      "the 'Too many requests … Got it' modal that stays after its one click",
      (p) => p.addToPortal("rate-limit-dialog"),
      "RATE_LIMITED",
      "RATE_LIMITED",
    ],
    [
      "a usage-cap modal whose one button is not an acknowledgement",
      (p) => p.addDialog("You've hit your limit. Please try again after 2:00 PM.", "Upgrade"),
      "USAGE_CAP",
      "USAGE_CAP",
    ],
  ];

  it("the 'Too many requests … Got it' modal: its one button is clicked once, then the prompt is submitted", async () => {
    const { page, adapter, states } = await setup({ layout });
    const dialog = page.addToPortal("rate-limit-dialog");
    let acknowledged = 0;
    dialog.querySelector("button")!.addEventListener("click", () => {
      acknowledged += 1;
      dialog.remove();
    });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(states()).toEqual(["ready", "error:RATE_LIMITED"]);
    const [out] = await Promise.all([
      adapter.submit({ text: prompt("orc-after-limit"), marker: "orc-after-limit", mode: "send" }),
      vi.advanceTimersByTimeAsync(10_000),
    ]);
    expect(out).toMatchObject({ outcome: "submitted" });
    expect(acknowledged).toBe(1);
    expect(page.accepted).toHaveLength(1);
    expect(page.clicks.retry + page.clicks.regenerate + page.clicks.answerNow + page.forbiddenClicks).toBe(0);
  });
  for (const [name, add, code, refusal] of refused) {
    it(`${name} (${code}) → ${refusal} before anything is typed`, async () => {
      const { page, adapter, states } = await setup({ layout });
      const edits = editsOf(page);
      add(page);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(states()).toEqual(["ready", `error:${code}`]);
      const [out] = await Promise.all([
        adapter.submit({ text: prompt("orc-refused"), marker: "orc-refused", mode: "send" }),
        vi.advanceTimersByTimeAsync(1_000),
      ]);
      expect(out).toMatchObject({ outcome: "failed", errorCode: refusal, phase: "before-submit" });
      expect(edits()).toBe(0);
      expect(page.model).toBe("");
      expect(page.accepted).toEqual([]);
      expect(page.clicks.send + page.forbiddenClicks).toBe(0);
    });
  }

  it("a tool approval card (AWAITING_APPROVAL) is waited out, never clicked: DEADLINE_EXCEEDED, nothing typed", async () => {
    const { page, adapter, states } = await setup({ layout });
    const edits = editsOf(page);
    failedTurn(page, (p) => p.addToNewestTurn("approval-card"));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(states()).toEqual(["ready", "error:AWAITING_APPROVAL"]);
    const [out] = await Promise.all([
      adapter.submit({
        text: prompt("orc-approval"),
        marker: "orc-approval",
        mode: "send",
        deadlineAt: Date.now() + 2_000,
      }),
      vi.advanceTimersByTimeAsync(3_000),
    ]);
    expect(out).toMatchObject({ outcome: "failed", errorCode: "DEADLINE_EXCEEDED", phase: "before-submit" });
    expect(edits()).toBe(0);
    expect(page.clicks.approve + page.clicks.deny + page.clicks.send).toBe(0);
  });

  it("a limit banner whose time has passed, still on screen: sent; the reports move on and stay moved on", async () => {
    const { page, adapter, states, reports } = await setup({ layout });
    const banner = page.addBanner(
      "usage-cap-banner",
      "You've hit your limit. Please try again after 2:05 PM.",
    );
    await vi.advanceTimersByTimeAsync(2_000);
    const resetAt = new Date(2026, 10, 30, 14, 5).getTime();
    expect(reports.at(-1)).toMatchObject({ state: "error", errorCode: "USAGE_CAP", resetAt });
    await vi.advanceTimersByTimeAsync(resetAt - Date.now() + 1_000);
    const [out] = await Promise.all([
      adapter.submit({ text: prompt("orc-after-limit"), marker: "orc-after-limit", mode: "send" }),
      vi.advanceTimersByTimeAsync(3_000),
    ]);
    expect(out).toMatchObject({ outcome: "submitted" });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(banner.isConnected).toBe(true);
    expect(states()).toEqual(["ready", "error:USAGE_CAP", "generating", "idle"]);
    // The next prompt goes past it too, and is not refused.
    const [next] = await Promise.all([
      adapter.submit({ text: prompt("orc-after-limit-2"), marker: "orc-after-limit-2", mode: "send" }),
      vi.advanceTimersByTimeAsync(8_000),
    ]);
    expect(next).toMatchObject({ outcome: "submitted" });
    expect(states()).toEqual(["ready", "error:USAGE_CAP", "generating", "idle", "generating", "idle"]);
    expect(page.clicks.send).toBe(2);
  });

  it("the page shows the notice again in answer to our prompt (a new element): the limit is reported again", async () => {
    const { page, adapter, states, reports } = await setup({ layout });
    const words = "You've hit your limit. Please try again after 2:05 PM.";
    const banner = page.addBanner("usage-cap-banner", words);
    await vi.advanceTimersByTimeAsync(2_000);
    // An operator's Continue now before the time: the composer is usable, so it goes out.
    const [out] = await Promise.all([
      adapter.submit({ text: prompt("orc-early"), marker: "orc-early", mode: "send" }),
      vi.advanceTimersByTimeAsync(700),
    ]);
    expect(out).toMatchObject({ outcome: "submitted" });
    banner.remove();
    page.addBanner("usage-cap-banner", words);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["ready", "error:USAGE_CAP", "generating", "error:USAGE_CAP"]);
    expect(reports.at(-1)?.resetAt).toBe(new Date(2026, 10, 30, 14, 5).getTime());
  });
});
