// The background executor: it carries out the host's commands in ChatGPT tabs exactly once, reports what the tabs
// show, and after any restart tells the host precisely what it knows (docs/extension.md). It only coordinates: the
// modules it builds own the work and their tables (docs/extension.md, "Background modules").
import {
  MAX_GENERATING_LIMIT,
  type ExtensionMessage,
  type HostMessage,
} from "../../shared/native-messages.ts";
import type { BrowserFamily, ExtensionApi } from "../lib/browser-api.ts";
import { conversationIdOf } from "../lib/chatgpt-url.ts";
import { errorText, type Logger } from "../lib/logger.ts";
import type { BindingRecord, OrchestratorDb } from "./db.ts";
import { DEFAULT_OPTIONS, type ExecutorOptions } from "./executor-options.ts";
import { buildModules, type BackgroundModules } from "./executor-modules.ts";
import { guard } from "./guard.ts";
import {
  NativeConnection,
  type ConnectionHealth,
  type PortHandle,
  type Timers,
} from "./native-connection.ts";
import { onRuntimeMessage } from "./runtime-messages.ts";
import { checkWatched } from "./watch-check.ts";

export interface ExecutorDeps {
  readonly api: ExtensionApi;
  readonly db: OrchestratorDb;
  readonly timers: Timers;
  readonly log: Logger;
  readonly browser: BrowserFamily;
  readonly options?: Partial<ExecutorOptions>;
  /** `ui.response`/`ui.changed` for the views (ui-bridge.ts); handled at once, not behind commands. */
  readonly onUiMessage?: (message: Extract<HostMessage, { kind: "ui.response" | "ui.changed" }>) => void;
  readonly onHealth?: (health: ConnectionHealth) => void;
}

export interface ExecutorHealth {
  readonly executorId: string;
  readonly connection: ConnectionHealth;
  readonly generating: number;
  readonly maxGenerating: number;
  readonly hostVersion?: string;
}

export const KEEPALIVE_ALARM = "orchestrator.keepalive";

export class Executor {
  readonly connection: NativeConnection;
  private readonly opts: ExecutorOptions;
  /** The modules that do the work (executor-modules.ts). */
  private readonly m: BackgroundModules;
  private ready: Promise<void> = new Promise(() => undefined);
  private started = false;
  /** Host messages are handled one at a time, in arrival order (commands of a worker stay in order). */
  private hostChain: Promise<unknown> = Promise.resolve();
  private hostVersion: string | undefined;

  constructor(private readonly deps: ExecutorDeps) {
    const { api, timers, log } = deps;
    this.opts = { ...DEFAULT_OPTIONS, ...deps.options };
    this.m = buildModules({ ...deps, opts: this.opts, ready: () => this.ready });
    const { outbox } = this.m;
    this.connection = new NativeConnection({
      api,
      timers,
      log,
      ...(this.opts.backoff ? { backoff: this.opts.backoff } : {}),
      onOpen: (port) => this.m.hello.send(port),
      ...(deps.onHealth ? { onHealth: deps.onHealth } : {}),
      onMessage: (message, port) => {
        if (message.kind === "welcome" && !message.error) this.hostVersion = message.hostVersion;
        if (message.kind === "ui.response" || message.kind === "ui.changed") {
          deps.onUiMessage?.(message);
          return;
        }
        const handled = this.hostChain.then(() => this.onHostMessage(message, port));
        this.hostChain = handled.catch(() => undefined);
        guard(log, `host ${message.kind}`, handled);
      },
      onClose: () => outbox.closed(),
    });
  }

  // ── lifecycle ─────────────────────────────────────────────────────────────────────────────────

  /**
   * Registers every event listener. Call synchronously in the first turn of the background script: an MV3
   * service worker woken by an event only delivers it to listeners registered at top level.
   */
  listen(): void {
    const { api, log } = this.deps;
    const messages = {
      api,
      log,
      content: this.m.content,
      tabs: this.m.tabs,
      ready: () => this.ready,
      health: () => this.health(),
    };
    api.runtime.onMessage.addListener((m, s, r) => onRuntimeMessage(messages, m, s, r));
    this.m.tabs.listen();
    api.alarms.onAlarm.addListener((alarm) => {
      if (alarm.name !== KEEPALIVE_ALARM) return;
      this.connection.ensure();
      guard(log, "checking that workers' tabs are watched", this.checkWatched());
    });
    // These only need to wake the background; start() has already run by then.
    api.runtime.onStartup.addListener(() => this.connection.ensure());
    api.runtime.onInstalled.addListener(() => this.connection.ensure());
  }

  /** Recovers from the journal (once), then connects to the host. */
  start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.ready = this.m.recovery.recover();
      void this.ready.then(
        () => this.connection.start(),
        (e: unknown) => this.deps.log.warn(`recovery failed: ${errorText(e)}`),
      );
      void Promise.resolve(this.deps.api.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 1 })).catch(
        (e: unknown) => this.deps.log.warn(`keepalive alarm: ${errorText(e)}`),
      );
    }
    return this.ready;
  }

  stop(): void {
    this.connection.stop();
    this.m.slots.stop();
  }

  /** Every worker's tab watches its page; one that does not is told to ask again (watch-check.ts). */
  async checkWatched(): Promise<number[]> {
    await this.ready;
    const { bindings, content } = this.m;
    return checkWatched({ bindings, content, log: this.deps.log, probeTimeoutMs: this.opts.probeTimeoutMs });
  }

  health(): ExecutorHealth {
    return {
      executorId: this.m.settings.executorId,
      connection: this.connection.health(),
      generating: this.m.slots.size,
      maxGenerating: this.m.settings.maxGenerating,
      ...(this.hostVersion !== undefined ? { hostVersion: this.hostVersion } : {}),
    };
  }

  /** For the views' bridge: a `ui.request` on the port `hello` went out on (false if there is none). */
  sendUi(message: Extract<ExtensionMessage, { kind: "ui.request" }>): boolean {
    return this.m.outbox.send(message);
  }

  /**
   * The options page changed the limit of tabs generating at once: kept as the `maxGenerating` preference and told to
   * the host, which keeps the limit (without a port now, the next `hello` carries it).
   */
  async setMaxGenerating(limit: number): Promise<void> {
    await this.ready;
    await this.m.settings.setMaxGenerating(limit);
    await this.m.outbox.step(() => {
      this.m.outbox.send({ kind: "executor.settings", maxGenerating: Math.min(limit, MAX_GENERATING_LIMIT) });
      return Promise.resolve();
    });
  }

  /** Managed tabs as this browser knows them (the views' "current conversation" and diagnostics). */
  async bindings(): Promise<BindingRecord[]> {
    await this.ready;
    return this.m.bindings.all();
  }

  /** Whether a worker whose tab was closed gets its conversation reopened (the `reopenClosedTabs` preference). */
  async reopenClosedTabs(): Promise<boolean> {
    await this.ready;
    return this.m.tabs.reopensClosedTabs();
  }

  /** The options page switched reopening: kept, and every worker without a tab is reported again. */
  async setReopenClosedTabs(on: boolean): Promise<void> {
    await this.ready;
    await this.m.tabs.setReopenClosedTabs(on);
  }

  /**
   * "Keep this conversation going": binds the open conversation tab to the worker the host created for it (or the
   * one that already keeps it going: its binding, wherever it was, is replaced) and reports what the page shows
   * now, so the host can send its one bootstrap turn. The user chose this tab; nothing else is ever adopted.
   */
  async adoptTab(workerId: string, tabId: number, url: string): Promise<void> {
    await this.ready;
    const conversationId = conversationIdOf(url);
    if (conversationId === undefined) throw new Error(`${url} is not a ChatGPT conversation`);
    await this.m.tabs.adopt(workerId, tabId, url, conversationId);
    const ping = await this.m.content.ping(tabId, this.opts.probeTimeoutMs);
    if (ping.ok && ping.value.state)
      await this.m.observations.observe(
        workerId,
        { ...ping.value.state, url: ping.value.state.url ?? url },
        { report: true },
      );
  }

  /**
   * The title the page of `tabId` shows for its conversation (the adopted worker's name), or undefined when the page
   * names none or does not answer in time: adoption goes on without it.
   */
  async conversationTitle(tabId: number): Promise<string | undefined> {
    await this.ready;
    const ping = await this.m.content.ping(tabId, this.opts.probeTimeoutMs);
    return ping.ok ? ping.value.title : undefined;
  }

  /** "Release": the host stopped the worker; forget its tab, so nothing of it is observed or sent any more. */
  async releaseTab(workerId: string): Promise<void> {
    await this.ready;
    await this.m.tabs.release(workerId);
  }

  /** Resolves once no command is queued or running and no report is pending (tests, diagnostics). */
  async idle(): Promise<void> {
    await this.ready;
    while (this.m.runner.busy || this.m.outbox.pending > 0) await this.sleep(2);
    await this.hostChain;
  }

  // ── host messages ─────────────────────────────────────────────────────────────────────────────

  private async onHostMessage(message: HostMessage, port: PortHandle): Promise<void> {
    await this.ready;
    switch (message.kind) {
      case "welcome":
        if (!message.error) await this.m.hello.welcomed(port.generation);
        return;
      case "command":
        return this.m.runner.onCommand(message, port);
      case "command.cancel":
        return this.m.runner.onCancel(message.commandId);
      case "binding.release":
        // The host does not know the worker: its tab is the person's again (never reopened, rebound or kept from discarding).
        return this.m.tabs.release(message.workerId);
      case "ui.response":
      case "ui.changed":
        return; // handed to the views' bridge on arrival (constructor)
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.deps.timers.setTimeout(resolve, ms));
  }
}
