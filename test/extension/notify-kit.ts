// Fixtures for the notification views: the host's masked view of three channels (one delivered, one failing, one
// waiting) and a ScriptedBackground that answers `notify_settings_set` as the host does, with the view of what it
// was sent (statuses kept by channel id).
import { maskSecret } from "../../shared/host-settings.ts";
import type { ChannelStatus, ChannelView, NotifySettingsView } from "../../shared/notify-settings.ts";
import type { ScriptedBackground } from "./ui-kit.ts";

export const BOT_TOKEN = "123456:AAH-secret-token-0000abcd";
export const WEBHOOK_URL = "https://hooks.example.com/services/T000/B000/hook9876";
export const TOPIC = "orchestrator-me-q4x7z2";

export const OK: ChannelStatus = { lastAttemptAt: null, lastDeliveredAt: null, lastError: null, pending: 0 };

/** Three channels as the host shows them: secrets masked, statuses relative to `now`. */
export function maskedView(now: number): NotifySettingsView {
  return {
    channels: [
      {
        channel: {
          id: "telegram",
          name: "Phone",
          enabled: true,
          kind: "telegram",
          botToken: maskSecret(BOT_TOKEN),
          chatId: "-100123456",
          apiBase: "https://api.telegram.org",
        },
        status: { ...OK, lastAttemptAt: now - 190_000, lastDeliveredAt: now - 190_000 },
      },
      {
        channel: {
          id: "webhook",
          name: "Team hook",
          enabled: true,
          kind: "webhook",
          url: maskSecret(WEBHOOK_URL),
        },
        status: {
          lastAttemptAt: now - 5_000,
          lastDeliveredAt: null,
          lastError: "HTTP 500 from hooks.example.com",
          pending: 1,
        },
      },
      {
        channel: {
          id: "ntfy",
          name: "ntfy",
          enabled: false,
          kind: "ntfy",
          server: "https://ntfy.sh",
          topic: maskSecret(TOPIC),
        },
        status: { ...OK, pending: 2 },
      },
    ],
    kinds: { needsYou: true, runEnded: true, workerEnded: false, resolved: false, operatorPause: false },
    quietHours: null,
  };
}

/** Answers `notify_settings` with `view` and `notify_settings_set` with the view of what was sent. */
export function scriptNotify(
  bg: ScriptedBackground,
  initial: NotifySettingsView,
): { current: () => NotifySettingsView } {
  let view = initial;
  bg.answer("notify_settings", () => view);
  bg.answer("notify_settings_set", (p: Record<string, unknown>) => {
    const s = p.settings as {
      channels: Record<string, unknown>[];
      kinds: NotifySettingsView["kinds"];
      quietHours: NotifySettingsView["quietHours"];
    };
    const statuses = new Map(view.channels.map((c) => [(c.channel as Record<string, unknown>).id, c.status]));
    view = {
      channels: s.channels.map((channel) => ({
        // The host masks what it stores: a new secret comes back masked too.
        channel: Object.fromEntries(
          Object.entries(channel).map(([k, v]) =>
            ["botToken", "url", "topic", "token"].includes(k) && typeof v === "string" && !v.startsWith("•")
              ? [k, maskSecret(v)]
              : [k, v],
          ),
        ) as ChannelView,
        status: statuses.get(channel.id) ?? OK,
      })),
      kinds: s.kinds,
      quietHours: s.quietHours,
    };
    return view;
  });
  return { current: () => view };
}
