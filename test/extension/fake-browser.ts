// An in-memory WebExtension API for the background executor's tests: runtime messaging, tabs holding fake
// chatgpt.com pages (the real content bridge over a scriptable fake adapter) that can be discarded the way Chromium
// does it (a new id, no content script), alarms, and a native host port.
import type {
  ApiEvent,
  ContentApi,
  ExtensionApi,
  MessageSender,
  NativePort,
  RuntimeMessageListener,
  TabInfo,
} from "../../extension/lib/browser-api.ts";
import {
  startContentBridge,
  type AdapterSubmitRequest,
  type ContentBridge,
} from "../../extension/lib/content-bridge.ts";
import type { StateReport } from "../../extension/lib/content-protocol.ts";
import type { Logger } from "../../extension/lib/logger.ts";

export const EXTENSION_ID = "abcdefghijklmnopabcdefghijklmnop";
const BASE_URL = `chrome-extension://${EXTENSION_ID}/`;

export class FakeEvent<F extends (...args: never[]) => unknown> implements ApiEvent<F> {
  listeners: F[] = [];
  addListener(listener: F): void {
    this.listeners.push(listener);
  }
  removeListener(listener: F): void {
    this.listeners = this.listeners.filter((l) => l !== listener);
  }
  emit(...args: Parameters<F>): void {
    for (const l of [...this.listeners]) l(...args);
  }
}

/** Delivers a runtime message to listeners the way browsers do: `true` keeps the channel for `sendResponse`. */
export function dispatch(
  listeners: readonly RuntimeMessageListener[],
  message: unknown,
  sender: MessageSender,
): Promise<unknown> {
  return new Promise((resolve) => {
    let pending = false;
    for (const l of listeners)
      if (l(structuredClone(message), sender, (r) => resolve(r)) === true) pending = true;
    if (!pending) resolve(undefined);
  });
}

export class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  info(message: string): void {
    this.lines.push(`info ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn ${message}`);
  }
  has(pattern: RegExp): boolean {
    return this.lines.some((l) => pattern.test(l));
  }
}

// ── native messaging ────────────────────────────────────────────────────────────────────────────

export class FakePort implements NativePort {
  readonly onMessage = new FakeEvent<(message: unknown) => void>();
  readonly onDisconnect = new FakeEvent<(port: NativePort) => void>();
  error: { message: string } | null = null;
  closed = false;

  constructor(private readonly host: FakeHost) {}

  postMessage(message: unknown): void {
    if (this.closed) throw new Error("Attempting to use a disconnected port object");
    this.host.receive(this, structuredClone(message));
  }

  disconnect(): void {
    this.closed = true;
  }

  /** Host → extension. */
  deliver(message: unknown): void {
    if (this.closed) return;
    const copy = structuredClone(message);
    setTimeout(() => {
      if (!this.closed) this.onMessage.emit(copy);
    }, 0);
  }

  /** The host process went away (or never started). */
  drop(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.error = { message: reason };
    setTimeout(() => this.onDisconnect.emit(this), 0);
  }
}

export interface HostMessageRecord {
  readonly kind: string;
  readonly [key: string]: unknown;
}

export class FakeHost {
  installed = true;
  autoWelcome = true;
  readonly ports: FakePort[] = [];
  readonly messages: HostMessageRecord[] = [];

  connect(): FakePort {
    const port = new FakePort(this);
    this.ports.push(port);
    if (!this.installed) port.drop("Specified native messaging host not found.");
    return port;
  }

  get port(): FakePort | undefined {
    const last = this.ports.at(-1);
    return last && !last.closed ? last : undefined;
  }

  receive(port: FakePort, message: unknown): void {
    const m = message as HostMessageRecord;
    this.messages.push(m);
    if (m.kind === "hello" && this.autoWelcome)
      port.deliver({ kind: "welcome", protocolVersion: 1, hostVersion: "test", executorId: m.executorId });
  }

  send(message: unknown): void {
    const port = this.port;
    if (!port) throw new Error("no open port");
    port.deliver(message);
  }

  /** The host exits; with `installed = false` it cannot be started again. */
  kill(reason = "Native host has exited."): void {
    this.port?.drop(reason);
  }

  of(kind: string): HostMessageRecord[] {
    return this.messages.filter((m) => m.kind === kind);
  }
}

// ── pages ───────────────────────────────────────────────────────────────────────────────────────

export type SubmitBehaviour = (request: AdapterSubmitRequest, page: FakeAdapter) => Promise<unknown>;

/** The page adapter of a fake chatgpt.com tab: scriptable submissions, a conversation that keeps user texts. */
export class FakeAdapter {
  readonly submits: AdapterSubmitRequest[] = [];
  behaviour: SubmitBehaviour = (request, page) => Promise.resolve(page.accept(request));
  private onReport: ((report: unknown) => void) | undefined;
  state: StateReport | undefined;
  /** The conversation's title as the page shows it (the adopted worker's name), if it shows one. */
  title: string | undefined;

  constructor(readonly tab: FakeTab) {}

  /** Whether the bridge has it watch the page (a worker's tab): only then do its reports leave, as the real one's. */
  watching = false;

  bind(onReport: (report: unknown) => void) {
    return {
      // Like the real adapter, a start reports what the page shows (if the test gave it a state).
      start: () => {
        this.watching = true;
        this.onReport = onReport;
        if (this.state) onReport({ ...this.state, layout: "classic" });
      },
      stop: () => {
        this.watching = false;
        this.onReport = undefined;
      },
      current: () => this.state,
      submit: (request: AdapterSubmitRequest) => {
        this.submits.push(request);
        return this.behaviour(request, this);
      },
      hasMarker: (marker: string) => this.tab.conversation.some((t) => t.includes(marker)),
      conversationTitle: () => this.title,
    };
  }

  /** The prompt lands: a new chat gets its conversation id, and the turn starts generating. */
  accept(request: AdapterSubmitRequest): { outcome: "submitted"; url: string } {
    this.tab.conversation.push(request.text);
    if (!/\/c\//.test(this.tab.url))
      this.tab.navigate(`https://chatgpt.com/c/${this.tab.browser.nextConversationId()}`);
    this.report("generating");
    return { outcome: "submitted", url: this.tab.url };
  }

  report(state: StateReport["state"], extra: Partial<StateReport> = {}): void {
    this.state = { state, url: this.tab.url, ...extra };
    this.onReport?.({ ...this.state, layout: "classic" });
  }
}

class TabLocation {
  constructor(private readonly tab: FakeTab) {}
  get href(): string {
    return this.tab.url;
  }
}

export class FakeTab {
  url: string;
  /** Unloaded by the browser: no content script until it is reloaded. */
  discarded = false;
  autoDiscardable = true;
  /** Opened in the foreground. */
  active = false;
  /** Times the browser reloaded it (`tabs.reload`). */
  reloads = 0;
  /** User messages of the conversation shown (survives page reloads, like ChatGPT's server). */
  conversation: string[] = [];
  readonly onMessage = new FakeEvent<RuntimeMessageListener>();
  adapter: FakeAdapter | undefined;
  private bridge: ContentBridge | undefined;

  constructor(
    readonly browser: FakeBrowser,
    /** Changes when Chromium discards the tab (`tabs.onReplaced`). */
    public id: number,
    url: string,
  ) {
    this.url = url;
  }

  info(): TabInfo {
    return {
      id: this.id,
      url: this.url,
      status: "complete",
      active: this.active,
      discarded: this.discarded,
      autoDiscardable: this.autoDiscardable,
    };
  }

  /** Loads the content script (the real bridge over a fresh fake adapter). */
  load(): FakeAdapter {
    this.unload();
    const adapter = new FakeAdapter(this);
    this.adapter = adapter;
    const api: ContentApi = {
      runtime: {
        id: EXTENSION_ID,
        onMessage: this.onMessage,
        sendMessage: (message) => this.browser.fromContent(this, message),
      },
    };
    this.bridge = startContentBridge({
      api,
      location: new TabLocation(this),
      log: this.browser.contentLog,
      createAdapter: (onReport) => adapter.bind(onReport),
    });
    return adapter;
  }

  /** The page goes away (navigation, reload, extension reload): its content script stops answering. */
  unload(): void {
    this.bridge?.stop();
    this.bridge = undefined;
    this.adapter = undefined;
    this.onMessage.listeners = [];
  }

  navigate(url: string): void {
    this.url = url;
    this.browser.api.tabs.onUpdated.emit(this.id, { url }, this.info());
  }
}

// ── the API object ──────────────────────────────────────────────────────────────────────────────

type FakeApi = ExtensionApi & {
  runtime: ExtensionApi["runtime"] & {
    onMessage: FakeEvent<RuntimeMessageListener>;
    onStartup: FakeEvent<() => void>;
    onInstalled: FakeEvent<() => void>;
    lastError: { message?: string } | null;
  };
  tabs: ExtensionApi["tabs"] & {
    onRemoved: FakeEvent<(tabId: number, info: { isWindowClosing?: boolean }) => void>;
    onUpdated: FakeEvent<
      (tabId: number, change: { url?: string; status?: string; discarded?: boolean }, tab: TabInfo) => void
    >;
    onReplaced: FakeEvent<(addedTabId: number, removedTabId: number) => void>;
    /** The executor's `autoDiscardable` and the views' bridge's `active` (bringing a tab forward). */
    update(
      tabId: number,
      properties: { autoDiscardable?: boolean; active?: boolean },
    ): Promise<TabInfo | undefined>;
  };
  alarms: ExtensionApi["alarms"] & { onAlarm: FakeEvent<(alarm: { name: string }) => void> };
};

export class FakeBrowser {
  readonly host = new FakeHost();
  readonly tabs = new Map<number, FakeTab>();
  readonly alarms = new Map<string, { periodInMinutes?: number }>();
  readonly contentLog = new MemoryLogger();
  /** Tabs load their content script by themselves shortly after they are created or reloaded. */
  autoLoad = true;
  /** `tabs.update` refuses `autoDiscardable` (Firefox for Android), throwing synchronously as it does there. */
  noAutoDiscardable = false;
  private nextTab = 100;
  private nextConversation = 1;
  readonly api: FakeApi;

  constructor() {
    const removed = new FakeEvent<(tabId: number, info: { isWindowClosing?: boolean }) => void>();
    const updated = new FakeEvent<
      (tabId: number, change: { url?: string; status?: string; discarded?: boolean }, tab: TabInfo) => void
    >();
    this.api = {
      runtime: {
        id: EXTENSION_ID,
        lastError: null,
        connectNative: () => this.host.connect(),
        getManifest: () => ({ version: "0.1.0" }),
        getURL: (path) => `${BASE_URL}${path}`,
        sendMessage: () => Promise.resolve(undefined),
        onMessage: new FakeEvent<RuntimeMessageListener>(),
        onStartup: new FakeEvent<() => void>(),
        onInstalled: new FakeEvent<() => void>(),
      },
      tabs: {
        get: (tabId) => {
          const tab = this.tabs.get(tabId);
          return tab ? Promise.resolve(tab.info()) : Promise.reject(new Error(`No tab with id: ${tabId}.`));
        },
        // Only `active` is honoured (the popup's active tab); callers filter URLs themselves.
        query: (query: { url?: string | string[]; active?: boolean }) =>
          Promise.resolve(
            [...this.tabs.values()]
              .filter((t) => query.active === undefined || t.active === query.active)
              .map((t) => t.info()),
          ),
        create: ({ url, active }) => Promise.resolve(this.openTab(url, { active: active ?? true }).info()),
        update: (tabId, properties: { autoDiscardable?: boolean; active?: boolean }) => {
          const tab = this.tabs.get(tabId);
          if (!tab) return Promise.reject(new Error(`No tab with id: ${tabId}.`));
          if (this.noAutoDiscardable && properties.autoDiscardable !== undefined)
            throw new Error(
              'Type error for parameter updateProperties: Unexpected property "autoDiscardable"',
            );
          if (properties.autoDiscardable !== undefined) tab.autoDiscardable = properties.autoDiscardable;
          if (properties.active !== undefined) tab.active = properties.active;
          return Promise.resolve(tab.info());
        },
        reload: (tabId) => {
          const tab = this.tabs.get(tabId);
          if (!tab) return Promise.reject(new Error(`No tab with id: ${tabId}.`));
          tab.reloads += 1;
          tab.discarded = false;
          tab.unload();
          if (this.autoLoad) setTimeout(() => this.tabs.get(tabId)?.load(), 1);
          return Promise.resolve();
        },
        remove: (tabId) => {
          this.closeTab(tabId);
          return Promise.resolve();
        },
        sendMessage: (tabId, message, options) => {
          const tab = this.tabs.get(tabId);
          if (!tab || tab.onMessage.listeners.length === 0 || (options?.frameId ?? 0) !== 0)
            return Promise.reject(new Error("Could not establish connection. Receiving end does not exist."));
          return dispatch(tab.onMessage.listeners, message, {
            id: EXTENSION_ID,
            url: `${BASE_URL}background.js`,
          });
        },
        onRemoved: removed,
        onUpdated: updated,
        onReplaced: new FakeEvent<(addedTabId: number, removedTabId: number) => void>(),
      },
      alarms: {
        create: (name, info) => {
          this.alarms.set(name, info);
        },
        onAlarm: new FakeEvent<(alarm: { name: string }) => void>(),
      },
    };
  }

  nextConversationId(): string {
    const n = this.nextConversation++;
    return `6800f3a1-0000-8000-9000-${String(n).padStart(12, "0")}`;
  }

  /** A tab opened in the one window; a person's (or `active: true`) comes to the front. */
  openTab(url: string, { active = true } = {}): FakeTab {
    const tab = new FakeTab(this, this.nextTab++, url);
    if (active) for (const other of this.tabs.values()) other.active = false;
    tab.active = active;
    this.tabs.set(tab.id, tab);
    if (this.autoLoad && url.startsWith("https://chatgpt.com/")) setTimeout(() => tab.load(), 1);
    return tab;
  }

  /**
   * Memory Saver or `tabs.discard`: the page is unloaded (its content script is gone, with no `closed` report) and,
   * as measured in Chromium, the tab lives on under a new id (`onReplaced`), then reports `discarded`. Firefox keeps
   * the id (`newId: false`). Returns the tab's id afterwards.
   */
  discard(tabId: number, { newId = true } = {}): number {
    const tab = this.tabs.get(tabId);
    if (!tab) throw new Error(`no tab ${tabId}`);
    tab.unload();
    tab.discarded = true;
    if (newId) {
      this.tabs.delete(tabId);
      tab.id = this.nextTab++;
      this.tabs.set(tab.id, tab);
      this.api.tabs.onReplaced.emit(tab.id, tabId);
    }
    this.api.tabs.onUpdated.emit(tab.id, { discarded: true }, tab.info());
    return tab.id;
  }

  closeTab(tabId: number, { isWindowClosing = false } = {}): void {
    const tab = this.tabs.get(tabId);
    if (!tab) return;
    tab.unload();
    this.tabs.delete(tabId);
    this.api.tabs.onRemoved.emit(tabId, { isWindowClosing });
  }

  /** What a content script's `runtime.sendMessage` does: the background receives it with a tab sender. */
  fromContent(tab: FakeTab, message: unknown): Promise<unknown> {
    return dispatch(this.api.runtime.onMessage.listeners, message, this.senderOf(tab));
  }

  senderOf(tab: FakeTab): MessageSender {
    return {
      id: EXTENSION_ID,
      url: tab.url,
      origin: new URL(tab.url).origin,
      frameId: 0,
      tab: tab.info(),
    };
  }

  /** A runtime message with any sender (for the sender checks). */
  send(message: unknown, sender: MessageSender): Promise<unknown> {
    return dispatch(this.api.runtime.onMessage.listeners, message, sender);
  }

  /** The background dies (MV3 service worker stopped, extension reloaded): its listeners and port go. */
  killBackground(): void {
    this.api.runtime.onMessage.listeners = [];
    this.api.runtime.onStartup.listeners = [];
    this.api.runtime.onInstalled.listeners = [];
    this.api.tabs.onRemoved.listeners = [];
    this.api.tabs.onUpdated.listeners = [];
    this.api.tabs.onReplaced.listeners = [];
    this.api.alarms.onAlarm.listeners = [];
    for (const port of this.host.ports) port.closed = true;
  }
}
