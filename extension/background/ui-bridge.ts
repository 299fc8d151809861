// The views' way to the host (docs/ui.md): popup, dashboard and options pages and the in-page overlay connect a
// runtime port; their calls go out as `ui.request` on the one native port and the answers come back by request id
// (ui-host-requests.ts); `ui.changed` and connection health are pushed to every open view. Senders are checked,
// messages validated; the calls that bind or forget a tab are handled here (ui-calls.ts).
import type { HostMessage } from "../../shared/native-messages.ts";
import type { Logger } from "../lib/logger.ts";
import { errorText } from "../lib/logger.ts";
import {
  backgroundToViewSchema,
  DEFAULT_LOCAL_PREFS,
  localPrefsSchema,
  OVERLAY_PORT,
  UI_PORT,
  viewMessageSchema,
  type BackgroundToView,
  type LocalPrefs,
  type UiStatus,
  type ViewMessage,
} from "../ui/ui-protocol.ts";
import type { ConnectionHealth, Timers } from "./native-connection.ts";
import { checkContentSender } from "./sender.ts";
import type { Reply, UiBridgeApi, UiHostLink, UiPrefsStore, View, ViewPort } from "./ui-bridge-types.ts";
import { UiCalls } from "./ui-calls.ts";
import { HostRequests } from "./ui-host-requests.ts";
import { UiTabs } from "./ui-tabs.ts";

export type { UiBridgeApi, UiHostLink, UiPrefsStore, ViewPort } from "./ui-bridge-types.ts";

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

export class UiBridge {
  private readonly views = new Set<View>();
  private prefs: LocalPrefs = DEFAULT_LOCAL_PREFS;
  private prefsLoaded: Promise<void> | undefined;
  private readonly requests: HostRequests;
  private readonly tabs: UiTabs;
  private readonly calls: UiCalls;

  constructor(private readonly opts: UiBridgeOptions) {
    const { host, api, log } = opts;
    this.requests = new HostRequests({
      host,
      timers: opts.timers,
      ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
    });
    this.tabs = new UiTabs({ api, host, log });
    this.calls = new UiCalls({
      host,
      tabs: this.tabs,
      request: (op, params) => this.request(op, params),
      localPrefs: () => this.localPrefs(),
      statusChanged: () => this.pushStatus(() => true),
    });
  }

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
    this.requests.answered(message);
  }

  /** Connection health changed: views show it; requests on a lost port will never be answered. */
  onHealth(health: ConnectionHealth): void {
    this.requests.healthChanged(health);
    this.pushStatus(() => true);
    this.opts.onRefresh?.();
  }

  /** Calls an operation on the host (the views' calls and the badge's own reads). */
  request(op: string, params: Record<string, unknown> = {}): Promise<Reply> {
    return this.requests.request(op, params);
  }

  /** The connection as views show it: a retry after a failure stays "Reconnecting…"/"Host not installed". */
  shownHealth(): ConnectionHealth {
    return this.requests.shownHealth();
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
        return { port, kind: "page", page: sender.url.slice(base.length).split(/[?#]/)[0] };
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
        const reply = await this.calls.call(view, m.op, m.params ?? {});
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
        return this.tabs.openConversation(view, m.workerId, m.url);
    }
  }

  private async status(view: View): Promise<UiStatus> {
    const { host } = this.opts;
    const bindings = await host.bindings();
    const prefs = await this.localPrefs();
    const active =
      view.kind === "overlay" ? await this.tabs.ownTab(view.tabId, prefs) : await this.tabs.activeTab();
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
}
