// The browser's tab events for the bindings (docs/extension.md, "Bindings"): a bound tab closed, navigated,
// discarded or replaced moves its worker's binding (binding-moves.ts). Listeners are registered in the background's
// first turn (MV3); each event waits for recovery.
import type { ExtensionApi } from "../lib/browser-api.ts";
import { isChatGptUrl, showsConversation } from "../lib/chatgpt-url.ts";
import type { Logger } from "../lib/logger.ts";
import type { BindingMoves } from "./binding-moves.ts";
import type { BindingStore } from "./binding-store.ts";
import type { ContentChannel } from "./content-channel.ts";
import { guard } from "./guard.ts";

export interface TabEventsDeps {
  readonly api: ExtensionApi;
  readonly log: Logger;
  readonly content: ContentChannel;
  readonly store: BindingStore;
  readonly moves: BindingMoves;
  /** Resolves once the executor has recovered; tab events wait for it. */
  readonly ready: () => Promise<void>;
  /** Runs `fn` after every earlier outbox step. */
  readonly step: <T>(fn: () => Promise<T>) => Promise<T>;
  /** The worker's tab went away: it no longer counts as generating here. */
  readonly tabGone: (workerId: string) => void;
}

export class TabEvents {
  constructor(private readonly deps: TabEventsDeps) {}

  /** Registers the tab listeners; call in the background's first turn (MV3), with the executor's. */
  listen(): void {
    const { api, log } = this.deps;
    api.tabs.onRemoved.addListener((tabId, info) =>
      guard(log, "tab removed", this.onRemoved(tabId, info?.isWindowClosing === true)),
    );
    api.tabs.onUpdated.addListener((tabId, change) => {
      if (change.url !== undefined) guard(log, "tab updated", this.onUrl(tabId, change.url));
      if (change.discarded === true) guard(log, "tab discarded", this.onDiscarded(tabId));
    });
    api.tabs.onReplaced?.addListener((added, removed) =>
      guard(log, "tab replaced", this.onReplaced(added, removed)),
    );
  }

  private async onRemoved(tabId: number, windowClosing: boolean): Promise<void> {
    await this.deps.ready();
    this.deps.content.announced(tabId); // wake anyone waiting for it; the next ping fails
    const binding = await this.deps.store.boundTo(tabId);
    if (binding === undefined) return;
    this.deps.tabGone(binding.workerId);
    // Quitting the browser closes every window, and Chromium tells us (seen in Chromium 156). That is no person
    // closing the conversation: the binding stays, and the next start re-verifies it against the restored tabs
    // (verify). A command meanwhile (a window closed, the browser still running) finds the tab gone and treats
    // it as closed (commandTab).
    if (windowClosing) return;
    await this.deps.moves.leave(binding.workerId, tabId);
  }

  private async onUrl(tabId: number, url: string): Promise<void> {
    await this.deps.ready();
    const binding = await this.deps.store.boundTo(tabId);
    if (binding !== undefined) {
      if (binding.conversationId === undefined) {
        if (isChatGptUrl(url)) await this.deps.moves.learnConversation(binding, url);
        else await this.deps.store.set(binding.workerId, { ...binding, state: "unavailable" });
        return;
      }
      if (showsConversation(url, binding.conversationId)) return;
      // The tab left the worker's conversation (new chat, another conversation, another site).
      await this.deps.moves.leave(binding.workerId, tabId);
    }
    // The person came back to a conversation whose tab went away (in this tab or another).
    const back = await this.deps.moves.comeBack(tabId, url);
    if (back !== undefined) await this.deps.moves.observeTab(back);
  }

  /** Firefox unloads a tab in place (same id); Chromium tells this too for the replacement tab. */
  private async onDiscarded(tabId: number): Promise<void> {
    await this.deps.ready();
    const binding = await this.deps.store.boundTo(tabId);
    if (binding !== undefined)
      guard(this.deps.log, "reloading", this.deps.moves.reviveIfGenerating(binding.workerId));
  }

  /** Chromium discarded the bound tab: it lives on under a new id, without its content script. */
  private async onReplaced(added: number, removed: number): Promise<void> {
    await this.deps.ready();
    this.deps.content.announced(removed);
    const moved = await this.deps.step(async () => {
      const b = await this.deps.store.boundTo(removed);
      if (b === undefined) return undefined;
      return this.deps.store.set(b.workerId, { ...b, tabId: added }, { report: false, inStep: true });
    });
    if (moved === undefined) return;
    this.deps.log.info(`tab ${removed} of ${moved.workerId} was replaced by tab ${added}`);
    const tab = await this.deps.api.tabs.get(added).catch(() => undefined);
    if (
      tab === undefined ||
      (moved.conversationId !== undefined && !showsConversation(tab.url, moved.conversationId))
    )
      return this.deps.moves.leave(moved.workerId, added);
    if (tab.discarded === true)
      guard(this.deps.log, "reloading", this.deps.moves.reviveIfGenerating(moved.workerId));
  }
}
