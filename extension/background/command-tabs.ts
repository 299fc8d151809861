// Where a command goes in the browser and how its page is reached: a new chat's tab for `create`, else the worker's
// conversation (tab-keeper.ts); the content script awaited, a discarded or stale tab reloaded once. Part of the
// command runner; the binding records stay with the bindings module.
import { isChatGptStartUrl } from "../../shared/chatgpt-start-url.ts";
import type { ExtensionApi } from "../lib/browser-api.ts";
import { NEW_CHAT_URL } from "../lib/chatgpt-url.ts";
import type { Logger } from "../lib/logger.ts";
import type { BindingStore } from "./binding-store.ts";
import type { ContentChannel } from "./content-channel.ts";
import type { BindingRecord } from "./db.ts";
import type { JournalEntry } from "./journal.ts";
import type { CommandTab, TabKeeper } from "./tab-keeper.ts";

export interface CommandTabsDeps {
  readonly api: ExtensionApi;
  readonly log: Logger;
  readonly content: ContentChannel;
  readonly tabs: TabKeeper;
  readonly bindings: BindingStore;
  /** New tabs come to the front (the `focusNewTabs` preference); they open in the background otherwise. */
  readonly focusNewTabs: () => boolean;
  readonly probeTimeoutMs: number;
  readonly contentReadyTimeoutMs: number;
}

export type TargetTab =
  | (Exclude<CommandTab, { errorCode: string }> & { created?: boolean; previous?: BindingRecord })
  | { errorCode: string; detail: string };

export class CommandTabs {
  constructor(private readonly deps: CommandTabsDeps) {}

  /** The tab a command goes to: a new chat for `create`, else the worker's conversation (tab-keeper.ts). */
  async targetTab(entry: JournalEntry): Promise<TargetTab> {
    const { api, bindings } = this.deps;
    if (entry.type !== "conversation.create")
      return this.deps.tabs.commandTab(entry.workerId, entry.conversationUrl);
    const previous = await bindings.get(entry.workerId);
    // A GPT's or project's page when the host names one (checked again here: nothing else is opened), else a new chat.
    const start =
      entry.conversationUrl !== undefined && isChatGptStartUrl(entry.conversationUrl)
        ? entry.conversationUrl
        : NEW_CHAT_URL;
    const tab = await api.tabs.create({ url: start, active: this.deps.focusNewTabs() });
    if (tab.id === undefined)
      return { errorCode: "EXECUTOR_UNAVAILABLE", detail: "the browser opened no tab" };
    await this.deps.tabs.bindCreated(entry.workerId, tab.id);
    return { tabId: tab.id, fresh: true, discarded: false, created: true, ...(previous ? { previous } : {}) };
  }

  /**
   * Waits for the tab's content script. A discarded tab is reloaded first (it has none until then); an existing tab
   * that does not answer (extension updated) is reloaded once, never for a steer, which is for a reply in progress.
   */
  async ensureContent(
    target: { tabId: number; fresh: boolean; discarded: boolean },
    mayReload: boolean,
  ): Promise<boolean> {
    const { probeTimeoutMs, contentReadyTimeoutMs, content } = this.deps;
    const { tabId } = target;
    if (target.fresh) return content.waitForContent(tabId, contentReadyTimeoutMs, probeTimeoutMs);
    if (!target.discarded) {
      if ((await content.ping(tabId, probeTimeoutMs)).ok) return true;
      if (!mayReload) return false;
    } else this.deps.log.info(`tab ${tabId} was discarded: reloading it for a command`);
    // Chromium does not inject content scripts into tabs that were open before an extension update.
    await this.deps.api.tabs.reload(tabId).catch(() => undefined);
    return content.waitForContent(tabId, contentReadyTimeoutMs, probeTimeoutMs);
  }

  /** A create that never reached submission: close its tab quietly and give back the previous binding. */
  async discardCreated(workerId: string, tabId: number, previous: BindingRecord | undefined): Promise<void> {
    await this.deps.tabs.unbindCreated(workerId, tabId, previous);
    await this.deps.api.tabs.remove(tabId).catch(() => undefined);
  }
}
