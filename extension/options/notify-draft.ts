// The settings page's notification edits as pure functions: the fields of each channel kind with their words, a
// channel as its form edits it, the channel sent back for it (a secret left as its masked value goes back masked,
// so the host keeps the stored one), and the whole settings that `notify_settings_set` is sent.
import {
  type ChannelKind,
  DEFAULT_NTFY_SERVER,
  DEFAULT_TELEGRAM_API,
  type NotifyKinds,
  type NotifySettingsView,
} from "../../shared/notify-settings.ts";
import { isChannelKind, text, type RawChannel } from "../ui/notify-words.ts";

export interface FieldSpec {
  readonly key: string;
  readonly label: string;
  readonly help: string;
  /** Shown masked by the host; left untouched, the stored value is kept. */
  readonly secret: boolean;
  readonly optional: boolean;
  /** Under "Advanced" (only tests and self-hosted set-ups change it). */
  readonly advanced?: boolean;
  /** What a new channel starts with. */
  readonly initial?: string;
}

export const KIND_FIELDS: Readonly<Record<ChannelKind, readonly FieldSpec[]>> = {
  webhook: [
    {
      key: "url",
      label: "Webhook URL",
      help: "Receives each notification as a JSON POST (payload version 1, see the operator guide). Kept as a secret: such URLs often carry a token.",
      secret: true,
      optional: false,
    },
  ],
  ntfy: [
    {
      key: "server",
      label: "ntfy server",
      help: "The public server, or your own.",
      secret: false,
      optional: false,
      initial: DEFAULT_NTFY_SERVER,
    },
    {
      key: "topic",
      label: "Topic",
      help: "Letters, digits, _ and -, at most 64. Anyone who knows a topic on a public server can read it: choose one nobody can guess.",
      secret: true,
      optional: false,
    },
    {
      key: "token",
      label: "Access token",
      help: "For a protected topic (sent as a Bearer token). To remove a stored token, remove the channel and add it again.",
      secret: true,
      optional: true,
    },
  ],
  telegram: [
    {
      key: "botToken",
      label: "Bot token",
      help: "From @BotFather, like 123456:ABC-DEF…",
      secret: true,
      optional: false,
    },
    {
      key: "chatId",
      label: "Chat id",
      help: "The chat the bot writes to: a number (a group's starts with -), or @channelname. The bot must be in it.",
      secret: false,
      optional: false,
    },
    {
      key: "apiBase",
      label: "API base URL",
      help: "Where the Bot API is reached; change it only for a local Bot API server or a test receiver.",
      secret: false,
      optional: false,
      advanced: true,
      initial: DEFAULT_TELEGRAM_API,
    },
  ],
};

/** A channel in its form: `id` null while it is new. */
export interface ChannelDraft {
  readonly id: string | null;
  readonly kind: ChannelKind;
  readonly name: string;
  readonly enabled: boolean;
  /** Every kind's fields by key, so switching the kind while adding loses nothing typed. */
  readonly values: Readonly<Record<string, string>>;
  /** The values as the host sent them (masked secrets), to tell an untouched secret from a new one. */
  readonly stored: Readonly<Record<string, string>>;
}

export function newDraft(kind: ChannelKind = "webhook"): ChannelDraft {
  const values: Record<string, string> = {};
  for (const fields of Object.values(KIND_FIELDS)) for (const f of fields) values[f.key] = f.initial ?? "";
  return { id: null, kind, name: "", enabled: true, values, stored: {} };
}

/** The form for a channel the host sent; undefined for a kind this extension does not know (a newer host). */
export function draftOf(channel: RawChannel): ChannelDraft | undefined {
  const kind = channel.kind;
  if (!isChannelKind(kind)) return undefined;
  const values: Record<string, string> = {};
  for (const f of KIND_FIELDS[kind]) values[f.key] = text(channel, f.key);
  return {
    id: text(channel, "id"),
    kind,
    name: text(channel, "name"),
    enabled: channel.enabled === true,
    values,
    stored: { ...values },
  };
}

/** An id for a new channel: its kind, numbered when taken (lowercase, digits and dashes, as the host requires). */
export function newChannelId(kind: ChannelKind, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(kind)) return kind;
  for (let n = 2; ; n += 1) if (!used.has(`${kind}-${n}`)) return `${kind}-${n}`;
}

/** The channel sent for a draft: trimmed; an empty optional field is left out (the host keeps a stored secret). */
export function channelOf(draft: ChannelDraft, id: string): RawChannel {
  const out: Record<string, unknown> = {
    id,
    name: draft.name.trim(),
    enabled: draft.enabled,
    kind: draft.kind,
  };
  for (const f of KIND_FIELDS[draft.kind]) {
    const value = (draft.values[f.key] ?? "").trim();
    if (value === "" && f.optional) continue;
    out[f.key] = value;
  }
  return out;
}

/** What `notify_settings_set` carries: the whole settings, secrets as the host sent them unless changed. */
export interface SettingsToSend {
  readonly channels: readonly RawChannel[];
  readonly kinds: NotifyKinds;
  readonly quietHours: { readonly start: string; readonly end: string } | null;
}

export function settingsOf(view: NotifySettingsView): SettingsToSend {
  return {
    channels: view.channels.map((c) => c.channel as RawChannel),
    kinds: view.kinds,
    quietHours: view.quietHours,
  };
}

/** The settings with one channel replaced (by id) or added at the end. */
export function withChannel(settings: SettingsToSend, channel: RawChannel): SettingsToSend {
  const id = channel.id;
  const at = settings.channels.findIndex((c) => c.id === id);
  const channels =
    at < 0 ? [...settings.channels, channel] : settings.channels.map((c, i) => (i === at ? channel : c));
  return { ...settings, channels };
}

export function withoutChannel(settings: SettingsToSend, id: string): SettingsToSend {
  return { ...settings, channels: settings.channels.filter((c) => c.id !== id) };
}
