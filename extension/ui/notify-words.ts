// The notification channels in words, for the settings page and the dashboard's health line: a channel's kind and
// its last delivery ("Delivered 3 min ago", "Failing: HTTP 500", "2 waiting"), read from the host's masked view.
import type { ChannelKind, ChannelStatus } from "../../shared/notify-settings.ts";

export const CHANNEL_KIND_WORDS: Readonly<Record<ChannelKind, string>> = {
  webhook: "Webhook",
  ntfy: "ntfy",
  telegram: "Telegram",
};

/** A channel as the host's view carries it: secret fields masked, so it is read field by field. */
export type RawChannel = Readonly<Record<string, unknown>>;

export function isChannelKind(kind: unknown): kind is ChannelKind {
  return typeof kind === "string" && Object.hasOwn(CHANNEL_KIND_WORDS, kind);
}

export function kindWords(kind: unknown): string {
  return isChannelKind(kind) ? CHANNEL_KIND_WORDS[kind] : `${String(kind)} (unknown kind)`;
}

/** A field of a raw channel as text ("" when absent). */
export function text(channel: RawChannel, key: string): string {
  const v = channel[key];
  return typeof v === "string" ? v : "";
}

export function channelName(channel: RawChannel): string {
  return text(channel, "name") || text(channel, "id");
}

/** Coarse on purpose ("3 min ago", "5 h ago"): a delivery status is read at a glance. */
export function sinceWords(at: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - at) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

export interface DeliveryWords {
  readonly text: string;
  /** The last attempt failed: shown with ✕ and announced, never by colour alone. */
  readonly failing: boolean;
}

/** A channel's last delivery as the host reports it; a failure wins, then what still waits, then the last success. */
export function deliveryWords(status: ChannelStatus, now: number): DeliveryWords {
  const waiting = status.pending > 0 ? `${status.pending} waiting` : undefined;
  if (status.lastError !== null)
    return { text: [`Failing: ${status.lastError}`, waiting].filter(Boolean).join(" · "), failing: true };
  const since = status.lastDeliveredAt === null ? undefined : sinceWords(status.lastDeliveredAt, now);
  if (waiting !== undefined)
    return { text: since ? `${waiting} · last delivered ${since}` : waiting, failing: false };
  return { text: since ? `Delivered ${since}` : "Nothing sent yet", failing: false };
}
