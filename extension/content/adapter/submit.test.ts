// Runs in the node environment: each test builds its own happy-dom Window from a fixture (fixtures/fake-chatgpt.ts).
// Submission exactly once (docs/adapter.md, "Submission, as implemented"): proof of acceptance (our marker in a new
// user turn), read-back, refusals before the click, SEND_IGNORED after it, steering, and the marker reconciliation.
// More on the proof in submit-proof.test.ts, on drafts already in the composer in submit-drafts.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CONVERSATION_ID, NEW_CONVERSATION_ID, fakePageSuite } from "./fixtures/fake-chatgpt.ts";
import type { ChatGptAdapter, SubmitOutcome, SubmitRequest } from "./types.ts";

const CONVERSATION_URL = `https://chatgpt.com/c/${CONVERSATION_ID}`;

/** A started adapter on a fresh page, after the initial quiet period. */
const setup = fakePageSuite({
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

/** The prompt as the background builds it: text, a blank line, the marker line. */
function request(
  marker: string,
  mode: SubmitRequest["mode"] = "send",
  body = "Continue the work.",
): SubmitRequest {
  return { text: `${body}\n\n[ref: ${marker}]`, marker, mode };
}

async function run(adapter: ChatGptAdapter, req: SubmitRequest, ms = 8_000): Promise<SubmitOutcome> {
  const [out] = await Promise.all([adapter.submit(req), vi.advanceTimersByTimeAsync(ms)]);
  return out;
}

describe.each(["classic", "composer-2026"] as const)("%s layout", (layout) => {
  it("success: inserted, read back, ONE click, proven by the new user turn; then generating → idle", async () => {
    const { adapter, page, states } = await setup({ layout });
    page.reply = { chunks: ["On it."] };
    const req = request("orc-ok", "send", "Step one:\n  keep the indent\n\nthen a blank line above.");
    expect(adapter.hasMarker("orc-ok")).toBe(false);
    const out = await run(adapter, req);
    expect(out).toEqual({ outcome: "submitted", url: CONVERSATION_URL });
    expect(page.accepted).toEqual([req.text]);
    expect(page.clicks.send).toBe(1);
    expect(page.forbiddenClicks).toBe(0);
    expect(adapter.hasMarker("orc-ok")).toBe(true);
    expect(states()).toEqual(["ready", "generating", "idle"]);
  });

  it("an answer that is already complete when the submission is proven still ends the turn promptly", async () => {
    // Seen in Firefox: a short answer streamed and finished before the proof poll saw our user turn.
    const { adapter, page, states } = await setup({ layout });
    page.reply = { stopDelayMs: 0, chunkMs: 0, chunks: ["Done."] };
    const out = await run(adapter, request("orc-fast"), 6_000);
    expect(out).toMatchObject({ outcome: "submitted" });
    // Within the idle debounce, not after the 30 s answer-wait fallback.
    expect(states().slice(-2)).toEqual(["generating", "idle"]);
  });

  it("read-back mismatch → failed before-submit, nothing clicked, our partial text removed", async () => {
    const { adapter, page } = await setup({ layout, editorModel: "mangle" });
    const out = await run(adapter, request("orc-mangle"));
    expect(out).toMatchObject({ outcome: "failed", errorCode: "HOST_UI_CHANGED", phase: "before-submit" });
    expect(out.outcome === "failed" && out.detail).toMatch(/read-back mismatch/);
    expect(page.clicks.send).toBe(0);
    expect(page.accepted).toEqual([]);
    expect(page.model).toBe("");
  });

  it("the editor ignores every insert, so Send never enables → failed before-submit, nothing clicked", async () => {
    const { adapter, page } = await setup({ layout, editorModel: "deaf" });
    const out = await run(adapter, request("orc-deaf"), 15_000);
    expect(out).toMatchObject({ outcome: "failed", errorCode: "HOST_UI_CHANGED", phase: "before-submit" });
    expect(out.outcome === "failed" && out.detail).toMatch(/no Send control appeared/);
    expect(page.clicks.send + page.forbiddenClicks).toBe(0);
  });

  it("the click is ignored (our text stays, no user turn) → SEND_IGNORED after-click, text removed, not resent", async () => {
    const { adapter, page } = await setup({ layout });
    page.reply = { outcome: "nothing" }; // the click is swallowed: no turn, the composer keeps the text
    const out = await run(adapter, request("orc-lost"), 20_000);
    expect(out).toMatchObject({ outcome: "failed", errorCode: "SEND_IGNORED", phase: "after-click" });
    expect(page.model).toBe("");
    await vi.advanceTimersByTimeAsync(20_000);
    expect(page.clicks.send).toBe(1);
    expect(page.accepted).toEqual([]);
    expect(page.forbiddenClicks).toBe(0);
  });

  it("a human draft in the composer → DRAFT_IN_COMPOSER at once: never overwritten, nothing clicked", async () => {
    const { adapter, page } = await setup({ layout });
    page.typeDraft("my own half-written question");
    const out = await run(adapter, { ...request("orc-draft"), deadlineAt: Date.now() + 5_000 });
    expect(out).toMatchObject({ outcome: "failed", errorCode: "DRAFT_IN_COMPOSER", phase: "before-submit" });
    expect(out.outcome === "failed" && out.detail).toMatch(/draft/);
    expect(page.model).toBe("my own half-written question");
    expect(page.clicks.send).toBe(0);
  });

  it("steer while generating → STEERING_UNAVAILABLE before-submit; Stop is not clicked, nothing typed", async () => {
    const { adapter, page } = await setup({ layout });
    page.appendUserTurn("continue");
    page.appendAssistantTurn("Streaming…", { streaming: true });
    page.setPrimary("stop");
    page.generating = true;
    await vi.advanceTimersByTimeAsync(500);
    const out = await run(adapter, request("orc-steer", "steer"), 1_000);
    expect(out).toMatchObject({
      outcome: "failed",
      errorCode: "STEERING_UNAVAILABLE",
      phase: "before-submit",
    });
    expect(page.model).toBe("");
    expect(page.clicks.stop + page.clicks.send).toBe(0);
  });

  it("steer when the turn has ended is an ordinary submission", async () => {
    const { adapter, page } = await setup({ layout });
    page.reply = { chunks: ["ok"] };
    expect(await run(adapter, request("orc-steer-idle", "steer"))).toMatchObject({ outcome: "submitted" });
    expect(page.clicks.send).toBe(1);
  });

  it("send while generating waits for idle (late Stop included), then submits once", async () => {
    const { adapter, page } = await setup({ layout });
    page.reply = { chunks: ["first answer"], stopDelayMs: 1_500 };
    const first = adapter.submit(request("orc-first"));
    await vi.advanceTimersByTimeAsync(200);
    // The second command arrives while the first turn has not even shown Stop yet.
    page.reply = { chunks: ["second answer"] };
    const second = adapter.submit(request("orc-second"));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(await first).toMatchObject({ outcome: "submitted" });
    expect(await second).toMatchObject({ outcome: "submitted" });
    expect(page.accepted).toEqual([request("orc-first").text, request("orc-second").text]);
    expect(page.clicks.send).toBe(2);
  });

  it("hasMarker: true for a user turn carrying it, false for an assistant turn quoting it", async () => {
    const { adapter, page } = await setup({ layout });
    page.appendAssistantTurn("You mentioned [ref: orc-quoted] earlier.");
    page.appendUserTurn("Earlier prompt\n\n[ref: orc-landed]");
    expect(adapter.hasMarker("orc-landed")).toBe(true);
    expect(adapter.hasMarker("orc-quoted")).toBe(false);
    expect(adapter.hasMarker("orc-never")).toBe(false);
  });

  it("hasMarker: message nodes outside any recognised turn count by their own role", async () => {
    const { adapter, page } = await setup({ layout });
    page.appendAssistantTurn("An answer.");
    page.appendUserTurn("A prompt.");
    const loose = (role: string, text: string) => {
      const node = page.doc.createElement("div");
      node.setAttribute("data-message-author-role", role);
      node.textContent = text;
      page.doc.body.appendChild(node);
    };
    loose("user", "A prompt outside the thread [ref: orc-loose]");
    loose("assistant", "Quoting [ref: orc-loose-quote]");
    expect(adapter.hasMarker("orc-loose")).toBe(true);
    expect(adapter.hasMarker("orc-loose-quote")).toBe(false);
  });

  it("a redelivered command whose marker already landed is reported submitted without any click", async () => {
    const { adapter, page } = await setup({ layout });
    page.appendUserTurn(request("orc-again").text);
    expect(await run(adapter, request("orc-again"), 500)).toEqual({
      outcome: "submitted",
      url: CONVERSATION_URL,
    });
    expect(page.clicks.send).toBe(0);
  });

  it("without execCommand the paste path is used; if paste is dropped too, DOM + input event", async () => {
    for (const ignorePaste of [false, true]) {
      const { adapter, page } = await setup({ layout, execCommand: false, ignorePaste });
      page.reply = { chunks: ["ok"] };
      const req = request(`orc-fallback-${ignorePaste}`, "send", "a\n\nb\nc");
      expect(await run(adapter, req)).toMatchObject({ outcome: "submitted" });
      expect(page.accepted).toEqual([req.text]);
      adapter.stop();
    }
  });

  it("a deadline that passes while the page is busy → DEADLINE_EXCEEDED before-submit", async () => {
    const { adapter, page } = await setup({ layout });
    page.appendUserTurn("continue");
    page.appendAssistantTurn("Streaming…", { streaming: true });
    page.setPrimary("stop");
    page.generating = true;
    const out = await run(adapter, { ...request("orc-late"), deadlineAt: Date.now() + 3_000 }, 5_000);
    expect(out).toMatchObject({ outcome: "failed", errorCode: "DEADLINE_EXCEEDED", phase: "before-submit" });
    expect(page.clicks.send).toBe(0);
  });

  it("expectUrl names another conversation → HOST_UI_CHANGED before-submit", async () => {
    const { adapter, page } = await setup({ layout });
    const out = await run(adapter, {
      ...request("orc-wrong"),
      expectUrl: "https://chatgpt.com/c/00000000-0000-4000-8000-000000000000",
    });
    expect(out).toMatchObject({ outcome: "failed", errorCode: "HOST_UI_CHANGED", phase: "before-submit" });
    expect(page.clicks.send).toBe(0);
  });

  it("a new chat whose first send times out (no id yet) → MESSAGE_DELIVERY_TIMEOUT after-click, Retry untouched", async () => {
    const { adapter, page } = await setup({ layout, path: "/", emptyThread: true });
    page.reply = { outcome: "delivery-timeout" };
    const out = await run(adapter, request("orc-newchat-timeout"), 20_000);
    expect(out).toMatchObject({
      outcome: "failed",
      errorCode: "MESSAGE_DELIVERY_TIMEOUT",
      phase: "after-click",
    });
    expect(page.clicks.send).toBe(1);
    expect(page.clicks.retry + page.forbiddenClicks).toBe(0);
  });

  it("no idle or ready is reported while the submission waits for its proof, though the URL moves on first", async () => {
    // The new chat's real URL shows before our user turn does (a slow page): a `ready` with that URL in between
    // would read to the host as the end of the turn just submitted.
    const { adapter, page, states } = await setup({
      layout,
      path: "/",
      emptyThread: true,
      userTurnDelayMs: 2_000,
    });
    page.reply = { chunks: ["Hi."], stopDelayMs: 2_500 };
    expect(await run(adapter, request("orc-slow"))).toMatchObject({ outcome: "submitted" });
    expect(states().slice(0, 2)).toEqual(["ready", "generating"]);
  });

  it("the first message of a new chat answers with the real /c/<uuid>", async () => {
    const { adapter, page } = await setup({ layout, path: "/", emptyThread: true });
    page.reply = { chunks: ["Hi."] };
    expect(await run(adapter, request("orc-create"))).toEqual({
      outcome: "submitted",
      url: `https://chatgpt.com/c/${NEW_CONVERSATION_ID}`,
    });
  });
});

describe("composer-2026 with labels in a language the table does not know", () => {
  it("finds Send by structure (the primary slot whose label changed with our text) and clicks it once", async () => {
    const labels = { voice: "Tryb głosowy", send: "Wyślij", stop: "Zatrzymaj" };
    const { adapter, page } = await setup({ layout: "composer-2026", labels });
    page.reply = { chunks: ["ok"] };
    const req = request("orc-polish");
    expect(await run(adapter, req)).toMatchObject({ outcome: "submitted" });
    expect(page.accepted).toEqual([req.text]);
    expect(page.clicks.send).toBe(1);
    expect(page.clicks.stop + page.clicks.voice).toBe(0);
  });
});

describe("caller errors", () => {
  it("a text without its marker is a programming error", async () => {
    const { adapter, page } = await setup({ layout: "classic" });
    await expect(adapter.submit({ text: "no marker here", marker: "orc-x", mode: "send" })).rejects.toThrow(
      /marker/,
    );
    expect(page.clicks.send).toBe(0);
  });
});
