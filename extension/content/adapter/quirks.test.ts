// Runs in the node environment: each test builds its own happy-dom Window from a fixture (fixtures/fake-chatgpt.ts).
// The real page's quirks that fixtures/fake-chatgpt.ts plays (docs/adapter.md, "Tests"), on fixtures of BOTH
// layouts: each test shows the right state, the right error code and zero clicks on Retry/regenerate (and the other
// never-click controls).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CONVERSATION_ID, FakeChatGpt, NEW_CONVERSATION_ID, fakePageSuite } from "./fixtures/fake-chatgpt.ts";

const LAYOUTS = ["classic", "composer-2026"] as const;
const CONVERSATION_URL = `https://chatgpt.com/c/${CONVERSATION_ID}`;

/** A started adapter on a fresh page, after the initial quiet period. Every test fails on a never-click click. */
const setup = fakePageSuite({
  forbidClicks: true,
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

const prompt = (marker: string, body = "Continue the assigned work.") => `${body}\n\n[ref: ${marker}]`;

describe.each(LAYOUTS)("%s layout", (layout) => {
  it("reports the idle conversation as ready with the continuation status and the real URL", async () => {
    const { reports, page } = await setup({ layout });
    const status = layout === "classic" ? "working" : "complete";
    expect(reports).toEqual([
      {
        state: "ready",
        url: CONVERSATION_URL,
        continuationStatus: status,
        // The parsed block stays in the page; the bridge hashes it before anything leaves (docs/privacy.md).
        block: expect.objectContaining({ status }) as unknown,
        // The conversation's length (a size): the bridge sends it with idle reports only.
        visibleChars: expect.any(Number) as unknown,
        layout,
        since: expect.any(Number) as unknown,
      },
    ]);
    expect(page.forbiddenClicks).toBe(0);
  });

  it("stale error cards: the old delivery-timeout card behind newer turns is never acted on", async () => {
    const { reports, page, adapter } = await setup({ layout });
    // The fixture's turn 2 holds a timeout card with Retry; turns 3 and 4 follow it.
    expect(adapter.current()).toMatchObject({ state: "ready" });
    expect(reports.some((r) => r.state === "error")).toBe(false);
    const out = await Promise.all([
      adapter.submit({ text: prompt("orc-stale1"), marker: "orc-stale1", mode: "send" }),
      vi.advanceTimersByTimeAsync(8_000),
    ]);
    expect(out[0]).toMatchObject({ outcome: "submitted" });
    expect(reports.some((r) => r.state === "error")).toBe(false);
    expect(page.clicks.retry + page.clicks.regenerate).toBe(0);
  });

  it("noise: sr-only alerts, read-aloud Stop, Stop dictation, an aria-hidden Stop and a hidden composer", async () => {
    const { adapter, page, states } = await setup({ layout });
    // More harmless and harmful-looking text in screen-reader-only live regions.
    const sr = page.doc.createElement("div");
    sr.className = "sr-only";
    sr.setAttribute("role", "alert");
    sr.textContent = "Too many requests. Please wait a few minutes.";
    page.portal.appendChild(sr);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(states()).toEqual(["ready"]);
    const self = adapter.selfTest();
    expect(self).toMatchObject({
      layout,
      found: { editor: true, stopButton: false, sendOrVoiceButton: true },
    });
    expect(page.forbiddenClicks).toBe(0);
  });

  it("Send disabled after each edit: waits for it and clicks exactly once", async () => {
    const { adapter, page } = await setup({ layout, sendDisabledMs: 1_500 });
    page.reply = { chunks: ["Done."] };
    const [result] = await Promise.all([
      adapter.submit({ text: prompt("orc-disabled"), marker: "orc-disabled", mode: "send" }),
      vi.advanceTimersByTimeAsync(6_000),
    ]);
    expect(result).toEqual({ outcome: "submitted", url: CONVERSATION_URL });
    expect(page.clicks.send).toBe(1);
    expect(page.accepted).toEqual([prompt("orc-disabled")]);
  });

  it("late Stop: nothing reads as idle between the click and a Stop that shows 2 s later", async () => {
    const { adapter, page, states, times } = await setup({ layout });
    page.reply = { stopDelayMs: 2_000, chunks: ["Working", " on it."], chunkMs: 400 };
    const clickAt = Date.now();
    const [result] = await Promise.all([
      adapter.submit({ text: prompt("orc-late"), marker: "orc-late", mode: "send" }),
      vi.advanceTimersByTimeAsync(15_000),
    ]);
    expect(result).toMatchObject({ outcome: "submitted" });
    expect(states()).toEqual(["ready", "generating", "idle"]);
    // The answer finishes at stop delay + 3 chunk periods after the click; idle comes only after that.
    expect(times[2]! - clickAt).toBeGreaterThan(2_000 + 3 * 400);
    expect(page.forbiddenClicks).toBe(0);
  });

  it("Pro thinking gap: Stop vanishes for 3 s after a thinking label, the turn does not end", async () => {
    const { adapter, page, states } = await setup({ layout });
    page.reply = { thinkingGapMs: 3_000, chunks: ["The", " answer."], chunkMs: 500 };
    await Promise.all([
      adapter.submit({ text: prompt("orc-pro1"), marker: "orc-pro1", mode: "send" }),
      vi.advanceTimersByTimeAsync(20_000),
    ]);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    expect(page.forbiddenClicks).toBe(0);
  });

  it("Pro: 'Answer now' stays mounted and the action bar flashes during the gap; never idle, never clicked", async () => {
    const { adapter, page, states } = await setup({ layout });
    page.reply = { thinkingGapMs: 3_000, answerNow: true, flashActionBar: true, chunks: ["Final."] };
    await Promise.all([
      adapter.submit({ text: prompt("orc-pro2"), marker: "orc-pro2", mode: "send" }),
      vi.advanceTimersByTimeAsync(20_000),
    ]);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    expect(page.clicks.answerNow).toBe(0);
    expect(page.forbiddenClicks).toBe(0);
  });

  it("hydration remount: text put into the first composer is lost; it is submitted once, into the new one", async () => {
    const { adapter, page } = await setup({ layout, remountOnFirstInput: true });
    page.reply = { chunks: ["ok"] };
    const [result] = await Promise.all([
      adapter.submit({ text: prompt("orc-hydrate"), marker: "orc-hydrate", mode: "send" }),
      vi.advanceTimersByTimeAsync(10_000),
    ]);
    expect(result).toMatchObject({ outcome: "submitted" });
    expect(page.accepted).toEqual([prompt("orc-hydrate")]);
    expect(page.clicks.send).toBe(1);
  });

  it("transient URLs: local-chatgpt: and WEB: routes are never reported; the real /c/<uuid> is", async () => {
    const { adapter, page, reports } = await setup({ layout, path: "/", emptyThread: true });
    expect(reports).toEqual([
      { state: "ready", url: "https://chatgpt.com/", layout, since: expect.any(Number) as unknown },
    ]);
    page.reply = { chunks: ["Hello."] };
    const [result] = await Promise.all([
      adapter.submit({ text: prompt("orc-newchat"), marker: "orc-newchat", mode: "send" }),
      vi.advanceTimersByTimeAsync(10_000),
    ]);
    expect(result).toEqual({ outcome: "submitted", url: `https://chatgpt.com/c/${NEW_CONVERSATION_ID}` });
    page.navigate("/c/WEB:0f5c2a4e-1111-2222-3333-444455556666");
    await vi.advanceTimersByTimeAsync(3_000);
    const urls = reports.map((r) => r.url);
    expect(urls.every((u) => !/local-chatgpt|%3A|WEB:/i.test(u))).toBe(true);
    expect(urls.at(-1)).toBe(`https://chatgpt.com/c/${NEW_CONVERSATION_ID}`);
    expect(adapter.current()?.url).toBe(`https://chatgpt.com/c/${NEW_CONVERSATION_ID}`);
  });

  it("approval card: error AWAITING_APPROVAL; Confirm/Deny are never clicked, steering is refused", async () => {
    const { adapter, page, states } = await setup({ layout });
    page.appendUserTurn("Record the result.");
    page.appendAssistantTurn("Calling the orchestrator.");
    page.addToNewestTurn("approval-card");
    await vi.advanceTimersByTimeAsync(3_000);
    expect(states().at(-1)).toBe("error:AWAITING_APPROVAL");
    const [steer] = await Promise.all([
      adapter.submit({ text: prompt("orc-approve"), marker: "orc-approve", mode: "steer" }),
      vi.advanceTimersByTimeAsync(1_000),
    ]);
    expect(steer).toMatchObject({
      outcome: "failed",
      errorCode: "STEERING_UNAVAILABLE",
      phase: "before-submit",
    });
    expect(page.clicks.approve + page.clicks.deny).toBe(0);
    expect(page.forbiddenClicks).toBe(0);
  });

  it("Trusted Types: nothing assigns innerHTML-like sinks and submission still works", async () => {
    for (const execCommand of [true, false]) {
      const { adapter, page } = await setup({ layout, trustedTypes: true, execCommand });
      page.reply = { chunks: ["ok"] };
      const marker = `orc-tt-${execCommand ? "exec" : "dom"}`;
      const [result] = await Promise.all([
        adapter.submit({ text: prompt(marker, "line one\n\nline three"), marker, mode: "send" }),
        vi.advanceTimersByTimeAsync(8_000),
      ]);
      expect(result).toMatchObject({ outcome: "submitted" });
      expect(page.accepted).toEqual([prompt(marker, "line one\n\nline three")]);
      expect(page.trustedTypeViolations).toBe(0);
      adapter.stop();
    }
  });

  describe("error shapes of the newest turn", () => {
    const shapes: Array<[string, (page: FakeChatGpt) => void, string]> = [
      [
        "the error card with Retry",
        (p) => p.addToNewestTurn("error-card", "Message delivery timed out. Please try again."),
        "MESSAGE_DELIVERY_TIMEOUT",
      ],
      [
        "a visible role=alert",
        (p) => p.addToNewestTurn("error-alert", "Message delivery timed out. Please try again."),
        "MESSAGE_DELIVERY_TIMEOUT",
      ],
      [
        "the error text inside the answer's markdown",
        (p) => {
          const md = p.markdownOf(p.newestTurn!);
          md.textContent = "Message delivery timed out. Please try again.";
        },
        "MESSAGE_DELIVERY_TIMEOUT",
      ],
      ["'Thinking failed'", (p) => p.addToNewestTurn("thinking-failed"), "THINKING_FAILED"],
      [
        "another transport failure with Retry",
        (p) => p.addToNewestTurn("error-card", "Something went wrong while generating the response."),
        "RESPONSE_FAILED",
      ],
    ];
    for (const [name, add, code] of shapes) {
      it(`${name} → ${code}, Retry never clicked`, async () => {
        const { page, states } = await setup({ layout });
        page.appendUserTurn("continue");
        page.appendAssistantTurn("");
        add(page);
        await vi.advanceTimersByTimeAsync(3_000);
        expect(states()).toEqual(["ready", `error:${code}`]);
        expect(page.clicks.retry + page.clicks.regenerate).toBe(0);
        expect(page.forbiddenClicks).toBe(0);
      });
    }
  });

  describe("page-level conditions", () => {
    // Whether a submission is refused while the notice shows: a dialog over the page or sign-in, yes; a banner beside
    // a usable composer, no (its reset time is the host's to wait for; send-into-errors.test.ts has the rest). The
    // dialog's one "Got it" is clicked once (here it stays, so the refusal stands); nothing else but Send is clicked.
    const notices: Array<
      [string, (page: FakeChatGpt) => void, string, "refused" | "sent" | "untried", number?]
    > = [
      [
        "the 'Too many requests … Got it' dialog",
        (p) => p.addToPortal("rate-limit-dialog"),
        "RATE_LIMITED",
        "refused",
        1,
      ],
      ["a usage-cap banner by the composer", (p) => p.addBanner("usage-cap-banner"), "USAGE_CAP", "sent"],
      [
        "a delivery-timeout toast",
        (p) => p.addToPortal("toast-error", "Message delivery timed out. Please try again."),
        "MESSAGE_DELIVERY_TIMEOUT",
        "untried",
      ],
      [
        "signed out (a Log in control, guest composer)",
        (p) => p.addToPortal("login-button"),
        "NOT_SIGNED_IN",
        "refused",
      ],
    ];
    for (const [name, add, code, submission, acknowledged = 0] of notices) {
      it(`${name} → ${code}, submission ${submission}, nothing but Send (and Got it) clicked`, async () => {
        const { page, states, adapter } = await setup({ layout });
        add(page);
        await vi.advanceTimersByTimeAsync(2_000);
        expect(states()).toEqual(["ready", `error:${code}`]);
        if (submission !== "untried") {
          const [out] = await Promise.all([
            adapter.submit({ text: prompt("orc-notice"), marker: "orc-notice", mode: "send" }),
            vi.advanceTimersByTimeAsync(submission === "sent" ? 3_000 : 1_000),
          ]);
          expect(out).toMatchObject(
            submission === "sent"
              ? { outcome: "submitted" }
              : { outcome: "failed", errorCode: code, phase: "before-submit" },
          );
        }
        expect(page.clicks.send).toBe(submission === "sent" ? 1 : 0);
        expect(page.clicks.other).toBe(acknowledged);
        expect(page.forbiddenClicks).toBe(0);
      });
    }

    it("HOST_UI_CHANGED only after the composer has been missing for the grace period", async () => {
      const { page, states } = await setup({ layout });
      page.doc.querySelector("#thread-bottom-container form")!.remove();
      await vi.advanceTimersByTimeAsync(4_000);
      expect(states()).toEqual(["ready"]);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(states()).toEqual(["ready", "error:HOST_UI_CHANGED"]);
    });
  });
});

describe("classic layout only", () => {
  it("decoy textarea: the hidden fallback textarea is never written; only the editor carries the text", async () => {
    const { adapter, page } = await setup({ layout: "classic" });
    page.reply = { chunks: ["ok"] };
    const [result] = await Promise.all([
      adapter.submit({ text: prompt("orc-decoy"), marker: "orc-decoy", mode: "send" }),
      vi.advanceTimersByTimeAsync(8_000),
    ]);
    expect(result).toMatchObject({ outcome: "submitted" });
    expect(page.decoy?.value).toBe("");
    expect(page.accepted).toEqual([prompt("orc-decoy")]);
  });
});

describe("composer-2026 layout only", () => {
  it("the textarea variant of the 2026 composer is written through the value setter and an input event", async () => {
    const { adapter, page } = await setup({
      layout: "composer-2026",
      editor: "textarea",
      execCommand: false,
    });
    page.reply = { chunks: ["ok"] };
    const text = prompt("orc-textarea", "first\n\nthird");
    const [result] = await Promise.all([
      adapter.submit({ text, marker: "orc-textarea", mode: "send" }),
      vi.advanceTimersByTimeAsync(8_000),
    ]);
    expect(result).toMatchObject({ outcome: "submitted" });
    expect(page.accepted).toEqual([text]);
  });

  it("Work mode selected: nothing is submitted (HOST_UI_CHANGED before submit)", async () => {
    const { adapter, page } = await setup({ layout: "composer-2026" });
    page.doc.querySelector('[data-tpp-toggle-value="chatgpt"]')!.setAttribute("aria-checked", "false");
    page.doc.querySelector('[data-tpp-toggle-value="work"]')!.setAttribute("aria-checked", "true");
    const [result] = await Promise.all([
      adapter.submit({ text: prompt("orc-work"), marker: "orc-work", mode: "send" }),
      vi.advanceTimersByTimeAsync(1_000),
    ]);
    expect(result).toMatchObject({ outcome: "failed", errorCode: "HOST_UI_CHANGED", phase: "before-submit" });
    expect(page.clicks.send + page.forbiddenClicks).toBe(0);
  });

  it("a data-markdown-animated attribute that got stuck stops counting as busy after 60 s", async () => {
    // The answer ended (its action bar shows) but the attribute stayed: busy while the content changed within 60 s,
    // then the action bar is evidence. (Before, the turn ended on 2 s of quiet after the 60 s, action bar or not.)
    const { page, states } = await setup({ layout: "composer-2026" });
    page.appendUserTurn("continue");
    page.appendAssistantTurn("Half an answer", { streaming: true, actionBar: true });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(states()).toEqual(["ready", "generating"]);
    await vi.advanceTimersByTimeAsync(55_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
  });
});
