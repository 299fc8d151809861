// The settings page's side of notifications (docs/operator-guide.md, "Notifications"): the masked view with each
// channel's status, saving what the page sent (secrets it left masked keep the stored ones) to config.json, and the
// test message. Only the browser's own native port reaches it (bridge/ui-requests.ts).
import type { ErrorPayload } from "../../../shared/error-codes.ts";
import type { NotifySettingsView } from "../../../shared/notify-settings.ts";
import { saveNotifySettings } from "../config/host-config.ts";
import type { StoreLogger } from "../store/store-types.ts";
import type { Notifier } from "./notifier.ts";
import { notifySettingsView, settingsFromPage } from "./settings-view.ts";

export interface NotifySettingsAccess {
  view(): NotifySettingsView;
  set(settings: unknown): NotifySettingsView | ErrorPayload;
  test(channelId: string): Promise<{ ok: boolean; detail: string } | null>;
}

export function notifySettingsAccess(
  dir: string,
  notifier: Notifier,
  log: StoreLogger,
): NotifySettingsAccess {
  const view = () => notifySettingsView(notifier.settings, (id) => notifier.channelStatus(id));
  return {
    view,
    set(sent) {
      const next = settingsFromPage(sent, notifier.settings);
      if (!next.ok) return { code: "INVALID_INPUT", message: next.message };
      try {
        saveNotifySettings(dir, next.settings);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log.warn(`could not save the notification settings: ${message}`);
        return { code: "INTERNAL", message: `could not save the notification settings: ${message}` };
      }
      notifier.setSettings(next.settings);
      const on = next.settings.channels.filter((c) => c.enabled).length;
      log.info(`notification settings saved: ${next.settings.channels.length} channels (${on} on)`);
      return view();
    },
    test: (channelId) => notifier.test(channelId),
  };
}
