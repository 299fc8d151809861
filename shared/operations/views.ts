// The read models of runs and workers in operator words, as zod schemas: what MCP tools answer and the extension's
// views draw. The host builds them (native-host/src/operations/views.ts) and its build is typed by these schemas.
import { z } from "zod";
import { continuationPolicySchema, policyPatchSchema } from "../continuation-policy.ts";
import { continuationStatusSchema } from "../continuation-block.ts";
import { trackedBindingStateSchema, trackedConversationStateSchema } from "../executor-states.ts";
import { livenessSchema } from "../liveness.ts";

/**
 * A worker's state in operator words (docs/operator-guide.md); never colour-only in the UI, so the word travels with
 * the state.
 */
export const stateLabelSchema = z.enum([
  "Working",
  "Resuming",
  "Needs you",
  "Waiting",
  "Paused",
  "Stalled",
  "Idle",
  "Complete",
  "Failed",
  "Stopped",
]);
export type StateLabel = z.infer<typeof stateLabelSchema>;
export const STATE_LABELS = stateLabelSchema.options;

/** What an unfinished worker waits for: a person's answer, or other workers / a named condition. */
export const waitSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("human"),
    reason: z.string(),
    question: z.string(),
    requestedAt: z.number(),
    choices: z.array(z.string()).optional(),
    context: z.string().optional(),
  }),
  z.object({
    kind: z.literal("dependency"),
    condition: z.string(),
    /** Released automatically once every listed worker has ended; empty means only an explicit release. */
    onWorkerIds: z.array(z.string()),
    requestedAt: z.number(),
  }),
]);

/** Why no further turn starts until resumed: who paused it (operator, run, stall, error, cap) and why. */
export const pauseSchema = z.object({
  source: z.string(),
  reason: z.string(),
  at: z.number(),
  errorCode: z.string().optional(),
});

/** Why a worker moved to a new conversation. */
export const rolloverTriggerSchema = z.enum(["length_limit", "size_budget", "operator", "agent"]);

/** A move to a new conversation under way: asking for the brief, or opening the new conversation. */
export const rolloverViewSchema = z.object({
  phase: z.enum(["brief_requested", "opening"]),
  trigger: rolloverTriggerSchema,
  note: z.string().nullable(),
  since: z.number(),
  /** While the brief is asked for: when the host composes one instead. */
  briefDeadlineAt: z.number().nullable(),
});

/** One conversation of a worker's chain: where it was, when and why the worker left it, what the brief was. */
export const conversationLinkSchema = z.object({
  /** 1 for the first conversation. */
  index: z.number().int().positive(),
  url: z.string().nullable(),
  conversationId: z.string().nullable(),
  /** When the worker left it (null: the current one). */
  leftAt: z.number().nullable(),
  trigger: rolloverTriggerSchema.nullable(),
  note: z.string().nullable(),
  turns: z.number().int().nonnegative(),
  /** Its visible text length when last measured (a size, never text). */
  visibleChars: z.number().int().nonnegative().nullable(),
  /** The brief the next conversation started from: its source (agent, page, composed) and size. */
  brief: z.object({ source: z.enum(["agent", "page", "composed"]), chars: z.number().int() }).nullable(),
});
export type ConversationLink = z.infer<typeof conversationLinkSchema>;

export const workerViewSchema = z.object({
  id: z.string(),
  runId: z.string(),
  path: z.string(),
  name: z.string(),
  objective: z.string(),
  acceptance: z.array(z.string()),
  /** active, completed, failed or cancelled. */
  status: z.string(),
  /** running, awaiting_execution, awaiting_dependency, awaiting_human, paused, or the ended status. */
  disposition: z.string(),
  label: stateLabelSchema,
  /** Moving, due (with its time) or held (with the reason and remedy): null once the worker has ended. */
  liveness: livenessSchema.nullable(),
  /** Turns confirmed submitted: what the UI numbers (refused steers and undelivered commands are not turns). */
  turns: z.number().int().nonnegative(),
  summary: z.string().nullable(),
  attempt: z.object({ seq: z.number(), reason: z.string(), state: z.string() }).nullable(),
  autoResumes: z.number(),
  lastProgressAt: z.number().nullable(),
  noProgressAttempts: z.number(),
  stallWarning: z.boolean(),
  conversation: z.object({
    state: trackedConversationStateSchema,
    binding: trackedBindingStateSchema,
    url: z.string().nullable(),
    /** The agent's own last `status:` line: a signal only; the worker's state is authoritative. */
    reportedStatus: continuationStatusSchema.nullable(),
    /** What the page reported with an `error` state (e.g. AWAITING_APPROVAL: a tool card waits for a person). */
    errorCode: z.string().nullable().optional(),
  }),
  wait: waitSchema.nullable(),
  pause: pauseSchema.nullable(),
  pendingContinuation: z.object({ reasons: z.array(z.string()), since: z.number() }).nullable(),
  policy: continuationPolicySchema,
  /** Fields the worker sets itself; everything else is the run default. */
  policyOverride: policyPatchSchema,
  unreadMessages: z.number(),
  /** Work locations (worktree paths or branches) the worker owns now; released ones are in provenance_get. */
  worktrees: z.array(z.string()).optional(),
  /** Adopted from an open conversation ("Keep this conversation going"): the popup offers Release. */
  adopted: z.boolean().optional(),
  /**
   * The chain of conversations (docs/operator-guide.md, "Rollover"): ids of the current one and of those the worker
   * moved on from (oldest first), and a move under way, if any.
   */
  conversationId: z.string().nullable().optional(),
  previousConversationIds: z.array(z.string()).optional(),
  rollover: rolloverViewSchema.nullable().optional(),
});
export type WorkerView = z.infer<typeof workerViewSchema>;

export const runViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  objective: z.string(),
  /** active, completed, failed or cancelled. */
  status: z.string(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  defaultPolicy: continuationPolicySchema,
  /** The run's workers by state label (every label, zero included). */
  counts: z.record(stateLabelSchema, z.number()),
});
export type RunView = z.infer<typeof runViewSchema>;
