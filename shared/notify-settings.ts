// Notifications that reach the person away from the machine (docs/operator-guide.md, "Notifications"): the channels
// and choices kept under `notifications` in config.json, their masked view for the settings page with each channel's
// delivery status, the versioned payload, and the native-port-only requests that read, change and test them.
import { z } from "zod";

export const NOTIFY_SETTINGS_OP = "notify_settings";
export const NOTIFY_SETTINGS_SET_OP = "notify_settings_set";
export const NOTIFY_TEST_OP = "notify_test";
/** Answered only on the browser's own native port, like host_settings: they carry secrets, so MCP never sees them. */
export const NOTIFY_OPS = [NOTIFY_SETTINGS_OP, NOTIFY_SETTINGS_SET_OP, NOTIFY_TEST_OP] as const;

export const MAX_CHANNELS = 10;
export const DEFAULT_NTFY_SERVER = "https://ntfy.sh";
export const DEFAULT_TELEGRAM_API = "https://api.telegram.org";

const channelId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "lowercase letters, digits and dashes, at most 40");
function parses(u: string): boolean {
  try {
    new URL(u);
    return true;
  } catch {
    return false;
  }
}
const httpUrl = z
  .string()
  .max(2_000)
  .refine((u) => /^https?:\/\//i.test(u) && parses(u), "an http(s) URL");
const base = { id: channelId, name: z.string().min(1).max(80), enabled: z.boolean() };

export const webhookChannelSchema = z
  .object({
    ...base,
    kind: z.literal("webhook"),
    /** Receives the JSON payload by POST. Treated as a secret (such URLs often carry a token). */
    url: httpUrl,
  })
  .strict();

export const ntfyChannelSchema = z
  .object({
    ...base,
    kind: z.literal("ntfy"),
    server: httpUrl.default(DEFAULT_NTFY_SERVER),
    /** Anyone who knows a topic on a public server can read it: a secret. */
    topic: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and -, at most 64"),
    /** An access token for a protected topic (sent as a Bearer token). */
    token: z.string().min(1).max(200).optional(),
  })
  .strict();

export const telegramChannelSchema = z
  .object({
    ...base,
    kind: z.literal("telegram"),
    /** From @BotFather, e.g. 123456:ABC-…: a secret. */
    botToken: z.string().regex(/^[0-9]{3,20}:[A-Za-z0-9_-]{20,100}$/, "a bot token like 123456:ABC…"),
    /** The chat (or channel) the bot writes to: a number, or @channelname. */
    chatId: z.string().regex(/^(-?[0-9]{1,20}|@[A-Za-z0-9_]{4,64})$/, "a chat id number or @channel"),
    apiBase: httpUrl.default(DEFAULT_TELEGRAM_API),
  })
  .strict();

export const channelSchema = z.discriminatedUnion("kind", [
  webhookChannelSchema,
  ntfyChannelSchema,
  telegramChannelSchema,
]);
export type Channel = z.infer<typeof channelSchema>;
export type ChannelKind = Channel["kind"];

/** Which secret fields each kind has: masked in every view, never logged. */
export const SECRET_FIELDS: Readonly<Record<ChannelKind, readonly string[]>> = {
  webhook: ["url"],
  ntfy: ["topic", "token"],
  telegram: ["botToken"],
};

/** What is sent; each kind can be switched off. */
export const notifyKindsSchema = z
  .object({
    /** A worker is held and needs a person (a question, an approval card, a page error, a cap…). */
    needsYou: z.boolean().default(true),
    /** A run completed or failed. */
    runEnded: z.boolean().default(true),
    /** Each worker's completion or failure. */
    workerEnded: z.boolean().default(false),
    /** A short "resolved" once a Needs-you episode is over. */
    resolved: z.boolean().default(false),
    /** A Pause the operator made themselves (never by default: they know). */
    operatorPause: z.boolean().default(false),
  })
  .strict();
export type NotifyKinds = z.infer<typeof notifyKindsSchema>;

const clockTime = z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "HH:MM, 24-hour");

export const notifySettingsSchema = z
  .object({
    channels: z.array(channelSchema).max(MAX_CHANNELS).default([]),
    kinds: notifyKindsSchema.default({
      needsYou: true,
      runEnded: true,
      workerEnded: false,
      resolved: false,
      operatorPause: false,
    }),
    /** In the backend's local time; messages decided then wait until it ends (start > end spans midnight). */
    quietHours: z.object({ start: clockTime, end: clockTime }).strict().nullable().default(null),
  })
  .strict()
  .refine((s) => new Set(s.channels.map((c) => c.id)).size === s.channels.length, "channel ids must differ");
export type NotifySettings = z.infer<typeof notifySettingsSchema>;

export const DEFAULT_NOTIFY_SETTINGS: NotifySettings = notifySettingsSchema.parse({});

/** A channel's last delivery as the host saw it: what the dashboard, the settings page and doctor show. */
export const channelStatusSchema = z
  .object({
    lastAttemptAt: z.number().nullable(),
    lastDeliveredAt: z.number().nullable(),
    /** The last failure in words (no secret in it), null once a delivery succeeded after it. */
    lastError: z.string().nullable(),
    /** Messages decided and not yet delivered (waiting to retry, or for quiet hours to end). */
    pending: z.number().int().nonnegative(),
  })
  .strict();
export type ChannelStatus = z.infer<typeof channelStatusSchema>;

/** A channel as views see it: the same fields, its secrets masked (so they are any text here). */
export const channelViewSchema = z.discriminatedUnion("kind", [
  webhookChannelSchema.extend({ url: z.string() }),
  ntfyChannelSchema.extend({ topic: z.string(), token: z.string().optional() }),
  telegramChannelSchema.extend({ botToken: z.string() }),
]);
export type ChannelView = z.infer<typeof channelViewSchema>;

/** The settings as the settings page sees them: secrets masked (`maskSecret`), each channel with its status. */
export const notifySettingsViewSchema = z
  .object({
    channels: z.array(z.object({ channel: channelViewSchema, status: channelStatusSchema })),
    kinds: notifyKindsSchema,
    quietHours: z.object({ start: z.string(), end: z.string() }).nullable(),
  })
  .strict();
export type NotifySettingsView = z.infer<typeof notifySettingsViewSchema>;

/** `notify_settings_set`: the whole new settings; a secret given as its masked value keeps the stored one. */
export const notifySettingsSetParamsSchema = z.object({ settings: z.unknown() }).strict();
export const notifyTestParamsSchema = z.object({ channelId: channelId }).strict();
export const notifyTestResultSchema = z.object({ ok: z.boolean(), detail: z.string() }).strict();

/** What a notification is about. */
export const NOTIFICATION_KINDS = [
  "needs_you",
  "resolved",
  "run_completed",
  "run_failed",
  "worker_completed",
  "worker_failed",
  "test",
] as const;

/** The webhook's JSON body, version 1 (docs/operator-guide.md, "Notifications"): names, states and reasons only. */
export const notificationPayloadSchema = z
  .object({
    version: z.literal(1),
    kind: z.enum(NOTIFICATION_KINDS),
    /** Stable per episode: a receiver can deduplicate on it too. */
    episode: z.string(),
    /** When the notification was decided (epoch ms). */
    at: z.number(),
    /** One line for a person: "Needs you: /root/api — ChatGPT asks for a human check". */
    title: z.string(),
    run: z.object({ id: z.string(), name: z.string() }).nullable(),
    worker: z.object({ id: z.string(), name: z.string(), path: z.string() }).nullable(),
    /** The state label (Needs you, Complete, Failed…). */
    state: z.string().nullable(),
    /** The liveness reason (question, approval, signed_out…) and its words, for needs_you and resolved. */
    reason: z.string().nullable(),
    reasonText: z.string().nullable(),
    remedy: z.string().nullable(),
    /** Since when the state holds (epoch ms). */
    since: z.number().nullable(),
    /** Opens the dashboard at the worker (Chromium's extension URL). */
    link: z.string().nullable(),
  })
  .strict();
export type NotificationPayload = z.infer<typeof notificationPayloadSchema>;
