// The tabs as the views see them: which worker a tab belongs to, the popup's active tab, the overlay's own tab (from
// the browser's sender, never a tab id the page could name), and bringing a worker's conversation to the front.
import type { TabInfo } from "../lib/browser-api.ts";
import { conversationIdOf, isChatGptUrl } from "../lib/chatgpt-url.ts";
import { errorText, type Logger } from "../lib/logger.ts";
import type { LocalPrefs } from "../ui/ui-protocol.ts";
import type { UiBridgeApi, UiHostLink, View } from "./ui-bridge-types.ts";

export interface UiTabsDeps {
  readonly api: UiBridgeApi;
  readonly host: UiHostLink;
  readonly log: Logger;
}

export class UiTabs {
  constructor(private readonly deps: UiTabsDeps) {}

  /** The worker whose bound tab is `tabId`, or null. */
  async workerOfTab(tabId: number | undefined): Promise<string | null> {
    if (tabId === undefined) return null;
    const bindings = await this.deps.host.bindings();
    return bindings.find((b) => b.tabId === tabId && b.state === "bound")?.workerId ?? null;
  }

  async activeTabInfo(): Promise<TabInfo | undefined> {
    const [tab] = await this.deps.api.tabs.query({ active: true, lastFocusedWindow: true });
    return tab;
  }

  /** The overlay's own tab as the browser sees it now (its URL follows ChatGPT's pushState), or undefined if gone. */
  async tabOf(tabId: number | undefined): Promise<TabInfo | undefined> {
    if (tabId === undefined) return undefined;
    try {
      return await this.deps.api.tabs.get(tabId);
    } catch (e) {
      this.deps.log.info(`tab ${tabId}: ${errorText(e)}`);
      return undefined;
    }
  }

  /** The popup's "current conversation": the active tab of the last focused window, and whether it can be adopted. */
  async activeTab(): Promise<{ workerId: string | null; adoptable: boolean }> {
    try {
      const tab = await this.activeTabInfo();
      const workerId = await this.workerOfTab(tab?.id);
      return { workerId, adoptable: workerId === null && conversationIdOf(tab?.url) !== undefined };
    } catch (e) {
      this.deps.log.warn(`active tab: ${errorText(e)}`);
      return { workerId: null, adoptable: false };
    }
  }

  /** The overlay's tab: its worker, and whether to offer adoption (only asked for while the user enabled that). */
  async ownTab(
    tabId: number | undefined,
    prefs: LocalPrefs,
  ): Promise<{ workerId: string | null; adoptable: boolean }> {
    const workerId = await this.workerOfTab(tabId);
    if (workerId !== null || !prefs.offerAdopt) return { workerId, adoptable: false };
    return { workerId, adoptable: conversationIdOf((await this.tabOf(tabId))?.url) !== undefined };
  }

  /** Brings the worker's tab forward, or opens its conversation (the overlay: only its own worker's). */
  async openConversation(view: View, workerId: string, url: string | undefined): Promise<void> {
    const { api } = this.deps;
    if (view.kind === "overlay" && (await this.workerOfTab(view.tabId)) !== workerId) return;
    const binding = (await this.deps.host.bindings()).find((b) => b.workerId === workerId);
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
}
