// Wires the views' bridge and the attention badge to the executor: the background entry calls `startUi` once,
// in its first turn, with the executor's dependencies; the returned hooks go into the executor's options.
import type { HostMessage } from "../../shared/native-messages.ts";
import type { Logger } from "../lib/logger.ts";
import { DEFAULT_LOCAL_PREFS, storedLocalPrefsSchema, type LocalPrefs } from "../ui/ui-protocol.ts";
import { PrefStore, type OrchestratorDb } from "./db.ts";
import type { Executor } from "./executor.ts";
import type { ConnectionHealth, Timers } from "./native-connection.ts";
import { Attention, type AttentionApi } from "./ui-attention.ts";
import { UiBridge, type UiBridgeApi } from "./ui-bridge.ts";

/** The extension's own icon (manifests/extension/manifest.json `icons`): notifications need one. */
const NOTIFICATION_ICON_PATH = "icons/icon-128.png";

const PREFS_KEY = "ui.prefs";
const ANNOUNCED_KEY = "ui.announced";

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === "string");
const isStoredPrefs = (v: unknown): v is Partial<LocalPrefs> => storedLocalPrefsSchema.safeParse(v).success;

/** The local preferences; those stored before a switch existed lack its key: its default fills it, the rest stay. */
export async function loadLocalPrefs(store: PrefStore): Promise<LocalPrefs> {
  return { ...DEFAULT_LOCAL_PREFS, ...(await store.get(PREFS_KEY, {}, isStoredPrefs)) };
}

export interface UiHooks {
  readonly onUiMessage: (message: Extract<HostMessage, { kind: "ui.response" | "ui.changed" }>) => void;
  readonly onHealth: (health: ConnectionHealth) => void;
  /** Call with the executor once it exists; registers the listeners (first turn). */
  attach(executor: Executor): void;
}

export function startUi(deps: {
  api: UiBridgeApi & AttentionApi & { runtime: { getManifest(): { version: string } } };
  db: OrchestratorDb;
  timers: Timers;
  log: Logger;
  browser: string;
}): UiHooks {
  const prefs = new PrefStore(deps.db);
  let executor: Executor | undefined;
  const bridge = new UiBridge({
    api: deps.api,
    timers: deps.timers,
    log: deps.log,
    browser: deps.browser,
    extensionVersion: deps.api.runtime.getManifest().version,
    prefs: {
      get: () => loadLocalPrefs(prefs),
      set: (p) => prefs.set(PREFS_KEY, p),
    },
    host: {
      health: () => executor!.connection.health(),
      hostVersion: () => executor?.health().hostVersion,
      executorId: () => executor?.health().executorId ?? "",
      send: (m) => executor?.sendUi(m as Parameters<Executor["sendUi"]>[0]) ?? false,
      retry: () => executor?.connection.ensure(),
      bindings: () => executor?.bindings() ?? Promise.resolve([]),
      generating: () => {
        const h = executor?.health();
        return { generating: h?.generating ?? 0, maxGenerating: h?.maxGenerating ?? 1 };
      },
      setMaxGenerating: (limit) => executor?.setMaxGenerating(limit) ?? Promise.resolve(),
      adoptTab: (workerId, tabId, url) => executor!.adoptTab(workerId, tabId, url),
      conversationTitle: (tabId) => executor?.conversationTitle(tabId) ?? Promise.resolve(undefined),
      releaseTab: (workerId) => executor?.releaseTab(workerId) ?? Promise.resolve(),
      tabSettings: async () => ({ reopenClosedTabs: (await executor?.reopenClosedTabs()) ?? true }),
      setTabSettings: (settings) =>
        executor?.setReopenClosedTabs(settings.reopenClosedTabs) ?? Promise.resolve(),
    },
    onRefresh: () => attention.refresh(),
  });
  const attention = new Attention({
    api: deps.api,
    log: deps.log,
    health: () => bridge.shownHealth(),
    request: (op) => bridge.request(op),
    prefs: () => bridge.localPrefs(),
    announced: {
      get: () => prefs.get(ANNOUNCED_KEY, [], isStringArray),
      set: (keys) => prefs.set(ANNOUNCED_KEY, keys),
    },
    iconUrl: deps.api.runtime.getURL(NOTIFICATION_ICON_PATH),
  });
  return {
    onUiMessage: (m) => bridge.onHostMessage(m),
    onHealth: (h) => {
      if (executor) bridge.onHealth(h);
    },
    attach(e) {
      executor = e;
      bridge.listen();
      attention.refresh();
    },
  };
}
