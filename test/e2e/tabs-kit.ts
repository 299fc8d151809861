// Shared steps of the managed-tab scenarios (docs/e2e.md, "Managed tabs"): the browser's own view of the tabs
// through the extension's service worker (which tabs show a conversation, discarding one as Memory Saver does), the
// host's events of a worker, resume latency from the page's own end of turn, and the clean-up between scenarios.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { FakeChatGPT, PageTurnEnd } from "../fake-chatgpt/server.ts";
import { tool, waitFor, type ChromiumE2E, type WorkerOut } from "./harness.ts";
import { OPTIONS_URL, openPage } from "./ui-kit.ts";

/** A tab as `chrome.tabs` describes it to the extension (host access to chatgpt.com shows its URL). */
export interface BrowserTab {
  id: number;
  url: string;
  active: boolean;
  discarded: boolean;
  autoDiscardable: boolean;
  status: string;
}

/** The slice of `chrome.tabs` these steps call inside the service worker. */
interface ChromeTabs {
  chrome: {
    tabs: {
      query(q: { url?: string }): Promise<Partial<BrowserTab>[]>;
      discard(tabId: number): Promise<Partial<BrowserTab> | undefined>;
      remove(tabIds: number[]): Promise<void>;
    };
  };
}

/** The conversation's URL as a tab shows it. */
export function conversationUrl(conversationId: string): string {
  return `https://chatgpt.com/c/${conversationId}`;
}

/** Every tab of the browser that shows the conversation, discarded ones included. */
export async function tabsShowing(e2e: ChromiumE2E, conversationId: string): Promise<BrowserTab[]> {
  const sw = await e2e.serviceWorker();
  return sw.evaluate(
    async (pattern) => {
      const { tabs } = (globalThis as unknown as ChromeTabs).chrome;
      return (await tabs.query({ url: pattern })).map((t) => ({
        id: t.id ?? -1,
        url: t.url ?? "",
        active: t.active === true,
        discarded: t.discarded === true,
        autoDiscardable: t.autoDiscardable !== false,
        status: t.status ?? "",
      }));
    },
    `${conversationUrl(conversationId)}*`,
  );
}

/**
 * Discards the one tab showing the conversation through the extension's service worker, as Chrome's Memory Saver
 * does: the page and its content script are gone, and the tab lives on under a new id (`tabs.onReplaced`). Returns
 * both ids and whether the tab had been exempt from automatic discarding before.
 */
export async function discardTab(
  e2e: ChromiumE2E,
  conversationId: string,
): Promise<{ before: number; after: number; autoDiscardable: boolean }> {
  // A new chat's tab shows its /c/<uuid> a moment after the server accepted the first message.
  const [tab, ...more] = await waitFor(async () => {
    const tabs = await tabsShowing(e2e, conversationId);
    return tabs.length > 0 && tabs;
  }, "a tab on the conversation before the discard");
  expect(more, "one tab shows the conversation before the discard").toEqual([]);
  const sw = await e2e.serviceWorker();
  const after = await sw.evaluate(async (id) => {
    const { tabs } = (globalThis as unknown as ChromeTabs).chrome;
    return (await tabs.discard(id))?.id ?? -1;
  }, tab!.id);
  expect(after, "the discarded tab's new id").not.toBe(-1);
  return { before: tab!.id, after, autoDiscardable: tab!.autoDiscardable };
}

/** Whatever holds an MCP client to the host (the Chromium harness, the Firefox kit). */
interface HostClient {
  readonly mcp: Client;
}

/** The host's durable event of a worker (as events_list gives it). */
export interface HostEvent {
  seq: number;
  type: string;
  at: number;
  data: { execution?: { seq: number }; [k: string]: unknown };
}

/** Every event the host recorded for the worker, oldest first. */
export async function workerEvents(e2e: HostClient, workerId: string): Promise<HostEvent[]> {
  const out: HostEvent[] = [];
  for (let cursor = 0; ;) {
    const page = await tool<{ events: HostEvent[]; cursor: number }>(e2e.mcp, "events_list", {
      cursor,
      workerId,
      limit: 500,
    });
    out.push(...page.events);
    if (page.events.length === 0) return out;
    cursor = page.cursor;
  }
}

/**
 * Our turn is running: the attempt's submission is proven (submitted, or seen generating since) and the page shows a
 * turn generating. The page alone may show generating a moment before the proof; closing or discarding the tab then
 * would cut the submission itself.
 */
export function turnRunning(w: WorkerOut): boolean {
  const attempt = w.worker.attempt?.state ?? "";
  return ["submitted", "generating"].includes(attempt) && w.worker.conversation.state === "generating";
}

/**
 * Waits until the host recorded the worker's binding leaving "bound" at or after `since` (the tab closed, discarded
 * or showing another chat); the browser may reopen the conversation right after, so the current state may be bound.
 */
export function waitBindingLeft(
  e2e: HostClient,
  workerId: string,
  since: number,
  what: string,
): Promise<HostEvent> {
  return waitFor(
    async () =>
      (await workerEvents(e2e, workerId)).find(
        (e) => e.type === "binding.changed" && e.at >= since && e.data.binding !== "bound",
      ),
    what,
    30_000,
  );
}

/** The attempts that went out (each must be exactly one user message on the page). */
export function sentAttempts(w: WorkerOut): WorkerOut["attempts"] {
  return w.attempts.filter((a) => a.submittedAt !== null);
}

/** Waits until the conversation holds `n` stored user messages. */
export function waitStored(
  fake: FakeChatGPT,
  conversationId: string,
  n: number,
  what: string,
  timeoutMs = 45_000,
): Promise<true> {
  return waitFor(() => fake.stored(conversationId).length >= n || undefined, what, timeoutMs);
}

/**
 * Waits until the worker has completed and the last answer in its conversation has ended (at the fake's server: a
 * page may not have been showing it). What the host records for that last turn afterwards is the primary scenario's
 * to check.
 */
export async function waitDone(e2e: ChromiumE2E, workerId: string, timeoutMs = 45_000): Promise<WorkerOut> {
  return waitDoneIn(e2e, e2e.fake, workerId, timeoutMs);
}

/** `waitDone` for any browser's kit (`worker` and `waitWorker` read the host's record). */
export async function waitDoneIn(
  kit: {
    conversationOf(workerId: string): Promise<string>;
    waitWorker(workerId: string, what: string, ok: (w: WorkerOut) => boolean, t: number): Promise<WorkerOut>;
  },
  fake: FakeChatGPT,
  workerId: string,
  timeoutMs: number,
): Promise<WorkerOut> {
  const conversationId = await kit.conversationOf(workerId);
  const answered = () => fake.conversations.get(conversationId)?.live?.done !== false;
  return kit.waitWorker(
    workerId,
    "complete, and its last answer ended",
    (w) => w.worker.label === "Complete" && answered(),
    timeoutMs,
  );
}

/** A Playwright page on the conversation that has loaded since `since` (a reload, a reopened or restored tab). */
export function pageLoadedSince(fake: FakeChatGPT, conversationId: string, since: number): boolean {
  return fake.log.some(
    (e) =>
      e.source === "page" &&
      e.kind === "page-loaded" &&
      e.at >= since &&
      e.detail.path === `/c/${conversationId}`,
  );
}

/**
 * Resume latency as a person would see it: from the page's own end of each answer (action bar and "Response
 * complete" rendered) to the server's receipt of the next user message in that conversation.
 */
export function resumeLatencies(
  fake: FakeChatGPT,
  conversationId: string,
): { end: PageTurnEnd; nextAt: number; ms: number }[] {
  const prompts = fake.stored(conversationId);
  const out: { end: PageTurnEnd; nextAt: number; ms: number }[] = [];
  for (const end of fake.turnEnds(conversationId)) {
    const next = prompts.find((m) => m.at >= end.t);
    if (next) out.push({ end, nextAt: next.at, ms: next.at - end.t });
  }
  return out;
}

/** The text left in the conversation's composer (empty when no draft stays behind). */
export function composerDraft(page: Page): Promise<string> {
  return page.evaluate(
    () => document.querySelector("#thread-bottom-container .ProseMirror")?.textContent?.trim() ?? "",
  );
}

/** The settings page's "Reopen a worker's conversation when its tab is closed" switch, as a person sets it. */
export async function setReopenClosedTabs(e2e: ChromiumE2E, on: boolean): Promise<void> {
  const options = await openPage(e2e, OPTIONS_URL, "options");
  try {
    const toggle = options.getByTestId("pref-reopenClosedTabs");
    await toggle.waitFor({ timeout: 10_000 });
    if ((await toggle.getAttribute("aria-checked")) !== String(on)) await toggle.click();
    await expect.poll(() => toggle.getAttribute("aria-checked")).toBe(String(on));
  } finally {
    await options.close();
  }
}

/** Closes every chatgpt.com tab a scenario left (discarded ones too), so the next one starts with none. */
export async function closeChatTabs(e2e: ChromiumE2E): Promise<void> {
  const sw = await e2e.serviceWorker();
  await sw.evaluate(async () => {
    const { tabs } = (globalThis as unknown as ChromeTabs).chrome;
    const ids = (await tabs.query({ url: "https://chatgpt.com/*" })).map((t) => t.id ?? -1);
    await tabs.remove(ids.filter((id) => id !== -1));
  });
}
