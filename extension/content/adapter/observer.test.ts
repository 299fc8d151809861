// Runs in the node environment: each test builds its own happy-dom Window from a fixture (fixtures/fake-chatgpt.ts).
// The observer: a bounded MutationObserver plus a slow poll, coalesced to exactly one report per real
// transition however much the DOM churns; the delivery-timeout banner as MESSAGE_DELIVERY_TIMEOUT, never Retry.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { attachAdapter, FakeChatGpt, fakePageSuite } from "./fixtures/fake-chatgpt.ts";
import { DEFAULT_TIMING } from "./timing.ts";

/** A started adapter on a fresh page, after the initial quiet period. */
const setup = fakePageSuite({
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

/** Unrelated churn: a node whose class and text change every `everyMs` for `forMs` (one interval timer). */
function churn(page: FakeChatGpt, everyMs: number, forMs: number): void {
  const node = page.doc.createElement("div");
  page.doc.body.appendChild(node);
  let t = 0;
  const timer = setInterval(() => {
    t += everyMs;
    node.className = `tick-${t}`;
    node.textContent = `${t}`;
    if (t >= forMs) clearInterval(timer);
  }, everyMs);
}

/** A started adapter whose frames the test runs by hand (`runFrames`), after the initial quiet period. */
async function startWithFrames(page: FakeChatGpt) {
  const frames = new Map<number, () => void>();
  let next = 0;
  const attached = attachAdapter(page, {
    requestAnimationFrame: (fn) => {
      frames.set(++next, fn);
      return next;
    },
    cancelAnimationFrame: (handle) => void frames.delete(handle as number),
  });
  const runFrames = () => {
    const due = [...frames.values()];
    frames.clear();
    for (const fn of due) fn();
  };
  attached.adapter.start();
  for (let t = 0; t < 3_000; t += 100) {
    await vi.advanceTimersByTimeAsync(100);
    runFrames();
  }
  return { ...attached, frames, runFrames };
}

describe.each(["classic", "composer-2026"] as const)("%s layout", (layout) => {
  it("one report per real transition while the answer streams in 60 chunks under heavy churn", async () => {
    const { page, states, adapter } = await setup({ layout });
    const chunks = Array.from({ length: 60 }, (_, i) => ` word${i}`);
    page.reply = {
      chunks,
      chunkMs: 50,
      final: "All done.\nstatus: working\nsummary: s\ncurrent: c\nnext: n",
    };
    churn(page, 30, 6_000); // 200 unrelated mutations on top of the answer's own
    await Promise.all([
      adapter.submit({ text: "go\n\n[ref: orc-churn]", marker: "orc-churn", mode: "send" }),
      vi.advanceTimersByTimeAsync(10_000),
    ]);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    expect(adapter.current()).toMatchObject({ state: "idle", continuationStatus: "working" });
  });

  it("no second idle report when the finished turn changes later but its continuation block does not", async () => {
    const { page, states, reports, adapter } = await setup({ layout });
    page.reply = { chunks: ["Done."], final: "Done.\nstatus: working\nsummary: s\ncurrent: c\nnext: n" };
    await Promise.all([
      adapter.submit({ text: "go\n\n[ref: orc-late]", marker: "orc-late", mode: "send" }),
      vi.advanceTimersByTimeAsync(8_000),
    ]);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    // Late decoration of the finished turn (a sources row, "Thought for 12s"): new text, same block, no busy signal.
    const turn = page.newestTurn!;
    const late = page.doc.createElement("div");
    late.textContent = "Sources · 3";
    turn.appendChild(late);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    expect(reports[2]).toMatchObject({ continuationStatus: "working" });
  });

  it("no report at all from churn while idle, and none from a poll that finds nothing new", async () => {
    const { page, reports } = await setup({ layout });
    churn(page, 40, 8_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(reports).toHaveLength(1);
  });

  it("ticks that ask for the deadline already armed keep its timer (no clear and re-arm per tick)", async () => {
    const page = new FakeChatGpt({ layout });
    setup.track(page);
    let clears = 0;
    const { adapter, states } = attachAdapter(page, {
      clearTimeout: (h) => {
        clears++;
        clearTimeout(h as ReturnType<typeof setTimeout>);
      },
    });
    adapter.start();
    await vi.advanceTimersByTimeAsync(3_000);
    page.reply = { chunks: ["Done."], final: "Done.\nstatus: working\nsummary: s\ncurrent: c\nnext: n" };
    await Promise.all([
      adapter.submit({ text: "go\n\n[ref: orc-arm]", marker: "orc-arm", mode: "send" }),
      vi.advanceTimersByTimeAsync(8_000),
    ]);
    expect(states()).toEqual(["ready", "generating", "idle"]);
    // Idle, with the thinking fallback and the animated-answer deadlines still ahead: 8 s of churn ticks ~50 times.
    clears = 0;
    churn(page, 40, 8_000);
    await vi.advanceTimersByTimeAsync(8_000);
    expect(clears).toBeLessThanOrEqual(3);
    adapter.stop();
  });

  it('"Message delivery timed out" → MESSAGE_DELIVERY_TIMEOUT; Retry never clicked; a fresh continue is submitted', async () => {
    const { page, states, adapter } = await setup({ layout });
    page.reply = { outcome: "delivery-timeout", stopDelayMs: 300 };
    const [first] = await Promise.all([
      adapter.submit({ text: "work\n\n[ref: orc-mdt1]", marker: "orc-mdt1", mode: "send" }),
      vi.advanceTimersByTimeAsync(6_000),
    ]);
    // The user turn landed (proof), then the banner replaced the answer.
    expect(first).toMatchObject({ outcome: "submitted" });
    expect(states()).toEqual(["ready", "generating", "error:MESSAGE_DELIVERY_TIMEOUT"]);
    // A delivery timeout is answered with a fresh user turn, never Retry (docs/continuation-core.md). The old
    // card is then stale.
    page.reply = { chunks: ["Resumed."] };
    const [second] = await Promise.all([
      adapter.submit({ text: "continue\n\n[ref: orc-mdt2]", marker: "orc-mdt2", mode: "send" }),
      vi.advanceTimersByTimeAsync(8_000),
    ]);
    expect(second).toMatchObject({ outcome: "submitted" });
    expect(states()).toEqual(["ready", "generating", "error:MESSAGE_DELIVERY_TIMEOUT", "generating", "idle"]);
    expect(page.clicks.retry).toBe(0);
    expect(page.clicks.regenerate).toBe(0);
    expect(page.forbiddenClicks).toBe(0);
  });

  it("an error that flashes for less than the confirmation time is not reported", async () => {
    const { page, reports } = await setup({ layout });
    const toast = page.addToPortal("toast-error", "Message delivery timed out. Please try again.");
    await vi.advanceTimersByTimeAsync(200);
    toast.remove();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(reports).toHaveLength(1);
  });

  it("a Stop that vanishes and returns, with no evidence of the end meanwhile, does not make idle/generating flap", async () => {
    const { page, states } = await setup({ layout });
    page.appendUserTurn("continue");
    const turn = page.appendAssistantTurn("Part one", { streaming: true });
    page.setPrimary("stop");
    await vi.advanceTimersByTimeAsync(1_000);
    for (let i = 0; i < 3; i++) {
      page.setStreaming(turn, false);
      page.setPrimary("voice");
      await vi.advanceTimersByTimeAsync(1_500); // no action bar or announcement: no idle, however long
      page.setStreaming(turn, true);
      page.setPrimary("stop");
      await vi.advanceTimersByTimeAsync(500);
    }
    page.setStreaming(turn, false);
    page.setPrimary("voice");
    page.addActionBar(turn);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
  });

  it("a modal over the page while generating (the composer aria-hidden) is not taken for idle", async () => {
    const { page, states } = await setup({ layout });
    page.appendUserTurn("continue");
    const turn = page.appendAssistantTurn("Part one");
    page.setPrimary("stop");
    await vi.advanceTimersByTimeAsync(1_000);
    const main = page.doc.querySelector("main")!;
    main.setAttribute("aria-hidden", "true");
    const dialog = page.doc.createElement("div");
    dialog.setAttribute("role", "dialog");
    dialog.textContent = "Settings";
    page.portal.appendChild(dialog);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(states()).toEqual(["ready", "generating"]);
    main.removeAttribute("aria-hidden");
    dialog.remove();
    page.setPrimary("voice");
    page.addActionBar(turn);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(states()).toEqual(["ready", "generating", "idle"]);
  });

  // While only the answer streams, a scan reuses what the last full scan found outside it (page-scan.ts); a change
  // outside must still be seen by the next tick, not only when that reuse runs out (after the 1 s poll interval).
  describe("changes outside the streaming answer are seen by the next tick", () => {
    /** The answer grows every 50 ms (records inside the newest turn only) until `forMs`. */
    const streamInto = (page: FakeChatGpt, turn: Element, forMs: number) => {
      let t = 0;
      const timer = setInterval(() => {
        t += 50;
        const p = page.doc.createElement("p");
        p.textContent = `word ${t}`;
        page.markdownOf(turn).append(p);
        if (t >= forMs) clearInterval(timer);
      }, 50);
    };
    const reportedAfter = (times: number[], from: number) => times.filter((t) => t >= from)[0]! - from;

    it("a Stop that appears in the form", async () => {
      const { page, states, times } = await setup({ layout });
      page.appendUserTurn("continue");
      const turn = page.appendAssistantTurn("Part one"); // no busy marker: the page stays ready
      streamInto(page, turn, 3_000);
      await vi.advanceTimersByTimeAsync(400);
      expect(states().at(-1)).toBe("ready"); // (its block changed with the new turn: a second ready may come)
      const before = states().length;
      const at = Date.now();
      page.setPrimary("stop");
      await vi.advanceTimersByTimeAsync(400);
      expect(states().slice(before)).toEqual(["generating"]);
      expect(reportedAfter(times, at)).toBeLessThanOrEqual(300);
    });

    it("an error card after the newest turn, and a rate-limit dialog outside the thread", async () => {
      const { page, states, times } = await setup({ layout });
      page.appendUserTurn("continue");
      const turn = page.appendAssistantTurn("Part one", { streaming: true });
      page.setPrimary("stop");
      streamInto(page, turn, 6_000);
      await vi.advanceTimersByTimeAsync(400);
      expect(states()).toEqual(["ready", "generating"]);
      const card = page.doc.createElement("div");
      card.className = "text-token-text-error";
      card.textContent = "Something went wrong.";
      let at = Date.now();
      page.turnsRoot.appendChild(card); // after the newest turn, not inside it
      await vi.advanceTimersByTimeAsync(1_000);
      expect(states()).toEqual(["ready", "generating", "error:RESPONSE_FAILED"]);
      expect(reportedAfter(times, at)).toBeLessThanOrEqual(800); // seen at once, then the 500 ms confirmation
      card.remove();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(states()).toEqual(["ready", "generating", "error:RESPONSE_FAILED", "generating"]);
      at = Date.now();
      page.addToPortal("rate-limit-dialog");
      await vi.advanceTimersByTimeAsync(1_000);
      expect(states()).toEqual([
        "ready",
        "generating",
        "error:RESPONSE_FAILED",
        "generating",
        "error:RATE_LIMITED",
      ]);
      expect(reportedAfter(times, at)).toBeLessThanOrEqual(800);
    });
  });

  it("a URL change while idle is one report with the new URL; the draft route of a first send is none", async () => {
    const { page, reports } = await setup({ layout });
    // No mutation record: the poll finds it, which waits longer the longer the page has been settled.
    page.navigate("/c/local-chatgpt%3A11111111-2222-3333-4444-555555555555");
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.idlePollMaxMs);
    expect(reports).toHaveLength(1);
    page.navigate("/g/g-p-0123456789abcdef0123456789abcdef-proj/c/11111111-2222-3333-4444-555555555555");
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.idlePollMaxMs);
    expect(reports).toHaveLength(2);
    expect(reports[1]!.url).toBe(
      "https://chatgpt.com/g/g-p-0123456789abcdef0123456789abcdef-proj/c/11111111-2222-3333-4444-555555555555",
    );
  });
});

describe("the slow poll", () => {
  const project = (id: string) => `/g/g-p-0123456789abcdef0123456789abcdef-proj/c/${id}`;

  it("backs off while the page stays settled, and is back at pollMs as soon as a turn runs", async () => {
    const { page, reports, states } = await setup({ layout: "classic" });
    const id = new URL(page.win.location.href).pathname.split("/").pop()!;
    await vi.advanceTimersByTimeAsync(120_000); // settled all along: the poll waits its longest now
    page.navigate(project(id)); // no mutation record: only a poll can see it
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.pollMs * 2);
    expect(reports).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.idlePollMaxMs);
    expect(reports.map((r) => r.url)).toEqual([
      `https://chatgpt.com/c/${id}`,
      `https://chatgpt.com${project(id)}`,
    ]);

    page.setPrimary("stop"); // a turn runs: seen by its mutation, and the poll is at pollMs again
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.throttleMs);
    expect(states()).toEqual(["ready", "ready", "generating"]);
    page.navigate(`/c/${id}`);
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.pollMs + 10);
    expect(reports.at(-1)).toMatchObject({ state: "generating", url: `https://chatgpt.com/c/${id}` });
  });

  it("reads a pushState at once where the Navigation API tells of it, without waiting for the poll", async () => {
    const page = new FakeChatGpt({ layout: "classic" });
    setup.track(page);
    const navigation = new page.win.EventTarget();
    Object.assign(page.win, { navigation });
    const { adapter, reports } = attachAdapter(page);
    adapter.start();
    await vi.advanceTimersByTimeAsync(120_000);
    const id = new URL(page.win.location.href).pathname.split("/").pop()!;
    page.navigate(project(id));
    navigation.dispatchEvent(new page.win.Event("currententrychange"));
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.throttleMs);
    expect(reports.at(-1)?.url).toBe(`https://chatgpt.com${project(id)}`);
    adapter.stop();
  });
});

describe("lifecycle", () => {
  it("started again after stop(), it reads the page afresh and reports its state again", async () => {
    const { page, states, adapter } = await setup({ layout: "classic" });
    adapter.stop();
    page.appendUserTurn("typed while nobody watched");
    page.setPrimary("stop"); // a turn runs unseen
    await vi.advanceTimersByTimeAsync(5_000);
    expect(states()).toEqual(["ready"]);
    adapter.start();
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.throttleMs);
    expect(states()).toEqual(["ready", "generating"]);
    adapter.stop();
    adapter.start(); // the same state again is reported again: the background may have forgotten this tab
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.throttleMs);
    expect(states()).toEqual(["ready", "generating", "generating"]);
  });

  it("pagehide reports closed once; stop() ends observation", async () => {
    const { page, states, adapter } = await setup({ layout: "classic" });
    page.win.dispatchEvent(new page.win.Event("pagehide"));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(states()).toEqual(["ready", "closed"]);
    adapter.stop();
    page.appendUserTurn("later");
    page.setPrimary("stop");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(states()).toEqual(["ready", "closed"]);
  });

  it("one document observer: any change is read, and only text, children and the signal or visibility attributes schedule a tick", async () => {
    const page = new FakeChatGpt({ layout: "classic" });
    setup.track(page);
    const Native = page.win.MutationObserver;
    let built = 0;
    page.win.MutationObserver = class extends Native {
      constructor(callback: MutationCallback) {
        super(callback);
        built++;
      }
    };
    const { adapter, frames, runFrames } = await startWithFrames(page);
    expect(built).toBe(1);
    const node = page.doc.createElement("div");
    page.doc.body.appendChild(node);
    await vi.advanceTimersByTimeAsync(400);
    runFrames();
    await vi.advanceTimersByTimeAsync(1);

    node.setAttribute("aria-expanded", "true"); // no busy/idle signal reads it: no tick
    await vi.advanceTimersByTimeAsync(400);
    expect(frames.size).toBe(0);
    node.setAttribute("data-state", "open"); // a signal attribute: one tick, after the frame
    await vi.advanceTimersByTimeAsync(400);
    expect(frames.size).toBe(1);
    // The visibility rule's markup: hiding or un-hiding a subtree this way can show or hide Stop, an editor, a card.
    for (const [name, value] of [
      ["aria-hidden", "true"],
      ["inert", ""],
    ] as const) {
      runFrames();
      await vi.advanceTimersByTimeAsync(1);
      expect(frames.size).toBe(0);
      node.setAttribute(name, value);
      await vi.advanceTimersByTimeAsync(400);
      expect(frames.size, name).toBe(1);
    }
    adapter.stop();
    expect(built).toBe(1);
  });

  it("in a visible tab a mutation tick runs after the next frame; in a hidden one at once; stop() cancels a frame", async () => {
    const page = new FakeChatGpt({ layout: "classic" });
    setup.track(page);
    const { adapter, states, frames, runFrames } = await startWithFrames(page);
    expect(states()).toEqual(["ready"]);

    // Between polls (every second since start): only the mutation tick can report.
    page.setPrimary("stop");
    await vi.advanceTimersByTimeAsync(400);
    expect(frames.size).toBe(1); // asked for the frame, waiting for it
    expect(states()).toEqual(["ready"]);
    runFrames();
    await vi.advanceTimersByTimeAsync(1);
    expect(states()).toEqual(["ready", "generating"]);

    Object.defineProperty(page.doc, "visibilityState", { value: "hidden", configurable: true });
    page.setPrimary("voice");
    await vi.advanceTimersByTimeAsync(1); // the tick ran in the observer's callback: no throttle, no frame
    expect(frames.size).toBe(0);
    // Stop gone with the finished turn's action bar showing: idle once that evidence has held for the settle.
    expect(states()).toEqual(["ready", "generating"]);
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMING.settleMs);
    expect(states()).toEqual(["ready", "generating", "idle"]);

    Object.defineProperty(page.doc, "visibilityState", { value: "visible", configurable: true });
    page.setPrimary("stop");
    await vi.advanceTimersByTimeAsync(200);
    expect(frames.size).toBe(1);
    adapter.stop();
    expect(frames.size).toBe(0);
  });

  it("before start() nothing is reported, and current() classifies the page right now", async () => {
    const page = new FakeChatGpt({ layout: "composer-2026" });
    setup.track(page);
    const { adapter, reports } = attachAdapter(page);
    page.appendUserTurn("continue");
    page.appendAssistantTurn("Streaming", { streaming: true });
    page.setPrimary("stop");
    expect(adapter.current()).toMatchObject({ state: "generating", layout: "composer-2026" });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reports).toEqual([]);
  });

  it("the first report waits for evidence: a page loaded mid-turn reports generating, not ready", async () => {
    // Before, the first state came after a 2 s quiet period (this test had the resumed turn show up 800 ms after load);
    // now a page loaded mid-turn reports nothing until it shows Stop or the evidence of its end, however long.
    const page = new FakeChatGpt({ layout: "classic" });
    setup.track(page);
    page.appendUserTurn("continue");
    const turn = page.appendAssistantTurn("The first half of the answer"); // no action bar, no Stop yet
    const { adapter, states } = attachAdapter(page);
    adapter.start();
    // The resumed stream's Stop shows 2.5 s after load.
    setTimeout(() => {
      page.setStreaming(turn, true);
      page.setPrimary("stop");
    }, 2_500);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(states()).toEqual(["generating"]);
  });
});
