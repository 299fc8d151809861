// How a worker's binding moves between tabs (docs/extension.md, "Bindings"): the bound tab leaves the conversation,
// a tab shows it again, the conversation is reopened, or a tab is reloaded for a turn still running. Part of the
// bindings module: the records go through binding-store.ts, each move in an outbox step.
import type { ExtensionApi, TabInfo } from "../lib/browser-api.ts";
import { CHATGPT_MATCH, conversationIdOf, showsConversation } from "../lib/chatgpt-url.ts";
import type { StateReport } from "../lib/content-protocol.ts";
import type { Logger } from "../lib/logger.ts";
import type { BindingStore } from "./binding-store.ts";
import type { ContentChannel } from "./content-channel.ts";
import type { BindingRecord, BindingState, ObservedRecord } from "./db.ts";
import { guard } from "./guard.ts";

export interface BindingMovesDeps {
  readonly api: ExtensionApi;
  readonly store: BindingStore;
  readonly log: Logger;
  readonly content: ContentChannel;
  readonly probeTimeoutMs: number;
  /** Runs `fn` after every earlier outbox step, so binding reports keep their order with the other reports. */
  readonly step: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Runs `fn` in the worker's command queue: no command opens or submits anything for the worker meanwhile. */
  readonly serial: (workerId: string, fn: () => Promise<void>) => Promise<void>;
  /** A submission into the worker's tab is under way (a reload now would cut it). */
  readonly submitting: (workerId: string) => boolean;
  /** Records and forwards a page's report as the worker's observation. */
  readonly observe: (workerId: string, report: StateReport) => Promise<void>;
  /** The worker's last observation (observations.ts). */
  readonly latestObservation: (workerId: string) => Promise<ObservedRecord | undefined>;
  /** The worker's tab went away: it no longer counts as generating here. */
  readonly tabGone: (workerId: string) => void;
  /** New tabs come to the front (the `focusNewTabs` preference); they open in the background otherwise. */
  readonly focusNewTabs: () => boolean;
  /** Reopening a worker's conversation when its tab is closed is on (the `reopenClosedTabs` preference). */
  readonly reopen: () => boolean;
}

export class BindingMoves {
  /** The observation (its seq) a running turn's tab was reloaded or reopened for: once each. */
  private readonly revived = new Map<string, number>();

  constructor(private readonly deps: BindingMovesDeps) {}

  /**
   * The worker's bound tab stopped showing its conversation (closed, navigated away): another tab showing it takes
   * over; else the worker is detached (closed with reopening off), and a turn still running is reopened at once.
   */
  async leave(workerId: string, tabId: number): Promise<void> {
    const next = await this.deps.step(async () => {
      const b = await this.deps.store.get(workerId);
      if (b?.state !== "bound" || b.tabId !== tabId) return undefined;
      if (b.conversationId === undefined)
        return this.deps.store.set(workerId, { ...b, state: "unavailable" }, { inStep: true });
      const other = await this.tabShowing(b.conversationId, tabId);
      if (other?.id !== undefined)
        return this.deps.store.set(workerId, { ...b, tabId: other.id, state: "bound" }, { inStep: true });
      return this.deps.store.set(workerId, { ...b, state: this.awayState() }, { inStep: true });
    });
    if (next === undefined) return;
    if (next.state === "bound") return this.observeTab(next);
    this.deps.tabGone(workerId);
    // Not awaited: it waits for the worker's queue, which may be running the command that called this.
    if (next.state === "detached") guard(this.deps.log, "reopening", this.reviveIfGenerating(workerId));
  }

  /**
   * A tab bound to no worker shows `url`: if that is the conversation of a worker whose tab went away (or whose
   * bound tab no longer shows it), this tab becomes the bound one. While the bound tab still shows the
   * conversation, a second tab showing it is left alone: one conversation never gets two senders.
   */
  async comeBack(tabId: number, url: string): Promise<BindingRecord | undefined> {
    const conversationId = conversationIdOf(url);
    if (conversationId === undefined) return undefined;
    const { store, api } = this.deps;
    const candidate = (await store.all()).find(
      (b) => b.conversationId === conversationId && b.state !== "unavailable",
    );
    if (candidate === undefined) return undefined;
    if (candidate.state === "bound") {
      if (candidate.tabId === tabId) return undefined;
      const tab = await api.tabs.get(candidate.tabId).catch(() => undefined);
      if (tab !== undefined && showsConversation(tab.url, conversationId)) return undefined;
    }
    return this.deps.step(async () => {
      const current = await store.get(candidate.workerId);
      if (current?.state !== candidate.state || current.tabId !== candidate.tabId) return undefined;
      if ((await this.deps.store.boundTo(tabId)) !== undefined) return undefined;
      this.deps.log.info(`tab ${tabId} shows the conversation of ${current.workerId} again: bound`);
      return this.deps.store.set(current.workerId, { ...current, tabId, state: "bound" }, { inStep: true });
    });
  }

  /** Binds `tabId` (showing the conversation) to a worker that has no tab now; false if it has one meanwhile. */
  bindIfAway(workerId: string, tabId: number): Promise<boolean> {
    return this.deps.step(async () => {
      const current = await this.deps.store.get(workerId);
      if (current === undefined || current.state === "unavailable") return false;
      if (current.state === "bound") return current.tabId === tabId;
      if ((await this.deps.store.boundTo(tabId)) !== undefined) return false;
      await this.deps.store.set(workerId, { ...current, tabId, state: "bound" }, { inStep: true });
      return true;
    });
  }

  /** Opens the conversation in a new tab (in the background unless `focusNewTabs`) and binds it. */
  async open(b: BindingRecord): Promise<number | undefined> {
    if (b.url === undefined) return undefined;
    const { api, log } = this.deps;
    const tab = await api.tabs.create({ url: b.url, active: this.deps.focusNewTabs() });
    const tabId = tab.id;
    if (tabId === undefined) return undefined;
    log.info(`opened the conversation of ${b.workerId} again in tab ${tabId}`);
    const bound = await this.deps.step(async () => {
      const current = await this.deps.store.get(b.workerId);
      if (current === undefined || current.state === "unavailable") return undefined;
      // Its content script, or a person's tab on the conversation, got there first.
      if (current.state === "bound") return current.tabId;
      await this.deps.store.set(b.workerId, { ...current, tabId, state: "bound" }, { inStep: true });
      return tabId;
    });
    if (bound !== tabId) await api.tabs.remove(tabId).catch(() => undefined);
    return bound;
  }

  /**
   * A turn was running when the worker's tab was discarded or went away: reload it, or reopen the conversation,
   * now, so the end of the turn is seen (ChatGPT resumes a running reply after a reload). Once per observation, so
   * a person who closes the reopened tab again before it reports is not fought.
   */
  async reviveIfGenerating(workerId: string): Promise<void> {
    const { store, api, log } = this.deps;
    const observed = await this.deps.latestObservation(workerId);
    if (observed?.state !== "generating" || this.revived.get(workerId) === observed.seq) return;
    if (this.deps.submitting(workerId)) return;
    this.revived.set(workerId, observed.seq);
    await this.deps.serial(workerId, async () => {
      const b = await store.get(workerId);
      if (b?.state === "bound") {
        const tab = await api.tabs.get(b.tabId).catch(() => undefined);
        if (tab?.discarded !== true) return;
        log.info(`tab ${b.tabId} of ${workerId} was discarded mid-turn: reloading it`);
        await api.tabs.reload(b.tabId);
      } else if (b?.state === "detached" && this.deps.reopen()) {
        log.info(`${workerId}'s tab went away mid-turn: reopening its conversation`);
        await this.open(b);
      }
    });
  }

  /** A newly bound tab's current state is the worker's observation (when the page shows the conversation). */
  async observeTab(b: BindingRecord): Promise<void> {
    const ping = await this.deps.content.ping(b.tabId, this.deps.probeTimeoutMs);
    if (!ping.ok || ping.value.state === undefined) return;
    const url = ping.value.state.url ?? ping.value.url;
    if (b.conversationId !== undefined && !showsConversation(url, b.conversationId)) return;
    await this.deps.observe(b.workerId, { ...ping.value.state, url });
  }

  /** A new chat's tab got its conversation id (URL `/` → `/c/<id>`); told once, whoever notices first. */
  learnConversation(binding: BindingRecord, url: string): Promise<void> {
    const conversationId = conversationIdOf(url);
    if (conversationId === undefined) return Promise.resolve();
    return this.deps.step(async () => {
      const current = await this.deps.store.get(binding.workerId);
      if (
        current?.state !== "bound" ||
        current.tabId !== binding.tabId ||
        current.conversationId !== undefined
      )
        return;
      await this.deps.store.set(binding.workerId, { ...current, url, conversationId }, { inStep: true });
    });
  }

  /** A tab bound to no worker that shows the conversation (a loaded one first), other than `except`. */
  async tabShowing(conversationId: string, except?: number): Promise<TabInfo | undefined> {
    const { api, store } = this.deps;
    const tabs = await api.tabs.query({ url: CHATGPT_MATCH }).catch((): TabInfo[] => []);
    const bound = new Set((await store.bound()).map((b) => b.tabId));
    const showing = tabs.filter(
      (t) =>
        t.id !== undefined && t.id !== except && !bound.has(t.id) && showsConversation(t.url, conversationId),
    );
    return showing.find((t) => t.discarded !== true) ?? showing[0];
  }

  /** Where a worker without a tab is: detached (reopened for the next command), or closed with reopening off. */
  awayState(): BindingState {
    return this.deps.reopen() ? "detached" : "closed";
  }
}
