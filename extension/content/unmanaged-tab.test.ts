// An open chatgpt.com tab that is no worker's costs its page nothing: the real content bridge over the real page
// adapter on a fake page, with the background's answers scripted. No observer, no timer until the tab is a worker's.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dispatch, FakeEvent, MemoryLogger } from "../../test/extension/fake-browser.ts";
import { startContentBridge } from "../lib/content-bridge.ts";
import type { RuntimeMessageListener } from "../lib/browser-api.ts";
import { createChatGptAdapter } from "./adapter/index.ts";
import { fakePageSuite, FakeChatGpt } from "./adapter/fixtures/fake-chatgpt.ts";

const ID = "abcdefghijklmnopabcdefghijklmnop";
const BG = { id: ID, url: `chrome-extension://${ID}/bg.js` };

const setup = fakePageSuite({
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

/** The content script of a tab on `page`: the background answers every message with `managed()`. */
function contentScript(page: FakeChatGpt, managed: () => boolean) {
  setup.track(page);
  // Observers the page's document has now (observe adds one, disconnect takes it away).
  let observing = 0;
  const Native = page.win.MutationObserver;
  page.win.MutationObserver = class extends Native {
    override observe(target: Node, options?: MutationObserverInit): void {
      observing++;
      super.observe(target, options);
    }
    override disconnect(): void {
      observing--;
      super.disconnect();
    }
  };
  const onMessage = new FakeEvent<RuntimeMessageListener>();
  const posted: Array<{ type: string; report?: { state: string } }> = [];
  startContentBridge({
    api: {
      runtime: {
        id: ID,
        onMessage,
        sendMessage: (m) => (
          posted.push(m as (typeof posted)[number]),
          Promise.resolve({ managed: managed() })
        ),
      },
    },
    location: page.win.location,
    log: new MemoryLogger(),
    createAdapter: (onReport) =>
      createChatGptAdapter(page.win, {
        now: () => Date.now(),
        onReport,
        setTimeout: (fn, ms) => setTimeout(fn, ms),
        clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      }),
  });
  const ask = (message: unknown) => dispatch(onMessage.listeners, message, BG);
  return { posted, ask, observers: () => observing };
}

describe("an unmanaged chatgpt.com tab", () => {
  it("has no observer and no timer however long it stays open, and reports nothing of what the page does", async () => {
    const page = new FakeChatGpt({ layout: "classic" });
    const tab = contentScript(page, () => false);
    await vi.advanceTimersByTimeAsync(0); // the background's answer to hello
    expect(vi.getTimerCount()).toBe(0);
    expect(tab.observers()).toBe(0);

    page.appendUserTurn("a person's own chat");
    page.setPrimary("stop");
    page.appendAssistantTurn("An answer", { streaming: true });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(tab.observers()).toBe(0);
    expect(tab.posted).toEqual([{ type: "content.hello", url: page.win.location.href }]);
    const ping = await tab.ask({ type: "bg.ping" });
    expect(ping).toMatchObject({ ok: true, url: page.win.location.href });
    expect(ping).not.toHaveProperty("state"); // nothing of the page was read
    expect(tab.observers()).toBe(0);
  });

  it("watches once it becomes a worker's tab, and leaves no observer or timer when it stops being one", async () => {
    const page = new FakeChatGpt({ layout: "classic" });
    let managed = false;
    const tab = contentScript(page, () => managed);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);

    managed = true; // bound now: the background says so with bg.watch, and the page asks again
    expect(await tab.ask({ type: "bg.watch" })).toEqual({ ok: true });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(tab.observers()).toBe(1);
    expect(tab.posted.filter((m) => m.type === "content.state").map((m) => m.report?.state)).toEqual([
      "ready",
    ]);
    expect(vi.getTimerCount()).toBeGreaterThan(0); // the slow poll

    managed = false; // released
    await tab.ask({ type: "bg.watch" });
    await vi.advanceTimersByTimeAsync(0);
    expect(tab.observers()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    const reports = tab.posted.length;
    page.setPrimary("stop");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(tab.posted).toHaveLength(reports);
  });
});
