// What the adapter reads of the newest answer at a turn's end besides the continuation block, on fixtures of both
// layouts in happy-dom: the handoff block's text (only with the report that ends that turn) and the conversation's
// length (growing with the conversation). docs/adapter.md, "Continuation status".
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HANDOFF_BEGIN, HANDOFF_END } from "../../../shared/handoff-block.ts";
import { fakePageSuite, type FakeChatGpt } from "./fixtures/fake-chatgpt.ts";
import type { ChatGptAdapter } from "./types.ts";

const LAYOUTS = ["classic", "composer-2026"] as const;

const setup = fakePageSuite({
  forbidClicks: true,
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

const BRIEF = [
  "done: the parser (shared/handoff-block.ts)",
  "next steps: wire the adapter",
  "decisions: never store the brief",
  "open questions: none",
  "files touched: extension/content/adapter/",
].join("\n");

const CONTINUATION = "status: working\nsummary: brief written\ncurrent: handing off\nnext: new chat";

const HANDOFF_ANSWER = `Here is the handoff.\n${HANDOFF_BEGIN}\n${BRIEF}\n${HANDOFF_END}\n${CONTINUATION}`;

/** Our prompt, answered with `final` (one paragraph per line, as the page renders soft breaks), to the turn's end. */
async function exchange(page: FakeChatGpt, adapter: ChatGptAdapter, marker: string, final: string) {
  page.reply = { chunks: ["Working."], final };
  const out = await Promise.all([
    adapter.submit({ text: `Go on.\n\n[ref: ${marker}]`, marker, mode: "send" }),
    vi.advanceTimersByTimeAsync(8_000),
  ]);
  expect(out[0]).toMatchObject({ outcome: "submitted" });
}

describe.each(LAYOUTS)("%s layout", (layout) => {
  it("the idle report ending an answer with a handoff block carries its text; later reports do not", async () => {
    const { page, adapter, reports, states } = await setup({ layout });
    await exchange(page, adapter, "orc-handoff", HANDOFF_ANSWER);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    const idle = reports[2]!;
    expect(idle.handoffBrief).toBe(BRIEF);
    // The continuation block after it still counts.
    expect(idle).toMatchObject({ continuationStatus: "working", block: { summary: "brief written" } });
    expect(reports[0]).not.toHaveProperty("handoffBrief");
    expect(reports[1]).not.toHaveProperty("handoffBrief");

    // The next turn: generating carries none, nor does its idle (its answer has no handoff block).
    await exchange(page, adapter, "orc-after", `Next step done.\n${CONTINUATION}`);
    // Then a person's send that the page answers with its length-limit notice instead of an answer.
    page.appendUserTurn("one more thing");
    page.appendAssistantTurn("", { streaming: true });
    page.setPrimary("stop");
    await vi.advanceTimersByTimeAsync(1_000);
    page.setStreaming(page.newestTurn!, false);
    page.setPrimary("voice");
    page.addToNewestTurn("error-card", "You've reached the maximum length for this conversation.");
    await vi.advanceTimersByTimeAsync(3_000);
    expect(states().slice(3)).toEqual(["generating", "idle", "generating", "error:CONVERSATION_TOO_LONG"]);
    for (const r of reports.slice(3)) expect(r).not.toHaveProperty("handoffBrief");
  });

  it("a handoff block inside a quote in the answer is no brief", async () => {
    const { page, adapter, reports } = await setup({ layout });
    await exchange(page, adapter, "orc-quote", `Quoting you:\n${CONTINUATION}`);
    const quote = page.doc.createElement("blockquote");
    for (const line of [HANDOFF_BEGIN, ...BRIEF.split("\n"), HANDOFF_END]) {
      const p = page.doc.createElement("p");
      p.textContent = line;
      quote.appendChild(p);
    }
    // The quote goes before the answer's block, as a model quoting the request would write it.
    page.markdownOf(page.newestTurn!).prepend(quote);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(adapter.current()).toMatchObject({ state: "idle", continuationStatus: "working" });
    expect(adapter.current()).not.toHaveProperty("handoffBrief");
    expect(reports.some((r) => r.handoffBrief !== undefined)).toBe(false);
    // The same lines unquoted are the answer's own block (the check above did read the changed answer).
    const own = page.doc.createElement("div");
    const intro = page.doc.createElement("p");
    intro.textContent = "And as my own:";
    own.append(intro, ...quote.childNodes);
    quote.replaceWith(own);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(adapter.current()).toMatchObject({ state: "idle", handoffBrief: BRIEF });
  });

  it("visibleChars is the conversation's text length at each turn's end, and grows with the conversation", async () => {
    const { page, adapter, reports } = await setup({ layout });
    const lengthNow = () => {
      // Every turn of the fixture's thread (both layouts keep their turns as children of the thread root).
      let chars = 0;
      for (const turn of page.turnsRoot.children) chars += (turn.textContent ?? "").length;
      return chars;
    };
    const first = reports[0]!.visibleChars!;
    expect(first).toBeGreaterThan(0);

    const answer = `A much longer answer. ${"Words and more words. ".repeat(40)}\n${CONTINUATION}`;
    await exchange(page, adapter, "orc-grow-1", answer);
    const second = reports.at(-1)!;
    expect(second.state).toBe("idle");
    expect(second.visibleChars).toBe(lengthNow());
    expect(second.visibleChars! - first).toBeGreaterThan(answer.length - 40);

    await exchange(page, adapter, "orc-grow-2", `Short.\n${CONTINUATION}`);
    const third = reports.at(-1)!;
    expect(third.state).toBe("idle");
    expect(third.visibleChars).toBe(lengthNow());
    expect(third.visibleChars!).toBeGreaterThan(second.visibleChars!);
    // Generating reports never carry it: it is measured when a turn has ended.
    for (const r of reports.filter((r) => r.state === "generating"))
      expect(r).not.toHaveProperty("visibleChars");
  });
});
