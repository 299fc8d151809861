// Messages between the extension's views (popup, dashboard, options, in-page overlay) and the background, over a
// runtime port, as zod schemas both sides parse. Views never talk to the host directly: the background forwards
// their calls as `ui.request` on the native port and pushes `ui.changed` and connection health back.
import { z } from "zod";
import { errorSchema } from "../../shared/error-codes.ts";
import { HOST_SETTINGS_OPS } from "../../shared/host-settings.ts";
import { NOTIFY_OPS } from "../../shared/notify-settings.ts";
import { OVERLAY_OPERATION_NAMES, PAGE_OPERATION_NAMES } from "../../shared/operations/index.ts";

/** Port names: extension pages, and the overlay's content-script port (restricted to its tab's worker). */
export const UI_PORT = "orchestrator.ui";
export const OVERLAY_PORT = "orchestrator.overlay";

/**
 * Operations an extension page may call (the operator's actions and reads; never a worker's own reports: the contract
 * says which, shared/operations/), and the host's settings and notification channels, which only the browser's
 * native port answers.
 */
export const PAGE_OPERATIONS: readonly string[] = [
  ...PAGE_OPERATION_NAMES,
  ...HOST_SETTINGS_OPS,
  ...NOTIFY_OPS,
];

/**
 * The pages (paths under the extension's base URL) that may read, change and test the notification channels: the
 * settings page shows and edits them, the dashboard shows their health. Not the popup, never the overlay.
 */
export const NOTIFY_PAGES: readonly string[] = [
  "extension/options/options.html",
  "extension/dashboard/dashboard.html",
];

/** The overlay may read and control only the worker bound to its own tab. */
export const OVERLAY_OPERATIONS: readonly string[] = OVERLAY_OPERATION_NAMES;

export const localPrefsSchema = z
  .object({
    /** Show the in-page overlay in managed tabs (it can be hidden everywhere at once). */
    overlay: z.boolean(),
    /** Desktop notification when a worker starts to need a person or is paused for a stall. */
    notifications: z.boolean(),
    /**
     * Offer "Keep this conversation going" in the overlay's collapsed badge on chatgpt.com conversations no worker
     * holds. Off by default: without it the overlay exists only in managed tabs.
     */
    offerAdopt: z.boolean(),
  })
  .strict();
export type LocalPrefs = z.infer<typeof localPrefsSchema>;
export const DEFAULT_LOCAL_PREFS: LocalPrefs = { overlay: true, notifications: false, offerAdopt: false };
/** What storage may hold: a version before a preference existed stored fewer keys (defaults fill them). */
export const storedLocalPrefsSchema = localPrefsSchema.partial();

/**
 * "Keep this conversation going" (`conversation_adopt` through the background). The conversation is never named by
 * the view: the background takes it from the tab (the popup's active tab, or the overlay's own sender tab).
 */
export const adoptRequestSchema = z.object({
  objective: z.string().max(2_000).optional(),
  /** An existing run to join; a new run otherwise (extension pages only). */
  runId: z.string().min(1).max(200).optional(),
});
/** The overlay may only type an objective; anything else it sends is refused. */
export const overlayAdoptRequestSchema = adoptRequestSchema.pick({ objective: true }).strict();

/** "Release" (extension pages only): stops the adopted worker (history kept) and forgets its tab. */
export const releaseRequestSchema = z.object({ workerId: z.string().min(1).max(200) }).strict();

/** This browser's tab settings (the settings page), answered by the background itself: they never reach the host. */
export const TAB_SETTINGS_GET_OP = "tab_settings_get";
/** The settings → the settings now. */
export const TAB_SETTINGS_SET_OP = "tab_settings_set";

export const tabSettingsSchema = z
  .object({
    /**
     * A worker whose tab was closed (or that left its conversation) gets the conversation opened again in a
     * background tab when it next needs it; off: it waits as "Tab closed" until a person opens it.
     */
    reopenClosedTabs: z.boolean(),
  })
  .strict();
export type TabSettings = z.infer<typeof tabSettingsSchema>;

const connectionStatus = z.enum([
  "connecting",
  "connected",
  "reconnecting",
  "host-not-installed",
  "incompatible",
]);
export type ConnectionStatus = z.infer<typeof connectionStatus>;

export const uiStatusSchema = z
  .object({
    connection: connectionStatus,
    error: z.string().max(2_000).optional(),
    nextRetryAt: z.number().optional(),
    hostVersion: z.string().max(50).optional(),
    executorId: z.string().max(200),
    browser: z.string().max(50),
    extensionVersion: z.string().max(50),
    prefs: localPrefsSchema,
    /** Tabs generating now, and this browser's limit. */
    generating: z.number().int().nonnegative(),
    maxGenerating: z.number().int().positive(),
    /** The worker bound to the active tab (popup) or to the overlay's own tab; null when there is none. */
    tabWorkerId: z.string().max(200).nullable(),
    /**
     * The popup's active tab, or the overlay's own tab (only while `offerAdopt` is on), shows a chatgpt.com
     * conversation (`/c/<id>`, not a new or transient chat) no worker holds: it can be adopted.
     */
    tabAdoptable: z.boolean().optional(),
    /** Managed tabs this browser holds: worker id → binding state (diagnostics). */
    bindings: z
      .array(z.object({ workerId: z.string(), state: z.string(), url: z.string().optional() }).strict())
      .max(1_000),
  })
  .strict();
export type UiStatus = z.infer<typeof uiStatusSchema>;

// ── view → background ───────────────────────────────────────────────────────────────────────────

export const viewMessageSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("call"),
      id: z.number().int().nonnegative(),
      op: z.string().min(1).max(100),
      params: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
  /** Try the native port again now (the "Reconnect" button). */
  z.object({ type: z.literal("retry") }).strict(),
  z.object({ type: z.literal("prefs.set"), prefs: localPrefsSchema.partial().strict() }).strict(),
  /** This browser's limit of tabs generating at once (an executor setting). */
  z.object({ type: z.literal("concurrency.set"), maxGenerating: z.number().int().min(1).max(20) }).strict(),
  /** Bring the worker's conversation tab to the front, or open its URL. */
  z
    .object({
      type: z.literal("open-conversation"),
      workerId: z.string().min(1).max(200),
      /** The host's last known URL, opened in a new tab when no tab holds the worker (chatgpt.com only). */
      url: z.string().max(2_000).optional(),
    })
    .strict(),
]);
export type ViewMessage = z.infer<typeof viewMessageSchema>;

// ── background → view ───────────────────────────────────────────────────────────────────────────

export const backgroundToViewSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("status"), status: uiStatusSchema }).strict(),
  z
    .object({
      type: z.literal("result"),
      id: z.number().int().nonnegative(),
      ok: z.boolean(),
      result: z.unknown().optional(),
      error: errorSchema.optional(),
    })
    .strict(),
  /** Durable state changed on the host: re-read what is shown. */
  z.object({ type: z.literal("changed"), eventSeq: z.number().int().nonnegative() }).strict(),
]);
export type BackgroundToView = z.infer<typeof backgroundToViewSchema>;
