// The executor protocol (docs/reference/protocol.md): zod schemas of every native message; types are inferred from them.
import { z } from "zod";
import { continuationBlockReportSchema } from "./continuation-block-report.ts";
import { errorSchema } from "./error-codes.ts";
import {
  bindingStateSchema,
  commandTypeSchema,
  conversationStateSchema as observedState,
  journalPhaseSchema,
} from "./executor-states.ts";
import { continuationStatusSchema } from "./continuation-block.ts";
import { MAX_HANDOFF_BRIEF_CHARS } from "./handoff-block.ts";

/** Bumped on any incompatible change; `hello` and `welcome` carry it and a mismatch is refused. */
export const PROTOCOL_VERSION = 1;

/** Chromium and Firefox both drop a port whose host→browser frame exceeds 1 MiB; stay well under it. */
export const MAX_HOST_MESSAGE_BYTES = 1024 * 1024 - 64 * 1024;

/** The most tabs a browser may let generate at once (the options page offers 1 to this). */
export const MAX_GENERATING_LIMIT = 20;

const id = z.string().min(1).max(200);
const maxGenerating = z.number().int().min(1).max(MAX_GENERATING_LIMIT);
const url = z.string().max(2_000);

// ── extension → host ────────────────────────────────────────────────────────────────────────────

export const helloSchema = z
  .object({
    kind: z.literal("hello"),
    protocolVersion: z.number().int(),
    executorId: id,
    browser: z.string().max(50),
    extensionVersion: z.string().max(50),
    /** Bindings the extension verified after (re)start, with the state it last observed. */
    bindings: z
      .array(
        z
          .object({
            workerId: id,
            binding: bindingStateSchema,
            url: url.optional(),
            observed: z
              .object({
                state: observedState,
                seq: z.number().int().nonnegative(),
                errorCode: z.string().optional(),
              })
              .strict()
              .optional(),
          })
          .strict(),
      )
      .max(1_000),
    /** Journal phases of every command the extension has not reported as finished (a crash may have left it half done). */
    journal: z
      .array(
        z
          .object({
            commandId: id,
            workerId: id,
            phase: journalPhaseSchema,
            errorCode: z.string().optional(),
            url: url.optional(),
          })
          .strict(),
      )
      .max(1_000),
    /** Tabs this browser may have generating at once (its settings); the host queues commands beyond it. Default 3. */
    maxGenerating: maxGenerating.optional(),
  })
  .strict();

/** The browser's settings changed (the options page): the host applies the new limit of generating tabs at once. */
export const executorSettingsSchema = z
  .object({ kind: z.literal("executor.settings"), maxGenerating })
  .strict();

export const commandAckSchema = z
  .object({ kind: z.literal("command.ack"), commandId: id, workerId: id })
  .strict();

export const commandResultSchema = z
  .object({
    kind: z.literal("command.result"),
    commandId: id,
    workerId: id,
    outcome: z.enum(["submitted", "failed"]),
    errorCode: z.string().max(100).optional(),
    detail: z.string().max(2_000).optional(),
    url: url.optional(),
  })
  .strict();

export const conversationStateSchema = z
  .object({
    kind: z.literal("conversation.state"),
    workerId: id,
    state: observedState,
    /** Per-worker sequence; the host ignores reports not newer than the last one applied. */
    seq: z.number().int().nonnegative(),
    errorCode: z.string().max(100).optional(),
    url: url.optional(),
    /** Parsed `status:` of the newest continuation-state block: one signal, never authority. */
    continuationStatus: continuationStatusSchema.optional(),
    /** With an idle/ready report after a turn: the newest assistant turn's block (`continuationBlockReport`). */
    continuationBlock: continuationBlockReportSchema.optional(),
    /** With RATE_LIMITED / USAGE_CAP: when the page says the limit resets (epoch ms), if it says so. */
    resetAt: z.number().int().positive().optional(),
    /**
     * When the page's evidence for this state appeared (epoch ms, the browser's clock): for idle, the page's own end of
     * turn, which the idle grace counts from (the report itself comes a moment later).
     */
    since: z.number().int().positive().optional(),
    /**
     * With the idle report that ends a turn whose newest answer holds a handoff block (`shared/handoff-block.ts`): its
     * text, for a rollover's brief. The host keeps it in memory only; nothing stores it.
     */
    handoffBrief: z.string().min(1).max(MAX_HANDOFF_BRIEF_CHARS).optional(),
    /** With the idle report that ends a turn: the conversation's visible text length (a size, for the rollover budget). */
    visibleChars: z.number().int().nonnegative().optional(),
  })
  .strict();

export const bindingSchema = z
  .object({ kind: z.literal("binding"), workerId: id, binding: bindingStateSchema, url: url.optional() })
  .strict();

export const uiRequestSchema = z
  .object({
    kind: z.literal("ui.request"),
    requestId: id,
    /** An operation name of the shared operations layer (the MCP tool names). */
    op: z.string().min(1).max(100),
    params: z.unknown(),
    /** The `nextCursor` of a cut `ui.response`: the next page of that same answer (same op; params are not read). */
    cursor: z.string().min(1).max(200).optional(),
  })
  .strict();

export const extensionMessageSchema = z.discriminatedUnion("kind", [
  helloSchema,
  commandAckSchema,
  commandResultSchema,
  conversationStateSchema,
  bindingSchema,
  uiRequestSchema,
  executorSettingsSchema,
]);

// ── host → extension ────────────────────────────────────────────────────────────────────────────

export const welcomeSchema = z
  .object({
    kind: z.literal("welcome"),
    protocolVersion: z.number().int(),
    hostVersion: z.string(),
    executorId: id,
    /** Set when the protocol versions differ: the extension must show it and send nothing else. */
    error: errorSchema.optional(),
  })
  .strict();

export const promptSchema = z
  .object({
    /** Versioned template id, e.g. `resume@1`; stored on the execution attempt. */
    promptId: z.string(),
    text: z.string().max(100_000),
  })
  .strict();

export const commandSchema = z
  .object({
    kind: z.literal("command"),
    type: commandTypeSchema,
    commandId: id,
    /** Derived from the execution attempt, so a redelivered command is recognised by the journal. */
    idempotencyKey: z.string().max(300),
    executionId: id,
    runId: id,
    workerId: id,
    conversationUrl: url.optional(),
    /**
     * Epoch ms after which the executor must not start submitting (it reports DEADLINE_EXCEEDED). Set when the host
     * sends the command, so time it waited in the host for a browser or a tab slot does not count.
     */
    deadlineAt: z.number().int(),
    prompt: promptSchema,
  })
  .strict();

export const commandCancelSchema = z
  .object({ kind: z.literal("command.cancel"), commandId: id, workerId: id })
  .strict();

/** The host does not know this worker (its data directory was replaced, say): the browser forgets its binding. */
export const bindingReleaseSchema = z.object({ kind: z.literal("binding.release"), workerId: id }).strict();

export const uiResponseSchema = z
  .object({
    kind: z.literal("ui.response"),
    requestId: id,
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: errorSchema.optional(),
    /**
     * Present when the result was cut to stay under the message limit: ask again from this cursor. Fields that are
     * not lists repeat on every page; each top-level list's items come once, in order, spread over the pages.
     */
    nextCursor: z.string().optional(),
  })
  .strict();

export const uiChangedSchema = z
  .object({ kind: z.literal("ui.changed"), eventSeq: z.number().int().nonnegative() })
  .strict();

export const hostMessageSchema = z.discriminatedUnion("kind", [
  welcomeSchema,
  commandSchema,
  commandCancelSchema,
  bindingReleaseSchema,
  uiResponseSchema,
  uiChangedSchema,
]);

export type ExtensionMessage = z.infer<typeof extensionMessageSchema>;
export type HostMessage = z.infer<typeof hostMessageSchema>;
export type Hello = z.infer<typeof helloSchema>;
export type CommandMessage = z.infer<typeof commandSchema>;
export type ConversationStateMessage = z.infer<typeof conversationStateSchema>;
