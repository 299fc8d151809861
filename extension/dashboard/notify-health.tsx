// The dashboard's Notifications line: each enabled channel's last delivery or failure in words, from the host's
// `notify_settings` (re-read with every change and every half minute); nothing when no channel is on.
import type { JSX } from "preact";
import type { NotifySettingsView } from "../../shared/notify-settings.ts";
import { channelName, deliveryWords, kindWords, text, type RawChannel } from "../ui/notify-words.ts";

/** How often the line re-reads by itself: deliveries happen after the change that decided them. */
export const NOTIFY_HEALTH_REFRESH_MS = 30_000;

function enabledChannels(view: NotifySettingsView | undefined): NotifySettingsView["channels"] {
  return view?.channels.filter((c) => c.channel.enabled) ?? [];
}

/** The failing channels as facts for the dashboard's live region: a channel starting to fail is announced. */
export function notifyFacts(view: NotifySettingsView | undefined): [string, string][] {
  return enabledChannels(view)
    .filter((c) => c.status.lastError !== null)
    .map((c) => {
      const ch = c.channel as RawChannel;
      return [`notify:${text(ch, "id")}`, `Notifications to ${channelName(ch)} are failing`];
    });
}

export function NotifyHealth(props: {
  view: NotifySettingsView | undefined;
  now: number;
}): JSX.Element | null {
  const channels = enabledChannels(props.view);
  if (channels.length === 0) return null;
  return (
    <p data-testid="notify-health">
      <strong>Notifications:</strong>{" "}
      {channels.map(({ channel, status }, i) => {
        const ch = channel as RawChannel;
        const d = deliveryWords(status, props.now);
        return (
          <span key={text(ch, "id")} data-testid="notify-health-channel">
            {i > 0 ? " · " : null}
            <span class={d.failing ? "state-failed" : undefined}>
              <span aria-hidden="true">{d.failing ? "✕ " : "● "}</span>
              {channelName(ch)} ({kindWords(ch.kind)}): {d.text}
            </span>
          </span>
        );
      })}{" "}
      <span class="muted">(Settings → Notifications)</span>
    </p>
  );
}
