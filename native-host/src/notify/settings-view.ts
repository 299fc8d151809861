// The notification settings as the settings page sees and sends them (docs/operator-guide.md, "Notifications"):
// secrets masked on the way out, and on the way back a masked (or absent) secret keeps the one stored.
import { maskSecret } from "../../../shared/host-settings.ts";
import {
  type Channel,
  type ChannelStatus,
  type NotifySettings,
  type NotifySettingsView,
  notifySettingsSchema,
  SECRET_FIELDS,
} from "../../../shared/notify-settings.ts";

/** What maskSecret puts in front of the last characters: a value starting so is a mask, never a real secret. */
const MASK_PREFIX = maskSecret("").slice(0, 4);

export const NO_STATUS: ChannelStatus = {
  lastAttemptAt: null,
  lastDeliveredAt: null,
  lastError: null,
  pending: 0,
};

/** The channel with each secret masked: the same fields, so the same type, but no value the schema accepts. */
export function maskedChannel(channel: Channel): Channel {
  const out: Record<string, unknown> = { ...channel };
  for (const field of SECRET_FIELDS[channel.kind]) {
    const value = out[field];
    if (typeof value === "string") out[field] = maskSecret(value);
  }
  return out as Channel;
}

export function notifySettingsView(
  settings: NotifySettings,
  status: (channelId: string) => ChannelStatus,
): NotifySettingsView {
  return {
    channels: settings.channels.map((c) => ({ channel: maskedChannel(c), status: status(c.id) })),
    kinds: settings.kinds,
    quietHours: settings.quietHours,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The settings the page sent, with each secret it left masked or absent taken from the stored channel of the same id
 * and kind (an optional secret sent as null or "" is removed), then validated. The message of a refusal names the
 * field, never a value.
 */
export function settingsFromPage(
  sent: unknown,
  stored: NotifySettings,
): { ok: true; settings: NotifySettings } | { ok: false; message: string } {
  let candidate: unknown = sent;
  if (isRecord(sent) && Array.isArray(sent.channels)) {
    const channels: unknown[] = [];
    for (const c of sent.channels as unknown[]) {
      if (!isRecord(c) || typeof c.kind !== "string" || !(c.kind in SECRET_FIELDS)) {
        channels.push(c);
        continue;
      }
      const kind = c.kind as Channel["kind"];
      const before = stored.channels.find((s) => s.id === c.id && s.kind === kind) as
        Record<string, unknown> | undefined;
      const next: Record<string, unknown> = { ...c };
      for (const field of SECRET_FIELDS[kind]) {
        const value = next[field];
        const kept = before?.[field];
        if (value === undefined || (typeof value === "string" && value.startsWith(MASK_PREFIX))) {
          if (typeof kept === "string") next[field] = kept;
          else if (value !== undefined) {
            return {
              ok: false,
              message: `channel ${String(c.id)}: ${field} is masked but no ${field} is stored for it; enter it again`,
            };
          }
        } else if (value === null || value === "") {
          delete next[field];
        }
      }
      channels.push(next);
    }
    candidate = { ...sent, channels };
  }
  const parsed = notifySettingsSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    return { ok: false, message: `invalid notification settings: ${where}${issue?.message ?? "invalid"}` };
  }
  return { ok: true, settings: parsed.data };
}
