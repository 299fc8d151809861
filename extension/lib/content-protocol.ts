// Runtime messages between the background and the content script in a chatgpt.com tab, as zod schemas. Both
// sides parse what they receive: the content script runs beside an untrusted page (docs/extension.md, "Trust").
import { conversationStateSchema } from "../../shared/executor-states.ts";
import { continuationStatusSchema } from "../../shared/continuation-block.ts";
import { z } from "zod";
import { continuationBlockReportSchema } from "../../shared/continuation-block-report.ts";
import { MAX_HANDOFF_BRIEF_CHARS } from "../../shared/handoff-block.ts";

const text = (max: number) => z.string().max(max);
const conversationState = conversationStateSchema;

const stateReportShape = {
  state: conversationState,
  errorCode: text(100).optional(),
  url: text(2_000).optional(),
  continuationStatus: continuationStatusSchema.optional(),
  /** With the report that ends an assistant turn: its block as a hashed report (zero-setup mode, docs/prompts.md). */
  continuationBlock: continuationBlockReportSchema.optional(),
  /** With RATE_LIMITED / USAGE_CAP: when the page says the limit resets (epoch ms), if it says so (docs/adapter.md). */
  resetAt: z.number().int().positive().optional(),
  /** When the page's evidence for this state appeared (epoch ms): for idle, the page's own end of turn (docs/adapter.md). */
  since: z.number().int().positive().optional(),
  /**
   * Only with the idle report that ends a turn (the bridge drops it from any other): the handoff block's text in the
   * newest answer (docs/adapter.md). Forwarded to the host, never stored by the extension.
   */
  handoffBrief: z.string().min(1).max(MAX_HANDOFF_BRIEF_CHARS).optional(),
  /** Only with the idle report that ends a turn: the conversation's text length (a size for the rollover budget). */
  visibleChars: z.number().int().nonnegative().optional(),
};

/** What the page adapter observed: the content of a `conversation.state`, without worker or sequence. */
export const stateReportSchema = z.object(stateReportShape).strict();

/** The adapter's own report carries more (its layout guess): only the fields above leave the page. */
export const adapterReportSchema = z.object(stateReportShape);

/** `create`: first message of a new chat; `send`: a follow-up when idle; `steer`: while generating. */
export const submitModeSchema = z.enum(["create", "send", "steer"]);

export const submitResultSchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("submitted"), url: text(2_000).optional() }).strict(),
  z
    .object({
      outcome: z.literal("failed"),
      errorCode: text(100),
      detail: text(2_000).optional(),
      /** `before-submit`: provably nothing was sent. `after-click`: the send control was used; delivery unknown. */
      phase: z.enum(["before-submit", "after-click"]),
    })
    .strict(),
]);

// ── content script → background ─────────────────────────────────────────────────────────────────

export const contentMessageSchema = z.discriminatedUnion("type", [
  /**
   * Sent when the content script starts, and again when the background says the tab's binding changed (`bg.watch`):
   * the answer says whether the tab is a worker's, and the page is watched only then (docs/extension.md, "Watching").
   * `url`: what the page shows as it asks (the browser's own record of the tab's URL can lag a pushState).
   */
  z.object({ type: z.literal("content.hello"), url: text(2_000).optional() }).strict(),
  /** A coalesced observation; the background adds worker id and sequence and forwards it. Answered like hello. */
  z.object({ type: z.literal("content.state"), report: stateReportSchema }).strict(),
]);

/** The answer to `content.hello` and `content.state`: whether this tab is a worker's (its reports are used). */
export const contentHelloReplySchema = z.object({ managed: z.boolean() }).strict();

// ── background → content script ─────────────────────────────────────────────────────────────────

export const backgroundMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("bg.ping") }).strict(),
  z
    .object({
      type: z.literal("bg.submit"),
      commandId: text(200),
      /** The prompt with the marker line already embedded. */
      text: text(110_000),
      marker: text(100),
      mode: submitModeSchema,
      /** Epoch ms after which the page must not click Send (DEADLINE_EXCEEDED instead). */
      deadlineAt: z.number().int().optional(),
      /** For a follow-up: the conversation the page must be showing, or nothing is submitted. */
      expectUrl: text(2_000).optional(),
    })
    .strict(),
  /** Never submits: what this content script knows of a command it was asked to submit. */
  z.object({ type: z.literal("bg.submit-status"), commandId: text(200) }).strict(),
  z.object({ type: z.literal("bg.has-marker"), marker: text(100) }).strict(),
  /** The tab's binding changed (bound, or no longer): the content script asks again with `content.hello`. */
  z.object({ type: z.literal("bg.watch") }).strict(),
]);

export const pingReplySchema = z
  .object({
    ok: z.literal(true),
    url: text(2_000),
    state: stateReportSchema.optional(),
    /** Whether the page adapter watches the page (only a worker's tab is watched; docs/extension.md, "Watching"). */
    watching: z.boolean().optional(),
    /** The conversation's title as the page shows it: a name for an adopted worker, never transcript text. */
    title: text(80).optional(),
  })
  .strict();

export const submitStatusReplySchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("unknown") }).strict(),
  z.object({ status: z.literal("in-flight") }).strict(),
  z.object({ status: z.literal("done"), result: submitResultSchema }).strict(),
]);

export const hasMarkerReplySchema = z.object({ found: z.boolean() }).strict();

export const watchReplySchema = z.object({ ok: z.literal(true) }).strict();

// ── extension pages (popup, dashboard) → background ─────────────────────────────────────────────

export const pageMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ui.health") }).strict(),
]);

export type StateReport = z.infer<typeof stateReportSchema>;
export type SubmitMode = z.infer<typeof submitModeSchema>;
export type SubmitResult = z.infer<typeof submitResultSchema>;
export type ContentMessage = z.infer<typeof contentMessageSchema>;
export type BackgroundMessage = z.infer<typeof backgroundMessageSchema>;
export type PingReply = z.infer<typeof pingReplySchema>;
export type SubmitStatusReply = z.infer<typeof submitStatusReplySchema>;
