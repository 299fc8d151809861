// The worker belongs to its conversation, not to a tab (docs/extension.md, "Bindings"): managed tabs kept from
// automatic discarding, discarded tabs followed (Chromium's new id) and reloaded, a closed tab detached and the
// conversation reopened in a background tab for the next command (or held as closed with reopening off), a tab that
// shows the conversation again rebound, a second tab on it never sent to, and a page's own `closed` ignored.
import { afterEach, describe, expect, it } from "vitest";
import { KEEPALIVE_ALARM } from "../../extension/background/executor.ts";
import type { RuntimeMessageListener } from "../../extension/lib/browser-api.ts";
import { command, Harness, waitFor } from "./executor-harness.ts";
import type { FakeTab } from "./fake-browser.ts";

let h: Harness;
afterEach(() => h?.kill());

const bindings = (workerId: string) => h.sent("binding").filter((m) => m.workerId === workerId);
const states = (workerId: string) => h.sent("conversation.state").filter((m) => m.workerId === workerId);
const tabsShowing = (url: string): FakeTab[] => [...h.browser.tabs.values()].filter((t) => t.url === url);
const OTHER_CHAT = "https://chatgpt.com/c/6800f3a1-0000-8000-9000-777777777777";

/** A worker whose turn has ended (a running turn would have its tab reopened or reloaded at once). */
async function idleWorker(workerId: string): Promise<{ tabId: number; url: string }> {
  const made = await h.createWorker(workerId);
  h.adapter(made.tabId).report("idle");
  await waitFor(() => states(workerId).at(-1)?.state === "idle", `${workerId} idle`);
  return made;
}

async function submitted(
  n: number,
  workerId = "w1",
  type: "conversation.send" | "conversation.steer" = "conversation.send",
) {
  const cmd = command(workerId, n, type);
  h.host.send(cmd);
  return h.result(cmd.commandId);
}

describe("managed tabs survive the browser", () => {
  it("keeps the bound tab from automatic discarding, and gives it back when it leaves the conversation or is released", async () => {
    h = new Harness();
    await h.connected();
    const one = await idleWorker("w1");
    const tab = h.tab(one.tabId);
    expect(tab.autoDiscardable).toBe(false);
    tab.navigate(OTHER_CHAT);
    await waitFor(() => tab.autoDiscardable, "given back after navigating away");
    expect(bindings("w1").at(-1)).toMatchObject({ binding: "detached", url: one.url });

    const two = await idleWorker("w2");
    expect(h.tab(two.tabId).autoDiscardable).toBe(false);
    await h.executor.releaseTab("w2");
    expect(h.tab(two.tabId).autoDiscardable).toBe(true);
    expect(await h.db.bindings.get("w2")).toBeUndefined();
  });

  it("the host does not know the worker: the binding is forgotten, the tab discardable, and never reopened", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    h.host.send({ kind: "binding.release", workerId: "w1" });
    await waitFor(async () => (await h.db.bindings.get("w1")) === undefined, "binding forgotten");
    expect(h.tab(tabId).autoDiscardable).toBe(true);
    // Its conversation closed and shown again: nothing is reopened or rebound.
    h.browser.closeTab(tabId);
    await h.executor.idle();
    expect(tabsShowing(url)).toHaveLength(0);
    expect(bindings("w1").map((b) => b.binding)).toEqual(["bound"]);
  });

  it("Chromium discards an idle bound tab (new id): the binding follows it, and a command reloads it and submits once", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await idleWorker("w1");
    const tab = h.tab(tabId);
    const newId = h.browser.discard(tabId);
    expect(newId).not.toBe(tabId);
    await waitFor(
      async () => (await h.db.bindings.get("w1"))?.tabId === newId,
      "binding moved to the new id",
    );
    expect(tab.reloads).toBe(0); // nothing was running: no reload until a command needs the page
    expect(await submitted(1)).toMatchObject({ outcome: "submitted" });
    expect(tab.reloads).toBe(1);
    expect(tab.adapter!.submits).toHaveLength(1); // the reloaded page's, once
    expect(h.browser.tabs.size).toBe(1);
    expect(tab.autoDiscardable).toBe(false);
    expect(bindings("w1").map((b) => b.binding)).toEqual(["bound"]);
  });

  it("a steer to a tab discarded in place (Firefox keeps the id) reloads it first: no reply runs in an unloaded page", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await idleWorker("w1");
    h.browser.discard(tabId, { newId: false });
    expect(await submitted(1, "w1", "conversation.steer")).toMatchObject({ outcome: "submitted" });
    expect(h.tab(tabId).reloads).toBe(1);
    expect(h.adapter(tabId).submits).toEqual([expect.objectContaining({ mode: "steer" })]);
  });

  it("a command whose tab id is gone (its replacement missed) finds the discarded tab on the conversation and uses it", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    const tab = h.tab(tabId);
    h.browser.api.tabs.onReplaced.listeners = []; // the event is lost
    const newId = h.browser.discard(tabId);
    expect(await submitted(1)).toMatchObject({ outcome: "submitted", url });
    expect(await h.db.bindings.get("w1")).toMatchObject({ state: "bound", tabId: newId });
    expect(tab.reloads).toBe(1);
    expect(tab.adapter!.submits).toHaveLength(1);
    expect(h.browser.tabs.size).toBe(1);
  });

  it("a tab discarded mid-turn is reloaded at once, so the end of the turn is seen", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    expect(states("w1").at(-1)?.state).toBe("generating");
    const tab = h.tab(tabId);
    h.browser.discard(tabId);
    await waitFor(() => tab.reloads === 1 && tab.adapter !== undefined, "reloaded at once");
    tab.adapter!.report("idle");
    await waitFor(() => states("w1").at(-1)?.state === "idle", "the end of the turn");
    expect(tab.reloads).toBe(1);
    expect(bindings("w1").map((b) => b.binding)).toEqual(["bound"]);
  });

  it("where tabs cannot be kept from discarding (Firefox for Android) it says so once and goes on", async () => {
    h = new Harness();
    h.browser.noAutoDiscardable = true;
    await h.connected();
    await idleWorker("w1");
    await idleWorker("w2");
    expect(h.log.lines.filter((l) => /cannot be kept from automatic discarding/.test(l))).toHaveLength(1);
    expect(await submitted(1)).toMatchObject({ outcome: "submitted" });
  });
});

describe("the conversation is the binding", () => {
  it("a closed tab detaches the worker; its next command opens the conversation in a background tab and submits once", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    h.browser.closeTab(tabId);
    await waitFor(() => bindings("w1").at(-1)?.binding === "detached", "detached");
    expect(bindings("w1").at(-1)).toEqual({ kind: "binding", workerId: "w1", binding: "detached", url });
    expect(h.browser.tabs.size).toBe(0); // nothing runs: nothing is opened until a command needs it

    expect(await submitted(1)).toMatchObject({ outcome: "submitted", url });
    const [reopened, ...more] = tabsShowing(url);
    expect(more).toEqual([]);
    expect(reopened!.active).toBe(false);
    expect(reopened!.autoDiscardable).toBe(false);
    expect(reopened!.adapter!.submits).toHaveLength(1);
    expect(await h.db.bindings.get("w1")).toMatchObject({ state: "bound", tabId: reopened!.id });
    expect(bindings("w1").map((b) => b.binding)).toEqual(["bound", "detached", "bound"]);
  });

  it("with focusNewTabs on, the reopened conversation comes to the front", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    await h.db.prefs.put({ key: "focusNewTabs", value: true });
    h.restart();
    await h.connected();
    h.browser.closeTab(tabId);
    await waitFor(() => bindings("w1").at(-1)?.binding === "detached", "detached");
    expect(await submitted(1)).toMatchObject({ outcome: "submitted" });
    expect(tabsShowing(url).map((t) => t.active)).toEqual([true]);
  });

  it("a tab closed mid-turn is reopened at once in the background, so the end of the turn is seen", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await h.createWorker("w1");
    h.browser.closeTab(tabId);
    await waitFor(() => tabsShowing(url)[0]?.adapter !== undefined, "reopened at once");
    const reopened = tabsShowing(url)[0]!;
    expect(reopened.active).toBe(false);
    await waitFor(() => bindings("w1").at(-1)?.binding === "bound", "bound to the reopened tab");
    reopened.adapter!.report("idle");
    await waitFor(() => states("w1").at(-1)?.state === "idle", "the end of the turn");
    expect(bindings("w1").map((b) => b.binding)).toEqual(["bound", "detached", "bound"]);
    expect(reopened.adapter!.submits).toEqual([]); // reopening submits nothing
  });

  it("with reopening off a closed tab is reported closed, a command fails TAB_CLOSED and opens nothing; turning it on reports detached", async () => {
    h = new Harness();
    await h.connected();
    await h.executor.setReopenClosedTabs(false);
    const { tabId, url } = await idleWorker("w1");
    h.browser.closeTab(tabId);
    await waitFor(() => bindings("w1").at(-1)?.binding === "closed", "closed");
    expect(bindings("w1").at(-1)).toEqual({ kind: "binding", workerId: "w1", binding: "closed", url });
    expect(await submitted(1)).toMatchObject({ outcome: "failed", errorCode: "TAB_CLOSED" });
    expect(h.browser.tabs.size).toBe(0);
    expect(await h.db.bindings.get("w1")).toMatchObject({ state: "closed", url });

    await h.executor.setReopenClosedTabs(true);
    await waitFor(() => bindings("w1").at(-1)?.binding === "detached", "re-reported detached");
    expect(await h.db.prefs.get("reopenClosedTabs")).toEqual({ key: "reopenClosedTabs", value: true });
    expect(await submitted(2)).toMatchObject({ outcome: "submitted" });
    expect(tabsShowing(url)).toHaveLength(1);
  });

  it("with reopening off a tab closed mid-turn is not reopened", async () => {
    h = new Harness();
    await h.connected();
    await h.executor.setReopenClosedTabs(false);
    const { tabId } = await h.createWorker("w1");
    h.browser.closeTab(tabId);
    await waitFor(() => bindings("w1").at(-1)?.binding === "closed", "closed");
    expect(await submitted(1)).toMatchObject({ outcome: "failed", errorCode: "TAB_CLOSED" });
    expect(h.browser.tabs.size).toBe(0);
  });
});

describe("coming back rebinds", () => {
  it("navigating away and back in the same tab rebinds it: one submission there, no new tab", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    const tab = h.tab(tabId);
    tab.navigate(OTHER_CHAT);
    await waitFor(() => bindings("w1").at(-1)?.binding === "detached", "detached");
    tab.navigate(url);
    await waitFor(() => bindings("w1").at(-1)?.binding === "bound", "bound again");
    expect(tab.autoDiscardable).toBe(false);
    expect(await submitted(1)).toMatchObject({ outcome: "submitted", url });
    expect(tab.adapter!.submits).toHaveLength(2); // the create, and this one
    expect(h.browser.tabs.size).toBe(1);
  });

  it("a person opening the conversation again rebinds that tab on its hello, and its reports are forwarded", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    h.browser.closeTab(tabId);
    await waitFor(() => bindings("w1").at(-1)?.binding === "detached", "detached");
    const again = h.browser.openTab(url);
    await waitFor(() => bindings("w1").at(-1)?.binding === "bound", "bound on hello");
    expect(await h.db.bindings.get("w1")).toMatchObject({ tabId: again.id });
    again.adapter!.report("generating");
    await waitFor(() => states("w1").at(-1)?.state === "generating", "its report forwarded");
    again.adapter!.report("idle");
    expect(await submitted(1)).toMatchObject({ outcome: "submitted" });
    expect(again.adapter!.submits).toHaveLength(1);
    expect(h.browser.tabs.size).toBe(1);
  });

  it("the conversation in a second tab is left alone while the bound tab lives, and takes over when it closes", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    const first = h.tab(tabId);
    const second = h.browser.openTab(url);
    await waitFor(() => second.adapter !== undefined, "second tab's content script");
    const before = states("w1").length;
    expect(
      await h.browser.fromContent(second, { type: "content.state", report: { state: "generating" } }),
    ).toEqual({ managed: false });
    expect(await submitted(1)).toMatchObject({ outcome: "submitted" });
    expect(first.adapter!.submits).toHaveLength(2);
    expect(second.adapter!.submits).toEqual([]);
    await waitFor(() => states("w1").length > before, "the first tab's report of its turn");
    expect(
      states("w1")
        .slice(before)
        .map((s) => s.state),
    ).toEqual(["generating"]); // the first tab's own
    expect(second.autoDiscardable).toBe(true);

    first.adapter!.report("idle");
    await waitFor(() => states("w1").at(-1)?.state === "idle", "idle");
    h.browser.closeTab(tabId);
    await waitFor(async () => (await h.db.bindings.get("w1"))?.tabId === second.id, "the second tab bound");
    expect(second.autoDiscardable).toBe(false);
    expect(await submitted(2)).toMatchObject({ outcome: "submitted" });
    expect(second.adapter!.submits).toHaveLength(1);
    expect(h.browser.tabs.size).toBe(1); // nothing reopened
    expect(bindings("w1").map((b) => b.binding)).not.toContain("detached");
  });

  it("only a worker's tab is watched: a tab is told when it becomes one and when it stops being one", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    const first = h.tab(tabId);
    expect(first.adapter!.watching).toBe(true);
    const second = h.browser.openTab(url);
    await waitFor(() => second.adapter !== undefined, "second tab's content script");
    const unmanaged = h.browser.openTab(OTHER_CHAT);
    await waitFor(() => unmanaged.adapter !== undefined, "an unrelated tab's content script");
    await h.executor.idle();
    expect(second.adapter!.watching).toBe(false);
    expect(unmanaged.adapter!.watching).toBe(false);

    h.browser.closeTab(tabId); // the second tab takes over: told, it watches (and reports what it shows)
    await waitFor(() => second.adapter!.watching, "the second tab watched");
    second.adapter!.report("generating");
    await waitFor(() => states("w1").at(-1)?.state === "generating", "its report forwarded");
    second.adapter!.report("idle"); // (a tab left mid-turn would have its conversation reopened at once)
    await waitFor(() => states("w1").at(-1)?.state === "idle", "idle");

    second.navigate(OTHER_CHAT); // the person takes the tab elsewhere: the worker is detached, the tab unwatched
    await waitFor(() => bindings("w1").at(-1)?.binding === "detached", "detached");
    await waitFor(() => !second.adapter!.watching, "the second tab no longer watched");
    expect(unmanaged.adapter!.watching).toBe(false);
  });

  it("the page's own URL decides whether it is the worker's, not the browser's record of the tab, which can lag", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    const tab = h.tab(tabId);
    // The message left before the browser recorded the page's pushState (a new chat just got its /c/<id>).
    const lagging = (shown: string) => ({
      ...h.browser.senderOf(tab),
      url: shown,
      tab: { ...tab.info(), url: shown },
    });
    const start = "https://chatgpt.com/";
    const generating = { type: "content.state", report: { state: "generating", url } };
    expect(await h.browser.send(generating, lagging(start))).toEqual({ managed: true });
    await waitFor(() => states("w1").at(-1)?.state === "generating", "the report forwarded");
    expect(await h.browser.send({ type: "content.hello", url }, lagging(start))).toEqual({ managed: true });

    // The page has left the conversation though the browser's record still shows it: not the worker's page.
    const elsewhere = { type: "content.state", report: { state: "idle", url: OTHER_CHAT } };
    expect(await h.browser.send(elsewhere, lagging(url))).toEqual({ managed: false });
    expect(states("w1").at(-1)?.state).toBe("generating");
    // A URL off chatgpt.com is no page's reading: the browser's record stands.
    const off = { type: "content.hello", url: "https://example.com/" };
    expect(await h.browser.send(off, lagging(url))).toEqual({ managed: true });
    expect(await h.browser.send(off, lagging(start))).toEqual({ managed: false });
  });

  it("a worker's tab that stopped watching on a wrong answer is told to ask again by the minute's check", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await idleWorker("w1");
    const tab = h.tab(tabId);
    // Whatever the cause (a race, a restart), the page's question once got a wrong answer: no worker's, stop watching.
    const listeners = h.browser.api.runtime.onMessage.listeners;
    const wrong: RuntimeMessageListener = (m, _sender, reply) => {
      if ((m as { type?: unknown }).type !== "content.hello") return undefined;
      reply({ managed: false });
      return true;
    };
    listeners.unshift(wrong);
    await h.browser.api.tabs.sendMessage(tabId, { type: "bg.watch" });
    await waitFor(() => !tab.adapter!.watching, "the page no longer watching");
    listeners.splice(listeners.indexOf(wrong), 1);

    h.browser.api.alarms.onAlarm.emit({ name: KEEPALIVE_ALARM });
    await waitFor(() => tab.adapter!.watching, "watching again after the minute's check");
    expect(h.log.has(new RegExp(`warn tab ${tabId} of w1 was not watching its page`))).toBe(true);
    tab.adapter!.report("generating");
    await waitFor(() => states("w1").at(-1)?.state === "generating", "its report forwarded");
    // A watched tab, or an unrelated one, is told nothing.
    h.browser.openTab(OTHER_CHAT);
    expect(await h.executor.checkWatched()).toEqual([]);
  });

  it("adopting the conversation again in another tab moves the worker's binding there cleanly", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    h.browser.closeTab(tabId);
    await waitFor(() => bindings("w1").at(-1)?.binding === "detached", "detached");
    h.browser.autoLoad = false; // the page has not said hello yet when the person adopts it
    const tab = h.browser.openTab(url);
    await h.executor.adoptTab("w1", tab.id, url);
    expect(await h.db.bindings.toArray()).toEqual([
      expect.objectContaining({ workerId: "w1", state: "bound", tabId: tab.id, url }),
    ]);
    expect(tab.autoDiscardable).toBe(false);
    tab.load();
    expect(await submitted(1)).toMatchObject({ outcome: "submitted" });
    expect(tab.adapter!.submits).toHaveLength(1);
  });
});

describe("restarts and page unloads", () => {
  it("a page's own `closed` (pagehide on reload) is not forwarded; the reloaded page reports its state", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    // What the page says on pagehide, answered once the background has handled it.
    const closed = { type: "content.state", report: { state: "closed", url: h.tab(tabId).url } };
    expect(await h.browser.fromContent(h.tab(tabId), closed)).toEqual({ managed: true });
    await h.browser.api.tabs.reload(tabId);
    await waitFor(() => h.tab(tabId).adapter !== undefined, "reloaded");
    h.adapter(tabId).report("idle");
    await waitFor(() => states("w1").at(-1)?.state === "idle", "the reloaded page's report");
    expect(states("w1").map((s) => s.state)).toEqual(["generating", "idle"]);
    expect(bindings("w1").map((b) => b.binding)).toEqual(["bound"]);
  });

  it("after a restart a binding whose tab is gone is detached, and its next command reopens the conversation", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await idleWorker("w1");
    h.kill();
    h.browser.closeTab(tabId); // the browser came back without it
    h.boot();
    await h.connected();
    expect(h.sent("hello").at(-1)!.bindings).toEqual([
      {
        workerId: "w1",
        binding: "detached",
        url,
        observed: expect.objectContaining({ state: "idle" }) as object,
      },
    ]);
    expect(await submitted(1)).toMatchObject({ outcome: "submitted", url });
    expect(tabsShowing(url).map((t) => t.adapter?.submits.length)).toEqual([1]);
  });

  it("after a restart a worker whose turn was running when its tab went away gets its conversation reopened", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await h.createWorker("w1");
    h.kill();
    h.browser.closeTab(tabId);
    h.boot();
    await waitFor(() => tabsShowing(url)[0]?.adapter !== undefined, "reopened");
    await waitFor(async () => (await h.db.bindings.get("w1"))?.state === "bound", "bound");
    expect(tabsShowing(url).map((t) => t.active)).toEqual([false]);
  });
});
