// The types the views' bridge (ui-bridge.ts) shares with its parts: the view ports, the slice of the WebExtension
// API it uses, what it needs of the executor, and the reply a view gets for a call.
import type { ErrorPayload } from "../../shared/error-codes.ts";
import type { ExtensionMessage } from "../../shared/native-messages.ts";
import type { ApiEvent, MessageSender, TabInfo } from "../lib/browser-api.ts";
import type { LocalPrefs } from "../ui/ui-protocol.ts";
import type { BindingRecord } from "./db.ts";
import type { ConnectionHealth } from "./native-connection.ts";
import type { TabSettings } from "./tab-settings.ts";

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
  /** The title a tab's page shows for its conversation (the adopted worker's name), if any. */
  conversationTitle(tabId: number): Promise<string | undefined>;
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

/** A connected view: an extension page, or the overlay in a chatgpt.com tab. */
export interface View {
  readonly port: ViewPort;
  readonly kind: "page" | "overlay";
  /** The overlay's tab. */
  readonly tabId?: number;
  /** A page's path under the extension's base URL (`extension/options/options.html`), without query or hash. */
  readonly page?: string;
}

/** The answer to a view's call. */
export interface Reply {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: ErrorPayload;
}
