// Keeps each worker's conversation open in this browser (docs/extension.md, "Bindings"). A binding belongs to the
// conversation, not to a tab: it follows the browser's tab events (closed, navigated, discarded, replaced), keeps the
// bound tab out of automatic discarding, reopens the conversation for a command, and rebinds a tab showing it again.
import type { ExtensionMessage } from "../../shared/native-messages.ts";
import type { ExtensionApi, TabInfo } from "../lib/browser-api.ts";
import { CHATGPT_MATCH, conversationIdOf, isChatGptUrl, showsConversation } from "../lib/chatgpt-url.ts";
import type { StateReport } from "../lib/content-protocol.ts";
import { errorText, type Logger } from "../lib/logger.ts";
import type { ContentChannel } from "./content-channel.ts";
import { PrefStore, type BindingRecord, type BindingState, type OrchestratorDb } from "./db.ts";
import type { Timers } from "./native-connection.ts";

/** The preference "reopen a worker's conversation when its tab is closed" (default on). */
export const REOPEN_PREF = "reopenClosedTabs";

export interface TabKeeperDeps {
  readonly api: ExtensionApi;
  readonly db: OrchestratorDb;
  readonly log: Logger;
  readonly timers: Timers;
  readonly content: ContentChannel;
  readonly probeTimeoutMs: number;
  /** Resolves once the executor has recovered; tab events wait for it. */
  readonly ready: () => Promise<void>;
  /** Runs `fn` after every earlier outbox step, so binding reports keep their order with the other reports. */
  readonly step: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Sends on the port `hello` went out on; false when there is none (the next `hello` carries the news). */
  readonly send: (message: ExtensionMessage) => boolean;
  /** Runs `fn` in the worker's command queue: no command opens or submits anything for the worker meanwhile. */
  readonly serial: (workerId: string, fn: () => Promise<void>) => Promise<void>;
  /** A submission into the worker's tab is under way (a reload now would cut it). */
  readonly submitting: (workerId: string) => boolean;
  /** Records and forwards a page's report as the worker's observation. */
  readonly observe: (workerId: string, report: StateReport) => Promise<void>;
  /** The worker's tab went away: it no longer counts as generating here. */
  readonly tabGone: (workerId: string) => void;
  /** New tabs come to the front (the `focusNewTabs` preference); they open in the background otherwise. */
  readonly focusNewTabs: () => boolean;
}

/** Where a command for an existing conversation goes, or why it cannot go anywhere (nothing was sent). */
export type CommandTab =
  | {
      readonly tabId: number;
      /** Just opened: wait for its content script. */
      readonly fresh: boolean;
      /** Unloaded by the browser: reload it before anything else. */
      readonly discarded: boolean;
      readonly expectUrl?: string;
    }
  | { readonly errorCode: string; readonly detail: string };

export type BindingDraft = Omit<BindingRecord, "reported" | "updatedAt" | "state"> & { state: BindingState };

const isBool = (v: unknown): v is boolean => typeof v === "boolean";

/** The host knows `record`: a lost binding is forgotten, the others are kept (their conversation may come back). */
export async function markTold(db: OrchestratorDb, record: BindingRecord): Promise<void> {
  if (record.state === "unavailable") await db.bindings.delete(record.workerId);
  else await db.bindings.put({ ...record, reported: true });
}

export class TabKeeper {
  private reopen = true;
  private autoDiscardWarned = false;
  /** The observation (its seq) a running turn's tab was reloaded or reopened for: once each. */
  private readonly revived = new Map<string, number>();
  private readonly prefs: PrefStore;

  constructor(private readonly deps: TabKeeperDeps) {
    this.prefs = new PrefStore(deps.db);
  }

  /** Registers the tab listeners; call in the background's first turn (MV3), with the executor's. */
  listen(): void {
    const { api } = this.deps;
    api.tabs.onRemoved.addListener((tabId, info) =>
      this.guard("tab removed", this.onRemoved(tabId, info?.isWindowClosing === true)),
    );
    api.tabs.onUpdated.addListener((tabId, change) => {
      if (change.url !== undefined) this.guard("tab updated", this.onUrl(tabId, change.url));
      if (change.discarded === true) this.guard("tab discarded", this.onDiscarded(tabId));
    });
    api.tabs.onReplaced?.addListener((added, removed) =>
      this.guard("tab replaced", this.onReplaced(added, removed)),
    );
  }

  async load(): Promise<void> {
    this.reopen = await this.prefs.get(REOPEN_PREF, true, isBool);
  }

  reopensClosedTabs(): boolean {
    return this.reopen;
  }

  /** The options page switched reopening: every worker without a tab is reported again as detached or closed. */
  async setReopenClosedTabs(on: boolean): Promise<void> {
    await this.prefs.set(REOPEN_PREF, on);
    this.reopen = on;
    await this.deps.step(async () => {
      for (const b of await this.deps.db.bindings.toArray()) {
        if (b.state !== "detached" && b.state !== "closed") continue;
        const state = this.awayState();
        if (b.state !== state) await this.setBinding(b.workerId, { ...b, state }, { inStep: true });
      }
    });
  }

  async bindingOfTab(tabId: number): Promise<BindingRecord | undefined> {
    const all = await this.deps.db.bindings.where("tabId").equals(tabId).toArray();
    return all.find((b) => b.state === "bound");
  }

  /**
   * Stores a binding change and tells the host (or leaves it for the next `hello`). The bound tab is kept out of
   * automatic discarding; a tab that stops being bound is given back to the browser.
   */
  setBinding(
    workerId: string,
    next: BindingDraft,
    how: { report?: boolean; inStep?: boolean } = {},
  ): Promise<BindingRecord> {
    const run = async () => {
      const { db } = this.deps;
      const previous = await db.bindings.get(workerId);
      const record: BindingRecord = { ...next, workerId, reported: false, updatedAt: this.deps.timers.now() };
      await db.bindings.put(record);
      await this.exemptionFollows(previous, record);
      if (how.report === false) return record;
      const sent = this.deps.send({
        kind: "binding",
        workerId,
        binding: record.state,
        ...(record.url !== undefined ? { url: record.url } : {}),
      });
      if (sent) await markTold(db, record);
      return record;
    };
    return how.inStep ? run() : this.deps.step(run);
  }

  // ── commands ──────────────────────────────────────────────────────────────────────────────────

  /** A `conversation.create` opened `tabId` for the worker: bound (the host hears of it with the result). */
  bindCreated(workerId: string, tabId: number): Promise<void> {
    return this.deps.step(async () => {
      await this.setBinding(workerId, { workerId, tabId, state: "bound" }, { report: false, inStep: true });
    });
  }

  /** A create that never reached submission: its tab is closed, the worker's previous binding comes back. */
  unbindCreated(workerId: string, tabId: number, previous: BindingRecord | undefined): Promise<void> {
    return this.deps.step(async () => {
      const { db } = this.deps;
      if ((await db.bindings.get(workerId))?.tabId !== tabId) return;
      if (previous) await db.bindings.put(previous);
      else await db.bindings.delete(workerId);
    });
  }

  /**
   * The tab a `send`/`steer` goes to: the bound tab while it shows the conversation; else a tab a person opened on
   * it; else (reopening on) the conversation opened in a new background tab. Runs in the worker's queue.
   */
  async commandTab(workerId: string, conversationUrl: string | undefined): Promise<CommandTab> {
    const { db, api } = this.deps;
    let b = await db.bindings.get(workerId);
    if (b === undefined || b.state === "unavailable")
      return {
        errorCode: "TAB_CLOSED",
        detail: "this browser holds no open tab for the worker's conversation",
      };
    const wanted = conversationIdOf(conversationUrl);
    if (wanted !== undefined && b.conversationId !== undefined && wanted !== b.conversationId)
      return {
        errorCode: "TAB_CLOSED",
        detail: `the worker's tab shows conversation ${b.conversationId}, the command is for ${wanted}`,
      };
    const expect = b.url !== undefined ? { expectUrl: b.url } : {};
    if (b.state === "bound") {
      const tab = await api.tabs.get(b.tabId).catch(() => undefined);
      if (
        tab !== undefined &&
        (b.conversationId === undefined || showsConversation(tab.url, b.conversationId))
      )
        return { tabId: b.tabId, fresh: false, discarded: tab.discarded === true, ...expect };
      // The tab closed or left the conversation while the background was not listening.
      await this.leave(workerId, b.tabId);
      b = await db.bindings.get(workerId);
      if (b?.state === "bound") {
        const other = await api.tabs.get(b.tabId).catch(() => undefined);
        if (other) return { tabId: b.tabId, fresh: false, discarded: other.discarded === true, ...expect };
      }
      if (b === undefined || b.state === "unavailable" || b.conversationId === undefined)
        return { errorCode: "TAB_CLOSED", detail: "the worker's tab was closed before its chat was saved" };
    }
    const conversationId = b.conversationId;
    if (conversationId !== undefined) {
      const shown = await this.tabShowing(conversationId);
      if (shown?.id !== undefined) {
        const rebound = await this.bindIfAway(workerId, shown.id);
        if (rebound) return { tabId: shown.id, fresh: false, discarded: shown.discarded === true, ...expect };
      }
    }
    if (!this.reopen)
      return {
        errorCode: "TAB_CLOSED",
        detail:
          "the worker's tab was closed and reopening closed tabs is turned off in the extension's settings",
      };
    const opened = await this.open(b);
    if (opened === undefined)
      return { errorCode: "TAB_CLOSED", detail: "the worker's conversation could not be opened again" };
    return { tabId: opened, fresh: true, discarded: false, ...expect };
  }

  // ── the views ─────────────────────────────────────────────────────────────────────────────────

  /**
   * "Keep this conversation going" bound `tabId` to `workerId` (a new worker, or the one the host says keeps it
   * going already). Whatever bound this tab or conversation before belongs to no worker of the host any more.
   */
  adopt(workerId: string, tabId: number, url: string, conversationId: string): Promise<void> {
    return this.deps.step(async () => {
      for (const other of await this.deps.db.bindings.toArray()) {
        if (other.workerId === workerId) continue;
        if ((other.state === "bound" && other.tabId === tabId) || other.conversationId === conversationId)
          await this.forget(other.workerId);
      }
      await this.setBinding(
        workerId,
        { workerId, tabId, state: "bound", url, conversationId },
        { inStep: true },
      );
    });
  }

  /** "Release": the worker's conversation is the person's again; its tab goes back to the browser's care. */
  release(workerId: string): Promise<void> {
    return this.deps.step(async () => {
      await this.forget(workerId);
      await this.deps.db.observed.delete(workerId);
    });
  }

  // ── pages ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * A page's hello or report: forwarded if its tab is bound and shows the worker's conversation, or if it shows the
   * conversation of a worker whose tab went away (it becomes the bound tab). Returns whether the tab is managed.
   */
  async fromTab(tabId: number, url: string, report: StateReport | undefined): Promise<boolean> {
    let binding = await this.bindingOfTab(tabId);
    if (binding !== undefined) {
      if (binding.conversationId !== undefined && !showsConversation(url, binding.conversationId))
        return false;
      if (binding.conversationId === undefined) await this.learnConversation(binding, url);
    } else {
      // A page going away is no tab coming back.
      if (report?.state === "closed") return false;
      binding = await this.comeBack(tabId, url);
      if (binding === undefined) return false;
    }
    if (report) await this.deps.observe(binding.workerId, { ...report, url: report.url ?? url });
    return true;
  }

  // ── recovery ──────────────────────────────────────────────────────────────────────────────────

  /**
   * After a (re)start, before `hello`: a bound tab still showing its conversation stays bound; else a tab showing
   * exactly that conversation (tab ids change with a browser restart) becomes the bound one; else the worker is
   * detached (closed with reopening off), or unavailable when its chat was never saved. Never a guess: an
   * unrelated ChatGPT tab is never taken. `hello` reports the outcome.
   */
  async verify(): Promise<void> {
    const { db, api } = this.deps;
    const bindings = await db.bindings.toArray();
    const taken = new Set<number>();
    const rest: BindingRecord[] = [];
    for (const b of bindings) {
      if (b.state === "unavailable") continue;
      if (b.state === "bound" && (await this.stillShows(b))) {
        taken.add(b.tabId);
        await this.exempt(b.tabId, true); // a restored tab is discardable again
      } else rest.push(b);
    }
    if (rest.length === 0) return;
    const tabs = await api.tabs.query({ url: CHATGPT_MATCH }).catch((): TabInfo[] => []);
    for (const b of rest) {
      const id = b.conversationId;
      const found =
        id === undefined
          ? undefined
          : tabs.find((t) => t.id !== undefined && !taken.has(t.id) && showsConversation(t.url, id));
      let next: BindingDraft;
      if (found?.id !== undefined) {
        taken.add(found.id);
        next = { ...b, tabId: found.id, state: "bound" };
      } else if (id !== undefined) next = { ...b, state: this.awayState() };
      else next = { ...b, state: "unavailable" };
      if (next.state !== b.state || next.tabId !== b.tabId)
        await this.setBinding(b.workerId, next, { report: false, inStep: true });
    }
  }

  /** After recovery: a worker whose turn was running when its tab went away gets its conversation reopened. */
  async reviveDetached(): Promise<void> {
    const detached = (await this.deps.db.bindings.toArray()).filter((b) => b.state === "detached");
    for (const b of detached) this.guard("reopening", this.reviveIfGenerating(b.workerId));
  }

  // ── tab events ────────────────────────────────────────────────────────────────────────────────

  private async onRemoved(tabId: number, windowClosing: boolean): Promise<void> {
    await this.deps.ready();
    this.deps.content.announced(tabId); // wake anyone waiting for it; the next ping fails
    const binding = await this.bindingOfTab(tabId);
    if (binding === undefined) return;
    this.deps.tabGone(binding.workerId);
    // Quitting the browser closes every window, and Chromium tells us (seen in Chromium 156). That is no person
    // closing the conversation: the binding stays, and the next start re-verifies it against the restored tabs
    // (verify). A command meanwhile (a window closed, the browser still running) finds the tab gone and treats
    // it as closed (commandTab).
    if (windowClosing) return;
    await this.leave(binding.workerId, tabId);
  }

  private async onUrl(tabId: number, url: string): Promise<void> {
    await this.deps.ready();
    const binding = await this.bindingOfTab(tabId);
    if (binding !== undefined) {
      if (binding.conversationId === undefined) {
        if (isChatGptUrl(url)) await this.learnConversation(binding, url);
        else await this.setBinding(binding.workerId, { ...binding, state: "unavailable" });
        return;
      }
      if (showsConversation(url, binding.conversationId)) return;
      // The tab left the worker's conversation (new chat, another conversation, another site).
      await this.leave(binding.workerId, tabId);
    }
    // The person came back to a conversation whose tab went away (in this tab or another).
    const back = await this.comeBack(tabId, url);
    if (back !== undefined) await this.observeTab(back);
  }

  /** Firefox unloads a tab in place (same id); Chromium tells this too for the replacement tab. */
  private async onDiscarded(tabId: number): Promise<void> {
    await this.deps.ready();
    const binding = await this.bindingOfTab(tabId);
    if (binding !== undefined) this.guard("reloading", this.reviveIfGenerating(binding.workerId));
  }

  /** Chromium discarded the bound tab: it lives on under a new id, without its content script. */
  private async onReplaced(added: number, removed: number): Promise<void> {
    await this.deps.ready();
    this.deps.content.announced(removed);
    const moved = await this.deps.step(async () => {
      const b = await this.bindingOfTab(removed);
      if (b === undefined) return undefined;
      return this.setBinding(b.workerId, { ...b, tabId: added }, { report: false, inStep: true });
    });
    if (moved === undefined) return;
    this.deps.log.info(`tab ${removed} of ${moved.workerId} was replaced by tab ${added}`);
    const tab = await this.deps.api.tabs.get(added).catch(() => undefined);
    if (
      tab === undefined ||
      (moved.conversationId !== undefined && !showsConversation(tab.url, moved.conversationId))
    )
      return this.leave(moved.workerId, added);
    if (tab.discarded === true) this.guard("reloading", this.reviveIfGenerating(moved.workerId));
  }

  // ── moving the binding ────────────────────────────────────────────────────────────────────────

  /**
   * The worker's bound tab stopped showing its conversation (closed, navigated away): another tab showing it takes
   * over; else the worker is detached (closed with reopening off), and a turn still running is reopened at once.
   */
  private async leave(workerId: string, tabId: number): Promise<void> {
    const next = await this.deps.step(async () => {
      const b = await this.deps.db.bindings.get(workerId);
      if (b?.state !== "bound" || b.tabId !== tabId) return undefined;
      if (b.conversationId === undefined)
        return this.setBinding(workerId, { ...b, state: "unavailable" }, { inStep: true });
      const other = await this.tabShowing(b.conversationId, tabId);
      if (other?.id !== undefined)
        return this.setBinding(workerId, { ...b, tabId: other.id, state: "bound" }, { inStep: true });
      return this.setBinding(workerId, { ...b, state: this.awayState() }, { inStep: true });
    });
    if (next === undefined) return;
    if (next.state === "bound") return this.observeTab(next);
    this.deps.tabGone(workerId);
    // Not awaited: it waits for the worker's queue, which may be running the command that called this.
    if (next.state === "detached") this.guard("reopening", this.reviveIfGenerating(workerId));
  }

  /**
   * A tab bound to no worker shows `url`: if that is the conversation of a worker whose tab went away (or whose
   * bound tab no longer shows it), this tab becomes the bound one. While the bound tab still shows the
   * conversation, a second tab showing it is left alone: one conversation never gets two senders.
   */
  private async comeBack(tabId: number, url: string): Promise<BindingRecord | undefined> {
    const conversationId = conversationIdOf(url);
    if (conversationId === undefined) return undefined;
    const { db, api } = this.deps;
    const candidate = (await db.bindings.toArray()).find(
      (b) => b.conversationId === conversationId && b.state !== "unavailable",
    );
    if (candidate === undefined) return undefined;
    if (candidate.state === "bound") {
      if (candidate.tabId === tabId) return undefined;
      const tab = await api.tabs.get(candidate.tabId).catch(() => undefined);
      if (tab !== undefined && showsConversation(tab.url, conversationId)) return undefined;
    }
    return this.deps.step(async () => {
      const current = await db.bindings.get(candidate.workerId);
      if (current?.state !== candidate.state || current.tabId !== candidate.tabId) return undefined;
      if ((await this.bindingOfTab(tabId)) !== undefined) return undefined;
      this.deps.log.info(`tab ${tabId} shows the conversation of ${current.workerId} again: bound`);
      return this.setBinding(current.workerId, { ...current, tabId, state: "bound" }, { inStep: true });
    });
  }

  /** Binds `tabId` (showing the conversation) to a worker that has no tab now; false if it has one meanwhile. */
  private bindIfAway(workerId: string, tabId: number): Promise<boolean> {
    return this.deps.step(async () => {
      const current = await this.deps.db.bindings.get(workerId);
      if (current === undefined || current.state === "unavailable") return false;
      if (current.state === "bound") return current.tabId === tabId;
      if ((await this.bindingOfTab(tabId)) !== undefined) return false;
      await this.setBinding(workerId, { ...current, tabId, state: "bound" }, { inStep: true });
      return true;
    });
  }

  /** Opens the conversation in a new tab (in the background unless `focusNewTabs`) and binds it. */
  private async open(b: BindingRecord): Promise<number | undefined> {
    if (b.url === undefined) return undefined;
    const { api, log } = this.deps;
    const tab = await api.tabs.create({ url: b.url, active: this.deps.focusNewTabs() });
    const tabId = tab.id;
    if (tabId === undefined) return undefined;
    log.info(`opened the conversation of ${b.workerId} again in tab ${tabId}`);
    const bound = await this.deps.step(async () => {
      const current = await this.deps.db.bindings.get(b.workerId);
      if (current === undefined || current.state === "unavailable") return undefined;
      // Its content script, or a person's tab on the conversation, got there first.
      if (current.state === "bound") return current.tabId;
      await this.setBinding(b.workerId, { ...current, tabId, state: "bound" }, { inStep: true });
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
  private async reviveIfGenerating(workerId: string): Promise<void> {
    const { db, api, log } = this.deps;
    const observed = await db.observed.get(workerId);
    if (observed?.state !== "generating" || this.revived.get(workerId) === observed.seq) return;
    if (this.deps.submitting(workerId)) return;
    this.revived.set(workerId, observed.seq);
    await this.deps.serial(workerId, async () => {
      const b = await db.bindings.get(workerId);
      if (b?.state === "bound") {
        const tab = await api.tabs.get(b.tabId).catch(() => undefined);
        if (tab?.discarded !== true) return;
        log.info(`tab ${b.tabId} of ${workerId} was discarded mid-turn: reloading it`);
        await api.tabs.reload(b.tabId);
      } else if (b?.state === "detached" && this.reopen) {
        log.info(`${workerId}'s tab went away mid-turn: reopening its conversation`);
        await this.open(b);
      }
    });
  }

  /** A newly bound tab's current state is the worker's observation (when the page shows the conversation). */
  private async observeTab(b: BindingRecord): Promise<void> {
    const ping = await this.deps.content.ping(b.tabId, this.deps.probeTimeoutMs);
    if (!ping.ok || ping.value.state === undefined) return;
    const url = ping.value.state.url ?? ping.value.url;
    if (b.conversationId !== undefined && !showsConversation(url, b.conversationId)) return;
    await this.deps.observe(b.workerId, { ...ping.value.state, url });
  }

  /** A new chat's tab got its conversation id (URL `/` → `/c/<id>`); told once, whoever notices first. */
  private learnConversation(binding: BindingRecord, url: string): Promise<void> {
    const conversationId = conversationIdOf(url);
    if (conversationId === undefined) return Promise.resolve();
    return this.deps.step(async () => {
      const current = await this.deps.db.bindings.get(binding.workerId);
      if (
        current?.state !== "bound" ||
        current.tabId !== binding.tabId ||
        current.conversationId !== undefined
      )
        return;
      await this.setBinding(binding.workerId, { ...current, url, conversationId }, { inStep: true });
    });
  }

  /** A tab bound to no worker that shows the conversation (a loaded one first), other than `except`. */
  private async tabShowing(conversationId: string, except?: number): Promise<TabInfo | undefined> {
    const { api, db } = this.deps;
    const tabs = await api.tabs.query({ url: CHATGPT_MATCH }).catch((): TabInfo[] => []);
    const bound = new Set(
      (await db.bindings.toArray()).filter((b) => b.state === "bound").map((b) => b.tabId),
    );
    const showing = tabs.filter(
      (t) =>
        t.id !== undefined && t.id !== except && !bound.has(t.id) && showsConversation(t.url, conversationId),
    );
    return showing.find((t) => t.discarded !== true) ?? showing[0];
  }

  private async stillShows(b: BindingRecord): Promise<boolean> {
    const tab = await this.deps.api.tabs.get(b.tabId).catch(() => undefined);
    if (tab === undefined) return false;
    return b.conversationId !== undefined
      ? showsConversation(tab.url, b.conversationId)
      : isChatGptUrl(tab.url);
  }

  /** Drops the worker's binding without telling the host, and gives its tab back to the browser's care. */
  private async forget(workerId: string): Promise<void> {
    const { db } = this.deps;
    const previous = await db.bindings.get(workerId);
    await db.bindings.delete(workerId);
    if (previous?.state === "bound") await this.exempt(previous.tabId, false);
  }

  // ── automatic discarding ──────────────────────────────────────────────────────────────────────

  private async exemptionFollows(previous: BindingRecord | undefined, next: BindingRecord): Promise<void> {
    const was = previous?.state === "bound" ? previous.tabId : undefined;
    const now = next.state === "bound" ? next.tabId : undefined;
    if (was !== undefined && was !== now) await this.exempt(was, false);
    if (now !== undefined && now !== was) await this.exempt(now, true);
  }

  /**
   * Keeps a managed tab out of the browser's automatic discarding (`keep`), or gives it back. A discarded tab loses
   * its content script, so nothing of the worker would be seen until it is reloaded.
   */
  private async exempt(tabId: number, keep: boolean): Promise<void> {
    const { api, log } = this.deps;
    try {
      await api.tabs.update(tabId, { autoDiscardable: !keep });
    } catch (e) {
      // A tab that is gone needs nothing. A browser without the property (Firefox for Android) is noted once.
      if (this.autoDiscardWarned || !(await this.exists(tabId))) return;
      this.autoDiscardWarned = true;
      log.info(`tabs cannot be kept from automatic discarding in this browser: ${errorText(e)}`);
    }
  }

  private async exists(tabId: number): Promise<boolean> {
    try {
      await this.deps.api.tabs.get(tabId);
      return true;
    } catch {
      return false;
    }
  }

  private awayState(): BindingState {
    return this.reopen ? "detached" : "closed";
  }

  private guard(what: string, work: Promise<unknown>): void {
    work.catch((e: unknown) => this.deps.log.warn(`${what}: ${errorText(e)}`));
  }
}
