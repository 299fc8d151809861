// When a turn ends (docs/adapter.md, "States", "Hidden tabs"), on fixtures of both layouts in happy-dom: only on the
// page's finished-turn evidence, never on silence; a page loaded mid-turn reports nothing until Stop or evidence; a
// hidden tab reports from the observer's callback, and submit's waits end at the page's next change.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { attachAdapter, FakeChatGpt, fakePageSuite } from "./fixtures/fake-chatgpt.ts";
import { DEFAULT_TIMING } from "./timing.ts";

const LAYOUTS = ["classic", "composer-2026"] as const;
const SETTLE = DEFAULT_TIMING.settleMs;
const OTHER_CONVERSATION = "11111111-2222-4333-8444-555555555555";

const setup = fakePageSuite({
  forbidClicks: true,
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

/** A turn running on the page (a person's, or one resumed): our user turn, a streaming answer, Stop. */
function startTurn(page: FakeChatGpt): Element {
  page.appendUserTurn("continue");
  const turn = page.appendAssistantTurn("The first half of the answer", { streaming: true });
  page.setPrimary("stop");
  return turn;
}

/** The turn pauses mid-way: no Stop and no streaming marker (a thinking pause, a pending tool call). */
function pause(page: FakeChatGpt, turn: Element): void {
  page.setStreaming(turn, false);
  page.setPrimary("voice");
}

/** The microtasks after a mutation (the observer's callback, and what it runs), with no timer allowed to fire. */
async function observerTurn(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function hide(page: FakeChatGpt): void {
  Object.defineProperty(page.doc, "visibilityState", { value: "hidden", configurable: true });
}

/** The time from `at` to the first report after it in state `state`. */
function reportedAfter(states: string[], times: number[], state: string, at: number): number {
  const i = states.findIndex((s, k) => s === state && times[k]! >= at);
  return i < 0 ? Number.POSITIVE_INFINITY : times[i]! - at;
}

describe.each(LAYOUTS)("%s layout", (layout) => {
  it("a 5 s pause mid-turn with no Stop and no action bar is no idle; the action bar then ends it", async () => {
    const { page, states } = await setup({ layout });
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["ready", "generating"]);
    pause(page, turn);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(states()).toEqual(["ready", "generating"]);
    page.setPrimary("stop");
    page.setStreaming(turn, true);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    page.addActionBar(turn);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
  });

  it("the idle report says when the page's evidence appeared (since), not when it was reported", async () => {
    const { page, reports } = await setup({ layout });
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    page.addActionBar(turn);
    const at = Date.now();
    await vi.advanceTimersByTimeAsync(3_000);
    const idle = reports.find((r) => r.state === "idle");
    expect(idle?.since).toBeGreaterThanOrEqual(at);
    expect(idle?.since).toBeLessThan(at + SETTLE);
    expect(reports.find((r) => r.state === "generating")).not.toHaveProperty("since");
  });

  it("the action bar ends the turn within the settle, not after a 2 s quiet period", async () => {
    const { page, states, times } = await setup({ layout });
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    page.addActionBar(turn);
    const at = Date.now();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    const after = reportedAfter(states(), times, "idle", at);
    expect(after).toBeGreaterThanOrEqual(SETTLE);
    expect(after).toBeLessThanOrEqual(SETTLE + 20);
  });

  it("an action bar that flashes for less than the settle ends nothing", async () => {
    const { page, states } = await setup({ layout });
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    page.addActionBar(turn);
    await vi.advanceTimersByTimeAsync(SETTLE - 100);
    turn.querySelector('[data-slot="actions"]')!.replaceChildren();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(states()).toEqual(["ready", "generating"]);
  });

  it('"Response complete" announced after the turn began ends it within the settle', async () => {
    const { page, states, times } = await setup({ layout });
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    page.announce("Response complete");
    const at = Date.now();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    expect(reportedAfter(states(), times, "idle", at)).toBeLessThanOrEqual(SETTLE + 20);
  });

  it('a "Response complete" left from the turn before is no evidence', async () => {
    const { page, states } = await setup({ layout });
    page.announce("Response complete"); // the turn before ended (the 2026 page shows these words from the start)
    await vi.advanceTimersByTimeAsync(1_000);
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(states()).toEqual(["ready", "generating"]);
    // Announced again for this turn: that is evidence.
    page.announce("Response complete");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
  });

  it("the action bar and a new announcement together end the turn at once", async () => {
    const { page, states, times } = await setup({ layout });
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    page.addActionBar(turn);
    page.announce("Response complete");
    const at = Date.now();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    // The next throttled tick, not the settle.
    expect(reportedAfter(states(), times, "idle", at)).toBeLessThan(SETTLE);
  });

  it("a page loaded mid-turn (partial answer, no Stop yet, no action bar) reports nothing, never ready, until evidence", async () => {
    const page = new FakeChatGpt({ layout });
    setup.track(page);
    const turn = startTurn(page);
    pause(page, turn); // the resumed stream has not restarted yet
    const { adapter, states } = attachAdapter(page);
    adapter.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(states()).toEqual([]);
    expect(adapter.current()).toBeUndefined();
    page.setPrimary("stop");
    page.setStreaming(turn, true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["generating"]);
    pause(page, turn);
    page.addActionBar(turn);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["generating", "idle"]);
    adapter.stop();
  });

  it("a page loaded showing a finished turn reports ready after the settle", async () => {
    const page = new FakeChatGpt({ layout });
    setup.track(page);
    const { adapter, states, times } = attachAdapter(page);
    const at = Date.now();
    adapter.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["ready"]);
    expect(times[0]! - at).toBe(SETTLE);
    adapter.stop();
  });

  it("another conversation opened in the page mid-turn is ready there, not the end of the turn left", async () => {
    const { page, states, reports } = await setup({ layout });
    startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    // The person clicks another chat: the thread is replaced by a finished conversation, no Stop.
    page.navigate(`/c/${OTHER_CONVERSATION}`);
    page.turnsRoot.replaceChildren();
    page.appendUserTurn("Another question");
    page.appendAssistantTurn("Another answer", { actionBar: true });
    page.setPrimary("voice");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(states()).toEqual(["ready", "generating", "ready"]);
    expect(reports.at(-1)!.url).toBe(`https://chatgpt.com/c/${OTHER_CONVERSATION}`);
  });

  it("last resort: a page whose evidence cannot be read ends the turn after 90 s without busy signals or changes", async () => {
    const { page, states } = await setup({ layout });
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.lastResortIdleMs - 1_000);
    expect(states()).toEqual(["ready", "generating"]);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(states()).toEqual(["ready", "generating", "idle"]);
  });

  it("last resort on load: a page loaded without Stop or evidence settles as ready after 90 s", async () => {
    const page = new FakeChatGpt({ layout });
    setup.track(page);
    pause(page, startTurn(page));
    const { adapter, states } = attachAdapter(page);
    adapter.start();
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.lastResortIdleMs - 1_000);
    expect(states()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(states()).toEqual(["ready"]);
    adapter.stop();
  });

  it("a tool approval that pauses a turn: once answered the turn goes on (generating), it is not idle", async () => {
    const { page, states } = await setup({ layout });
    const turn = startTurn(page);
    await vi.advanceTimersByTimeAsync(1_000);
    pause(page, turn);
    const card = page.addToNewestTurn("approval-card");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(states()).toEqual(["ready", "generating", "error:AWAITING_APPROVAL"]);
    card.remove(); // a person answered; the tool runs, nothing shows for a while
    await vi.advanceTimersByTimeAsync(5_000);
    expect(states()).toEqual(["ready", "generating", "error:AWAITING_APPROVAL", "generating"]);
    page.addActionBar(turn);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states().at(-1)).toBe("idle");
  });

  describe("hidden tab", () => {
    it("the mutation that shows the finished turn yields idle from the observer's callback, no timer fired", async () => {
      const { page, states } = await setup({ layout });
      const turn = startTurn(page);
      await vi.advanceTimersByTimeAsync(1_000);
      hide(page);
      pause(page, turn);
      await observerTurn();
      expect(states()).toEqual(["ready", "generating"]);
      page.addActionBar(turn);
      page.announce("Response complete");
      await observerTurn(); // no fake time advanced: only the observer path can report
      expect(states()).toEqual(["ready", "generating", "idle"]);
    });

    it("a Stop that shows is generating at once, from the observer's callback", async () => {
      const { page, states } = await setup({ layout });
      hide(page);
      startTurn(page);
      await observerTurn();
      expect(states()).toEqual(["ready", "generating"]);
    });

    it("the action bar alone: idle once the settle has passed, with no time advanced beyond it", async () => {
      const { page, states, times } = await setup({ layout });
      const turn = startTurn(page);
      await vi.advanceTimersByTimeAsync(1_000);
      hide(page);
      pause(page, turn);
      page.addActionBar(turn);
      await observerTurn();
      const at = Date.now();
      await vi.advanceTimersByTimeAsync(SETTLE);
      expect(states()).toEqual(["ready", "generating", "idle"]);
      expect(times.at(-1)! - at).toBe(SETTLE);
    });

    it("a tick waiting for a frame when the tab goes hidden runs at once instead", async () => {
      const page = new FakeChatGpt({ layout });
      setup.track(page);
      const frames: Array<() => void> = [];
      const { adapter, states } = attachAdapter(page, {
        requestAnimationFrame: (fn) => frames.push(fn),
        cancelAnimationFrame: () => undefined,
      });
      adapter.start();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(states()).toEqual(["ready"]);
      startTurn(page);
      await vi.advanceTimersByTimeAsync(1);
      expect(frames).toHaveLength(1); // waits for a frame a hidden tab never renders
      hide(page);
      page.doc.dispatchEvent(new page.win.Event("visibilitychange"));
      expect(states()).toEqual(["ready", "generating"]);
      adapter.stop();
    });

    it("submit's waits end at the page's next change, not at their timer", async () => {
      // Send enables 400 ms after our text goes in; submit's own poll is 10 s, so only the page's change can wake it.
      const page = new FakeChatGpt({ layout, sendDisabledMs: 400 });
      setup.track(page);
      const { adapter } = attachAdapter(page, { timing: { submitPollMs: 10_000 } });
      adapter.start();
      await vi.advanceTimersByTimeAsync(1_000);
      hide(page);
      page.reply = { chunks: ["ok"] };
      let clickedAt: number | undefined;
      page.doc.addEventListener("click", () => (clickedAt ??= Date.now()), true);
      const started = Date.now();
      const [out] = await Promise.all([
        adapter.submit({ text: "go\n\n[ref: orc-wake]", marker: "orc-wake", mode: "send" }),
        vi.advanceTimersByTimeAsync(15_000),
      ]);
      expect(out).toMatchObject({ outcome: "submitted" });
      // Inserted at once (the composer is settled), clicked as Send enabled: well before a 10 s poll.
      expect(clickedAt! - started).toBeLessThan(1_000);
      adapter.stop();
    });
  });
});

describe("visible tab", () => {
  it("the first change after a quiet interval is ticked after the next frame, not after the throttle interval", async () => {
    const page = new FakeChatGpt({ layout: "composer-2026" });
    setup.track(page);
    // A frame every 16 ms, as a visible tab renders.
    const { adapter, states, times } = attachAdapter(page, {
      requestAnimationFrame: (fn) => setTimeout(fn, 16),
      cancelAnimationFrame: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    });
    adapter.start();
    await vi.advanceTimersByTimeAsync(3_000);
    const at = Date.now();
    startTurn(page);
    await vi.advanceTimersByTimeAsync(500);
    expect(states()).toEqual(["ready", "generating"]);
    expect(times[1]! - at).toBeLessThanOrEqual(20);
    adapter.stop();
  });
});
