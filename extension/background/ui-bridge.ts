// The views' way to the host (architecture §6): popup, dashboard and options pages and the in-page overlay connect
// a runtime port; their calls go out as `ui.request` on the one native port and the answers come back by request
// id; `ui.changed` and connection health are pushed to every open view. Senders are checked, messages validated.
import type { ExtensionMessage, HostMessage } from "../../shared/native-messages.ts";
import type { ApiEvent, MessageSender, TabInfo } from "../lib/browser-api.ts";
import { conversationIdOf, isChatGptUrl } from "../lib/chatgpt-url.ts";
import { errorText, type Logger } from "../lib/logger.ts";
import {
  adoptRequestSchema,
  backgroundToViewSchema,
  DEFAULT_LOCAL_PREFS,
  localPrefsSchema,
  OVERLAY_OPERATIONS,
  OVERLAY_PORT,
  overlayAdoptRequestSchema,
  PAGE_OPERATIONS,
  UI_PORT,
  viewMessageSchema,
  type BackgroundToView,
  type LocalPrefs,
  type UiStatus,
  type ViewMessage,
} from "../ui/ui-protocol.ts";
import type { BindingRecord } from "./db.ts";
import type { ConnectionHealth, Timers } from "./native-connection.ts";
import {
  TAB_SETTINGS_GET_OP,
  TAB_SETTINGS_SET_OP,
  tabSettingsSchema,
  type TabSettings,
} from "./tab-settings.ts";
import { checkContentSender } from "./sender.ts";

/** `runtime.Port` of a connection from a view. */
export interface ViewPort {
  readonly name: string;
  readonly sender?: MessageSender;
  postMessage(message: unknown): void;
  disconnect(): void;
  readonly onMessage: ApiEvent<(message: unknown) => void>;
  readonly onDisconnect: ApiEvent<(port: ViewPort) => void>;
}

/** The slice of the WebExtension API the bridge uses (besides what the executor uses). */
export interface UiBridgeApi {
  runtime: {
    readonly id: string;
    getURL(path: string): string;
    readonly onConnect: ApiEvent<(port: ViewPort) => void>;
  };
  tabs: {
    query(query: {
      active?: boolean;
      lastFocusedWindow?: boolean;
      url?: string | string[];
    }): Promise<TabInfo[]>;
    update(tabId: number, properties: { active: boolean }): Promise<TabInfo | undefined>;
    create(properties: { url: string; active?: boolean }): Promise<unknown>;
    get(tabId: number): Promise<TabInfo>;
    /** A tab's URL changed (ChatGPT's own pushState too): its overlay learns whether it can offer adoption. */
    readonly onUpdated: ApiEvent<(tabId: number, changeInfo: { url?: string }, tab: TabInfo) => void>;
  };
  windows?: { update(windowId: number, info: { focused: boolean }): Promise<unknown> };
}

/** What the bridge needs of the executor: its health, its native port and its view of managed tabs. */
export interface UiHostLink {
  health(): ConnectionHealth;
  hostVersion(): string | undefined;
  executorId(): string;
  /** Sends on the executor's native port; false when there is none. */
  send(message: ExtensionMessage): boolean;
  /** Connect now if no port is open. */
  retry(): void;
  bindings(): Promise<BindingRecord[]>;
  generating(): { generating: number; maxGenerating: number };
  setMaxGenerating(limit: number): Promise<void>;
  /** Binds a conversation tab to the worker the host created for it ("Keep this conversation going"). */
  adoptTab(workerId: string, tabId: number, url: string): Promise<void>;
  /** Forgets a released worker's tab. */
  releaseTab(workerId: string): Promise<void>;
  /** This browser's tab settings (the options page): whether a closed worker tab is reopened. */
  tabSettings(): Promise<TabSettings>;
  setTabSettings(settings: TabSettings): Promise<void>;
}

export interface UiPrefsStore {
  get(): Promise<LocalPrefs>;
  set(prefs: LocalPrefs): Promise<void>;
}

export interface UiBridgeOptions {
  readonly api: UiBridgeApi;
  readonly host: UiHostLink;
  readonly prefs: UiPrefsStore;
  readonly timers: Timers;
  readonly log: Logger;
  readonly browser: string;
  readonly extensionVersion: string;
  /** A host answer slower than this is reported to the view as TIMEOUT. */
  readonly requestTimeoutMs?: number;
  /** Durable state changed, or the connection did: the badge and notifications refresh. */
  readonly onRefresh?: () => void;
}

interface View {
  readonly port: ViewPort;
  readonly kind: "page" | "overlay";
  /** The overlay's tab. */
  readonly tabId?: number;
}

interface Pending {
  readonly resolve: (reply: {
    ok: boolean;
    result?: unknown;
    error?: { code: string; message: string };
  }) => void;
  readonly timer: unknown;
  readonly op: string;
  readonly params: Record<string, unknown>;
  /** The pages so far of an answer the host cut (`nextCursor`), merged. */
  merged?: unknown;
}

type Reply = Parameters<Pending["resolve"]>[0];

const PAGE_OPS: ReadonlySet<string> = new Set(PAGE_OPERATIONS);
/**
 * Handled here (they bind or forget a tab), not passed through. Extension pages may call both; the overlay may
 * adopt its own tab while the user has `offerAdopt` on, and never release.
 */
const ADOPT_OP = "conversation_adopt";
const RELEASE_OP = "conversation_release";
/** `worker_stop` refusals that mean the worker is over already: release still forgets its tab. */
const ALREADY_ENDED: ReadonlySet<string> = new Set(["WORKER_TERMINAL", "NOT_FOUND"]);
const OVERLAY_OPS: ReadonlySet<string> = new Set(OVERLAY_OPERATIONS);

export class UiBridge {
  private readonly views = new Set<View>();
  private readonly pending = new Map<string, Pending>();
  private nextRequest = 0;
  private prefs: LocalPrefs = DEFAULT_LOCAL_PREFS;
  private prefsLoaded: Promise<void> | undefined;
  /** The last failure state, shown through each retry's brief "connecting" so views do not flicker. */
  private lastProblem: ConnectionHealth | undefined;

  constructor(private readonly opts: UiBridgeOptions) {}

  /** Registers the connect listener; call synchronously in the background's first turn (MV3). */
  listen(): void {
    this.opts.api.runtime.onConnect.addListener((port) => this.onConnect(port));
    this.opts.api.tabs.onUpdated.addListener((tabId, change) => {
      // Only the adoption offer depends on the URL (a first message moves a new chat to /c/<id>).
      if (change.url !== undefined && this.prefs.offerAdopt)
        this.pushStatus((v) => v.kind === "overlay" && v.tabId === tabId);
    });
  }

  /** Local preferences (overlay, notifications), loaded once. */
  async localPrefs(): Promise<LocalPrefs> {
    this.prefsLoaded ??= this.opts.prefs.get().then(
      (p) => {
        this.prefs = p;
      },
      (e: unknown) => this.opts.log.warn(`ui prefs: ${errorText(e)}`),
    );
    await this.prefsLoaded;
    return this.prefs;
  }

  // ── host side ─────────────────────────────────────────────────────────────────────────────────

  /** `ui.response` and `ui.changed` from the host. */
  onHostMessage(message: Extract<HostMessage, { kind: "ui.response" | "ui.changed" }>): void {
    if (message.kind === "ui.changed") {
      this.broadcast({ type: "changed", eventSeq: message.eventSeq });
      // A binding may have appeared or gone: overlays learn whether their tab is managed.
      this.pushStatus((v) => v.kind === "overlay");
      this.opts.onRefresh?.();
      return;
    }
    const pending = this.pending.get(message.requestId);
    if (!pending) return; // answered after a timeout or for a view that closed
    const result =
      message.ok && pending.merged !== undefined ? mergePage(pending.merged, message.result) : message.result;
    let error = message.error;
    if (message.ok && message.nextCursor !== undefined) {
      // A cut answer: ask for the next page under the same request id (and the same timeout); views see it whole.
      pending.merged = result;
      const { op, params } = pending;
      const next: ExtensionMessage = {
        kind: "ui.request",
        requestId: message.requestId,
        op,
        params,
        cursor: message.nextCursor,
      };
      if (this.opts.host.send(next)) return;
      error = { code: "HOST_UNAVAILABLE", message: "the native port is not open" };
    }
    this.pending.delete(message.requestId);
    this.opts.timers.clearTimeout(pending.timer);
    pending.resolve({
      ok: error === undefined && message.ok,
      ...(error === undefined && message.ok && result !== undefined ? { result } : {}),
      ...(error ? { error } : {}),
    });
  }

  /** Connection health changed: views show it; requests on a lost port will never be answered. */
  onHealth(health: ConnectionHealth): void {
    if (health.status !== "connected") this.failPending("HOST_UNAVAILABLE", describe(this.shownHealth()));
    this.pushStatus(() => true);
    this.opts.onRefresh?.();
  }

  /** Calls an operation on the host (the views' calls and the badge's own reads). */
  request(op: string, params: Record<string, unknown> = {}): Promise<Reply> {
    const health = this.shownHealth();
    if (health.status !== "connected")
      return Promise.resolve({ ok: false, error: { code: "HOST_UNAVAILABLE", message: describe(health) } });
    const requestId = `ui-${++this.nextRequest}`;
    return new Promise<Reply>((resolve) => {
      const timer = this.opts.timers.setTimeout(() => {
        if (!this.pending.delete(requestId)) return;
        resolve({ ok: false, error: { code: "TIMEOUT", message: `the host did not answer ${op} in time` } });
      }, this.opts.requestTimeoutMs ?? 30_000);
      this.pending.set(requestId, { resolve, timer, op, params });
      const sent = this.opts.host.send({ kind: "ui.request", requestId, op, params });
      if (!sent) {
        this.pending.delete(requestId);
        this.opts.timers.clearTimeout(timer);
        resolve({ ok: false, error: { code: "HOST_UNAVAILABLE", message: "the native port is not open" } });
      }
    });
  }

  /** The connection as views show it: a retry after a failure stays "Reconnecting…"/"Host not installed". */
  shownHealth(): ConnectionHealth {
    const health = this.opts.host.health();
    if (health.status === "reconnecting" || health.status === "host-not-installed") this.lastProblem = health;
    if (health.status === "connected" || health.status === "incompatible") this.lastProblem = undefined;
    if (health.status === "connecting" && health.failures > 0 && this.lastProblem) return this.lastProblem;
    return health;
  }

  // ── views ─────────────────────────────────────────────────────────────────────────────────────

  private onConnect(port: ViewPort): void {
    const view = this.admit(port);
    if (!view) {
      port.disconnect();
      return;
    }
    this.views.add(view);
    port.onMessage.addListener((raw) => this.onViewMessage(view, raw));
    port.onDisconnect.addListener(() => this.views.delete(view));
    void this.sendStatus(view);
  }

  /** Pages of this extension on UI_PORT; content scripts of chatgpt.com top frames on OVERLAY_PORT. */
  private admit(port: ViewPort): View | undefined {
    const { api, log } = this.opts;
    const sender = port.sender ?? {};
    if (port.name === UI_PORT) {
      const base = api.runtime.getURL("");
      if (sender.id === api.runtime.id && sender.url?.startsWith(base) === true)
        return { port, kind: "page" };
      log.warn(`refused a ui port from ${String(sender.url)}`);
      return undefined;
    }
    if (port.name === OVERLAY_PORT) {
      const check = checkContentSender(sender, api.runtime.id);
      if (check.ok) return { port, kind: "overlay", tabId: check.tabId };
      log.warn(`refused an overlay port: ${check.reason}`);
      return undefined;
    }
    return undefined; // another extension part's port, not ours to judge
  }

  private onViewMessage(view: View, raw: unknown): void {
    const parsed = viewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.opts.log.warn(`dropped an invalid view message: ${parsed.error.issues[0]?.message ?? "invalid"}`);
      return;
    }
    const m = parsed.data;
    const work = this.handle(view, m);
    work.catch((e: unknown) => this.opts.log.warn(`view ${m.type}: ${errorText(e)}`));
  }

  private async handle(view: View, m: ViewMessage): Promise<void> {
    switch (m.type) {
      case "call": {
        const adopting = m.op === ADOPT_OP;
        if (adopting || (view.kind === "page" && m.op === RELEASE_OP)) {
          const reply = adopting
            ? await this.adopt(view, m.params ?? {})
            : await this.release(m.params ?? {});
          this.post(view, { type: "result", id: m.id, ...reply });
          return;
        }
        if (view.kind === "page" && (m.op === TAB_SETTINGS_GET_OP || m.op === TAB_SETTINGS_SET_OP)) {
          this.post(view, { type: "result", id: m.id, ...(await this.tabSettings(m.op, m.params ?? {})) });
          return;
        }
        const refusal = await this.refusal(view, m.op, m.params ?? {});
        const reply = refusal
          ? { ok: false, error: { code: "FORBIDDEN", message: refusal } }
          : await this.request(m.op, m.params ?? {});
        this.post(view, { type: "result", id: m.id, ...reply });
        return;
      }
      case "retry":
        this.opts.host.retry();
        return;
      case "prefs.set": {
        if (view.kind !== "page") return;
        const next = localPrefsSchema.parse({ ...(await this.localPrefs()), ...m.prefs });
        await this.opts.prefs.set(next);
        this.prefs = next;
        this.pushStatus(() => true);
        return;
      }
      case "concurrency.set":
        if (view.kind !== "page") return;
        await this.opts.host.setMaxGenerating(m.maxGenerating);
        this.pushStatus(() => true);
        return;
      case "open-conversation":
        return this.openConversation(view, m.workerId, m.url);
    }
  }

  /**
   * "Keep this conversation going": the tab must show a chatgpt.com conversation no worker holds. For the popup it
   * is the active tab; for the overlay it is the tab its port came from (the browser's sender, never a tab id or
   * URL the page could name). The host creates the worker (`conversation_adopt`, the tab's URL filled in here,
   * never taken from the view); then the tab is bound to it.
   */
  private async adopt(view: View, params: Record<string, unknown>): Promise<Reply> {
    const refuse = (code: string, message: string): Reply => ({ ok: false, error: { code, message } });
    const request = (view.kind === "overlay" ? overlayAdoptRequestSchema : adoptRequestSchema).safeParse(
      params,
    );
    if (!request.success)
      return refuse("INVALID_INPUT", `conversation_adopt: ${request.error.issues[0]?.message ?? "invalid"}`);
    if (view.kind === "overlay" && !(await this.localPrefs()).offerAdopt)
      return refuse("FORBIDDEN", "Keeping a conversation going from the page is turned off in the settings.");
    const tab = view.kind === "overlay" ? await this.tabOf(view.tabId) : await this.activeTabInfo();
    const url = tab?.url;
    if (tab?.id === undefined || conversationIdOf(url) === undefined || url === undefined)
      return refuse(
        "NOT_A_CONVERSATION",
        view.kind === "overlay"
          ? "This page is not a saved ChatGPT conversation yet (chatgpt.com/c/…): send a first message."
          : "Open a ChatGPT conversation (chatgpt.com/c/…) in this window first.",
      );
    if ((await this.workerOfTab(tab.id)) !== null)
      return refuse("CONFLICT", "This conversation is already kept going by a worker.");
    const objective = request.data.objective?.trim() || undefined;
    const runId = "runId" in request.data ? request.data.runId : undefined;
    const reply = await this.request(ADOPT_OP, {
      conversationUrl: url,
      ...(objective !== undefined ? { objective } : {}),
      ...(runId !== undefined ? { runId } : {}),
    });
    const workerId = (reply.result as { worker?: { id?: unknown } } | undefined)?.worker?.id;
    if (!reply.ok || typeof workerId !== "string") return reply;
    await this.opts.host.adoptTab(workerId, tab.id, url);
    this.pushStatus(() => true);
    return reply;
  }

  /**
   * "Release": stops the adopted worker (history kept) and forgets its tab; the conversation is the user's again.
   * A worker that has ended already is released too (its tab forgotten), so the conversation can be kept going again.
   */
  private async release(params: Record<string, unknown>): Promise<Reply> {
    const workerId = params.workerId;
    if (typeof workerId !== "string" || workerId === "")
      return { ok: false, error: { code: "INVALID_INPUT", message: "release needs a workerId" } };
    const reply = await this.request("worker_stop", { workerId, reason: "released" });
    const ended = !reply.ok && reply.error !== undefined && ALREADY_ENDED.has(reply.error.code);
    if (!reply.ok && !ended) return reply;
    await this.opts.host.releaseTab(workerId);
    this.pushStatus(() => true);
    return ended ? { ok: true, result: { workerId, alreadyEnded: true } } : reply;
  }

  /** The options page's tab settings (extension pages only): kept by the executor, never sent to the host. */
  private async tabSettings(op: string, params: Record<string, unknown>): Promise<Reply> {
    const { host } = this.opts;
    if (op === TAB_SETTINGS_SET_OP) {
      const settings = tabSettingsSchema.safeParse(params);
      if (!settings.success)
        return {
          ok: false,
          error: {
            code: "INVALID_INPUT",
            message: `${op}: ${settings.error.issues[0]?.message ?? "invalid"}`,
          },
        };
      await host.setTabSettings(settings.data);
    }
    return { ok: true, result: await host.tabSettings() };
  }

  /** Why a view may not make this call, or undefined when it may. */
  private async refusal(
    view: View,
    op: string,
    params: Record<string, unknown>,
  ): Promise<string | undefined> {
    if (view.kind === "page") return PAGE_OPS.has(op) ? undefined : `${op} is not a UI operation`;
    if (!OVERLAY_OPS.has(op)) return `the overlay may not call ${op}`;
    const own = await this.workerOfTab(view.tabId);
    if (own === null || params.workerId !== own) return "the overlay controls only its own tab's worker";
    return undefined;
  }

  private async openConversation(view: View, workerId: string, url: string | undefined): Promise<void> {
    const { api } = this.opts;
    if (view.kind === "overlay" && (await this.workerOfTab(view.tabId)) !== workerId) return;
    const binding = (await this.opts.host.bindings()).find((b) => b.workerId === workerId);
    if (binding?.state === "bound") {
      const tab = await api.tabs.update(binding.tabId, { active: true });
      // The worker's tab may be in another window: bring that window forward too.
      if (api.windows && tab?.windowId !== undefined)
        await api.windows.update(tab.windowId, { focused: true });
      return;
    }
    // "Reopen": the tab opened on the conversation becomes the worker's tab when its page says hello.
    const target = url ?? binding?.url;
    if (target !== undefined && isChatGptUrl(target)) await api.tabs.create({ url: target, active: true });
  }

  private async workerOfTab(tabId: number | undefined): Promise<string | null> {
    if (tabId === undefined) return null;
    const bindings = await this.opts.host.bindings();
    return bindings.find((b) => b.tabId === tabId && b.state === "bound")?.workerId ?? null;
  }

  private async activeTabInfo(): Promise<TabInfo | undefined> {
    const [tab] = await this.opts.api.tabs.query({ active: true, lastFocusedWindow: true });
    return tab;
  }

  /** The overlay's own tab as the browser sees it now (its URL follows ChatGPT's pushState), or undefined if gone. */
  private async tabOf(tabId: number | undefined): Promise<TabInfo | undefined> {
    if (tabId === undefined) return undefined;
    try {
      return await this.opts.api.tabs.get(tabId);
    } catch (e) {
      this.opts.log.info(`tab ${tabId}: ${errorText(e)}`);
      return undefined;
    }
  }

  /** The popup's "current conversation": the active tab of the last focused window, and whether it can be adopted. */
  private async activeTab(): Promise<{ workerId: string | null; adoptable: boolean }> {
    try {
      const tab = await this.activeTabInfo();
      const workerId = await this.workerOfTab(tab?.id);
      return { workerId, adoptable: workerId === null && conversationIdOf(tab?.url) !== undefined };
    } catch (e) {
      this.opts.log.warn(`active tab: ${errorText(e)}`);
      return { workerId: null, adoptable: false };
    }
  }

  /** The overlay's tab: its worker, and whether to offer adoption (only asked for while the user enabled that). */
  private async ownTab(
    tabId: number | undefined,
    prefs: LocalPrefs,
  ): Promise<{ workerId: string | null; adoptable: boolean }> {
    const workerId = await this.workerOfTab(tabId);
    if (workerId !== null || !prefs.offerAdopt) return { workerId, adoptable: false };
    return { workerId, adoptable: conversationIdOf((await this.tabOf(tabId))?.url) !== undefined };
  }

  private async status(view: View): Promise<UiStatus> {
    const { host } = this.opts;
    const bindings = await host.bindings();
    const prefs = await this.localPrefs();
    const active = view.kind === "overlay" ? await this.ownTab(view.tabId, prefs) : await this.activeTab();
    const tabWorkerId = active.workerId;
    // Health is read after the awaits, so a status posted later never carries an older connection state.
    const health = this.shownHealth();
    const hostVersion = host.hostVersion();
    const problem = health.status !== "connected";
    return {
      connection: health.status,
      ...(problem && health.error !== undefined ? { error: health.error } : {}),
      ...(problem && health.nextRetryAt !== undefined ? { nextRetryAt: health.nextRetryAt } : {}),
      ...(hostVersion !== undefined ? { hostVersion } : {}),
      executorId: host.executorId(),
      browser: this.opts.browser,
      extensionVersion: this.opts.extensionVersion,
      prefs,
      ...host.generating(),
      tabWorkerId,
      tabAdoptable: active.adoptable,
      bindings: bindings.map((b) => ({
        workerId: b.workerId,
        state: b.state,
        ...(b.url !== undefined ? { url: b.url } : {}),
      })),
    };
  }

  private async sendStatus(view: View): Promise<void> {
    try {
      this.post(view, { type: "status", status: await this.status(view) });
    } catch (e) {
      this.opts.log.warn(`ui status: ${errorText(e)}`);
    }
  }

  private pushStatus(which: (v: View) => boolean): void {
    for (const view of this.views) if (which(view)) void this.sendStatus(view);
  }

  private broadcast(message: BackgroundToView): void {
    for (const view of this.views) this.post(view, message);
  }

  private post(view: View, message: BackgroundToView): void {
    if (!this.views.has(view)) return;
    const checked = backgroundToViewSchema.safeParse(message);
    if (!checked.success) {
      this.opts.log.warn(`not sending an invalid ${message.type} to a view`);
      return;
    }
    try {
      view.port.postMessage(checked.data);
    } catch (e) {
      // The view closed between our check and the post: forget it.
      this.views.delete(view);
      this.opts.log.info(`view port closed: ${errorText(e)}`);
    }
  }

  private failPending(code: string, message: string): void {
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      this.opts.timers.clearTimeout(pending.timer);
      pending.resolve({ ok: false, error: { code, message } });
    }
  }
}

/** Adds a page of a cut answer to the pages before it: the lists grow, the other fields are the same on each page. */
function mergePage(merged: unknown, page: unknown): unknown {
  if (typeof merged !== "object" || merged === null || typeof page !== "object" || page === null)
    return merged;
  const out: Record<string, unknown> = { ...(merged as Record<string, unknown>) };
  for (const [key, value] of Object.entries(page as Record<string, unknown>)) {
    const before = out[key];
    if (Array.isArray(before) && Array.isArray(value))
      out[key] = (before as unknown[]).concat(value as unknown[]);
  }
  return out;
}

function describe(health: ConnectionHealth): string {
  switch (health.status) {
    case "connected":
      return "connected";
    case "connecting":
      return "connecting to the orchestrator host";
    case "reconnecting":
      return `reconnecting to the orchestrator host${health.error ? ` (${health.error})` : ""}`;
    case "host-not-installed":
      return "the orchestrator host is not installed: run `npx orchestrator install`";
    case "incompatible":
      return health.error ?? "the host speaks another protocol version";
  }
}
