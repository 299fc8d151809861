// Keeps the bound tab of each worker out of the browser's automatic discarding, and gives a tab that stops being
// bound back to it: a discarded tab loses its content script, so nothing of the worker would be seen until reloaded.
import type { ExtensionApi } from "../lib/browser-api.ts";
import { errorText, type Logger } from "../lib/logger.ts";
import type { BindingRecord } from "./db.ts";

export class DiscardExemption {
  private warned = false;

  constructor(private readonly deps: { readonly api: ExtensionApi; readonly log: Logger }) {}

  /** A binding changed from `previous` to `next`: the exemption moves with the bound tab. */
  async follows(previous: BindingRecord | undefined, next: BindingRecord): Promise<void> {
    const was = previous?.state === "bound" ? previous.tabId : undefined;
    const now = next.state === "bound" ? next.tabId : undefined;
    if (was !== undefined && was !== now) await this.exempt(was, false);
    if (now !== undefined && now !== was) await this.exempt(now, true);
  }

  /** Keeps a managed tab out of the browser's automatic discarding (`keep`), or gives it back. */
  async exempt(tabId: number, keep: boolean): Promise<void> {
    const { api, log } = this.deps;
    try {
      await api.tabs.update(tabId, { autoDiscardable: !keep });
    } catch (e) {
      // A tab that is gone needs nothing. A browser without the property (Firefox for Android) is noted once.
      if (this.warned || !(await this.exists(tabId))) return;
      this.warned = true;
      log.info(`tabs cannot be kept from automatic discarding in this browser: ${errorText(e)}`);
    }
  }

  private async exists(tabId: number): Promise<boolean> {
    try {
      await this.deps.api.tabs.get(tabId);
      return true;
    } catch {
      return false;
    }
  }
}
