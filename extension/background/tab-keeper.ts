// Keeps each worker's conversation open in this browser (docs/extension.md, "Bindings"). A binding belongs to the
// conversation, not to a tab: it follows the browser's tab events (tab-events.ts), keeps the bound tab out of
// automatic discarding, reopens the conversation for a command, and rebinds a tab showing it again (binding-moves.ts).
import type { ExtensionApi, TabInfo } from "../lib/browser-api.ts";
import { CHATGPT_MATCH, conversationIdOf, isChatGptUrl, showsConversation } from "../lib/chatgpt-url.ts";
import type { StateReport } from "../lib/content-protocol.ts";
import type { Logger } from "../lib/logger.ts";
import { BindingMoves } from "./binding-moves.ts";
import type { BindingDraft, BindingStore } from "./binding-store.ts";
import type { ContentChannel } from "./content-channel.ts";
import type { BindingRecord, ObservedRecord, PrefStore } from "./db.ts";
import type { DiscardExemption } from "./discard-exemption.ts";
import { guard } from "./guard.ts";
import { TabEvents } from "./tab-events.ts";

/** The preference "reopen a worker's conversation when its tab is closed" (default on). */
export const REOPEN_PREF = "reopenClosedTabs";

export interface TabKeeperDeps {
  readonly api: ExtensionApi;
  /** The binding records (the `bindings` table). */
  readonly store: BindingStore;
  readonly exemption: DiscardExemption;
  readonly prefs: PrefStore;
  readonly log: Logger;
  readonly content: ContentChannel;
  readonly probeTimeoutMs: number;
  /** Resolves once the executor has recovered; tab events wait for it. */
  readonly ready: () => Promise<void>;
  /** Runs `fn` after every earlier outbox step, so binding reports keep their order with the other reports. */
  readonly step: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Runs `fn` in the worker's command queue: no command opens or submits anything for the worker meanwhile. */
  readonly serial: (workerId: string, fn: () => Promise<void>) => Promise<void>;
  /** A submission into the worker's tab is under way (a reload now would cut it). */
  readonly submitting: (workerId: string) => boolean;
  /** Records and forwards a page's report as the worker's observation. */
  readonly observe: (workerId: string, report: StateReport) => Promise<void>;
  /** The worker's last observation, and forgetting it (observations.ts owns them). */
  readonly latestObservation: (workerId: string) => Promise<ObservedRecord | undefined>;
  readonly forgetObservation: (workerId: string) => Promise<void>;
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

const isBool = (v: unknown): v is boolean => typeof v === "boolean";

export class TabKeeper {
  private reopen = true;
  private readonly moves: BindingMoves;
  private readonly events: TabEvents;

  constructor(private readonly deps: TabKeeperDeps) {
    this.moves = new BindingMoves({ ...deps, reopen: () => this.reopen });
    this.events = new TabEvents({ ...deps, moves: this.moves });
  }

  /** Registers the tab listeners; call in the background's first turn (MV3), with the executor's. */
  listen(): void {
    this.events.listen();
  }

  async load(): Promise<void> {
    this.reopen = await this.deps.prefs.get(REOPEN_PREF, true, isBool);
  }

  reopensClosedTabs(): boolean {
    return this.reopen;
  }

  /** The options page switched reopening: every worker without a tab is reported again as detached or closed. */
  async setReopenClosedTabs(on: boolean): Promise<void> {
    await this.deps.prefs.set(REOPEN_PREF, on);
    this.reopen = on;
    await this.deps.step(async () => {
      for (const b of await this.deps.store.all()) {
        if (b.state !== "detached" && b.state !== "closed") continue;
        const state = this.moves.awayState();
        if (b.state !== state) await this.deps.store.set(b.workerId, { ...b, state }, { inStep: true });
      }
    });
  }

  // ── commands ──────────────────────────────────────────────────────────────────────────────────

  /** A `conversation.create` opened `tabId` for the worker: bound (the host hears of it with the result). */
  bindCreated(workerId: string, tabId: number): Promise<void> {
    return this.deps.step(async () => {
      await this.deps.store.set(
        workerId,
        { workerId, tabId, state: "bound" },
        { report: false, inStep: true },
      );
    });
  }

  /** A create that never reached submission: its tab is closed, the worker's previous binding comes back. */
  unbindCreated(workerId: string, tabId: number, previous: BindingRecord | undefined): Promise<void> {
    return this.deps.step(() => this.deps.store.restore(workerId, tabId, previous));
  }

  /**
   * The tab a `send`/`steer` goes to: the bound tab while it shows the conversation; else a tab a person opened on
   * it; else (reopening on) the conversation opened in a new background tab. Runs in the worker's queue.
   */
  async commandTab(workerId: string, conversationUrl: string | undefined): Promise<CommandTab> {
    const { store, api } = this.deps;
    let b = await store.get(workerId);
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
      await this.moves.leave(workerId, b.tabId);
      b = await store.get(workerId);
      if (b?.state === "bound") {
        const other = await api.tabs.get(b.tabId).catch(() => undefined);
        if (other) return { tabId: b.tabId, fresh: false, discarded: other.discarded === true, ...expect };
      }
      if (b === undefined || b.state === "unavailable" || b.conversationId === undefined)
        return { errorCode: "TAB_CLOSED", detail: "the worker's tab was closed before its chat was saved" };
    }
    const conversationId = b.conversationId;
    if (conversationId !== undefined) {
      const shown = await this.moves.tabShowing(conversationId);
      if (shown?.id !== undefined) {
        const rebound = await this.moves.bindIfAway(workerId, shown.id);
        if (rebound) return { tabId: shown.id, fresh: false, discarded: shown.discarded === true, ...expect };
      }
    }
    if (!this.reopen)
      return {
        errorCode: "TAB_CLOSED",
        detail:
          "the worker's tab was closed and reopening closed tabs is turned off in the extension's settings",
      };
    const opened = await this.moves.open(b);
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
      for (const other of await this.deps.store.all()) {
        if (other.workerId === workerId) continue;
        if ((other.state === "bound" && other.tabId === tabId) || other.conversationId === conversationId)
          await this.deps.store.forget(other.workerId);
      }
      await this.deps.store.set(
        workerId,
        { workerId, tabId, state: "bound", url, conversationId },
        { inStep: true },
      );
    });
  }

  /** "Release": the worker's conversation is the person's again; its tab goes back to the browser's care. */
  release(workerId: string): Promise<void> {
    return this.deps.step(async () => {
      await this.deps.store.forget(workerId);
      await this.deps.forgetObservation(workerId);
    });
  }

  // ── pages ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * A page's hello or report: forwarded if its tab is bound and shows the worker's conversation, or if it shows the
   * conversation of a worker whose tab went away (it becomes the bound tab). Returns whether the tab is managed.
   */
  async fromTab(tabId: number, url: string, report: StateReport | undefined): Promise<boolean> {
    let binding = await this.deps.store.boundTo(tabId);
    if (binding !== undefined) {
      if (binding.conversationId !== undefined && !showsConversation(url, binding.conversationId))
        return false;
      if (binding.conversationId === undefined) await this.moves.learnConversation(binding, url);
    } else {
      // A page going away is no tab coming back.
      if (report?.state === "closed") return false;
      binding = await this.moves.comeBack(tabId, url);
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
    const { store, api, exemption } = this.deps;
    const bindings = await store.all();
    const taken = new Set<number>();
    const rest: BindingRecord[] = [];
    for (const b of bindings) {
      if (b.state === "unavailable") continue;
      if (b.state === "bound" && (await this.stillShows(b))) {
        taken.add(b.tabId);
        await exemption.exempt(b.tabId, true); // a restored tab is discardable again
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
      } else if (id !== undefined) next = { ...b, state: this.moves.awayState() };
      else next = { ...b, state: "unavailable" };
      if (next.state !== b.state || next.tabId !== b.tabId)
        await store.set(b.workerId, next, { report: false, inStep: true });
    }
  }

  /** After recovery: a worker whose turn was running when its tab went away gets its conversation reopened. */
  async reviveDetached(): Promise<void> {
    const detached = (await this.deps.store.all()).filter((b) => b.state === "detached");
    for (const b of detached) guard(this.deps.log, "reopening", this.moves.reviveIfGenerating(b.workerId));
  }

  private async stillShows(b: BindingRecord): Promise<boolean> {
    const tab = await this.deps.api.tabs.get(b.tabId).catch(() => undefined);
    if (tab === undefined) return false;
    return b.conversationId !== undefined
      ? showsConversation(tab.url, b.conversationId)
      : isChatGptUrl(tab.url);
  }
}
