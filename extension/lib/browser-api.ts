// The slice of the WebExtension API the extension uses, as one interface: the real one is `browser` (Firefox) or
// `chrome` (Chromium), both promise-based in MV3; tests inject an in-memory fake. Nothing else touches the globals.

export interface ApiEvent<F extends (...args: never[]) => unknown> {
  addListener(listener: F): void;
  removeListener(listener: F): void;
}

/** `runtime.Port` of a native messaging connection. */
export interface NativePort {
  postMessage(message: unknown): void;
  disconnect(): void;
  readonly onMessage: ApiEvent<(message: unknown) => void>;
  readonly onDisconnect: ApiEvent<(port: NativePort) => void>;
  /** Firefox sets the reason here; Chromium uses `runtime.lastError` inside the onDisconnect listener. */
  readonly error?: { message?: string } | null;
}

export interface TabInfo {
  id?: number;
  url?: string;
  status?: string;
  active?: boolean;
  windowId?: number;
  /** Unloaded to save memory (Chrome Memory Saver, `tabs.discard`): no content script until it is loaded again. */
  discarded?: boolean;
  /** Whether the browser may discard it by itself (`tabs.update` sets it; Firefox for Android has none). */
  autoDiscardable?: boolean;
}

/** `runtime.MessageSender`: who sent a runtime message. */
export interface MessageSender {
  id?: string;
  url?: string;
  /** Chromium only. */
  origin?: string;
  frameId?: number;
  tab?: TabInfo;
}

export type SendResponse = (response?: unknown) => void;
/** Returning `true` keeps `sendResponse` valid after the listener returns (works in every browser). */
export type RuntimeMessageListener = (
  message: unknown,
  sender: MessageSender,
  sendResponse: SendResponse,
) => boolean | undefined;

export interface ExtensionApi {
  runtime: {
    readonly id: string;
    readonly lastError?: { message?: string } | null;
    connectNative(application: string): NativePort;
    getManifest(): { version: string };
    getURL(path: string): string;
    sendMessage(message: unknown): Promise<unknown>;
    readonly onMessage: ApiEvent<RuntimeMessageListener>;
    readonly onStartup: ApiEvent<() => void>;
    readonly onInstalled: ApiEvent<() => void>;
  };
  tabs: {
    get(tabId: number): Promise<TabInfo>;
    query(query: { url?: string | string[] }): Promise<TabInfo[]>;
    create(properties: { url: string; active?: boolean }): Promise<TabInfo>;
    /** Only `autoDiscardable` here (managed tabs are kept in memory); the views' bridge also brings tabs forward. */
    update(tabId: number, properties: { autoDiscardable?: boolean }): Promise<TabInfo | undefined>;
    reload(tabId: number): Promise<void>;
    remove(tabId: number): Promise<void>;
    sendMessage(tabId: number, message: unknown, options?: { frameId?: number }): Promise<unknown>;
    readonly onRemoved: ApiEvent<(tabId: number, removeInfo: { isWindowClosing?: boolean }) => void>;
    readonly onUpdated: ApiEvent<
      (
        tabId: number,
        changeInfo: { url?: string; status?: string; discarded?: boolean },
        tab: TabInfo,
      ) => void
    >;
    /**
     * Chromium: a discarded tab lives on under a new id (`addedTabId`). Firefox keeps the id when it unloads a tab,
     * and may not offer the event at all.
     */
    readonly onReplaced?: ApiEvent<(addedTabId: number, removedTabId: number) => void>;
  };
  alarms: {
    create(name: string, info: { periodInMinutes?: number; delayInMinutes?: number }): Promise<void> | void;
    readonly onAlarm: ApiEvent<(alarm: { name: string }) => void>;
  };
}

/** The API of a content script: messaging only. */
export interface ContentApi {
  runtime: Pick<ExtensionApi["runtime"], "id" | "sendMessage" | "onMessage">;
}

export type BrowserFamily = "chromium" | "firefox";

interface ExtensionGlobals {
  browser?: unknown;
  chrome?: unknown;
}

/** `browser` where it exists (Firefox, promise-based everywhere), else `chrome` (MV3: promise-based too). */
export function getBrowserApi<T = ExtensionApi>(): T {
  const g = globalThis as ExtensionGlobals;
  const api = g.browser ?? g.chrome;
  if (api === undefined) throw new Error("no WebExtension API in this context");
  return api as T;
}

export function browserFamily(api: Pick<ExtensionApi, "runtime">): BrowserFamily {
  return api.runtime.getURL("").startsWith("moz-extension:") ? "firefox" : "chromium";
}
