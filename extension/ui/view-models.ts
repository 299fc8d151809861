// What the views read from the host's operations (ui_summary, ui_worker_detail), as zod schemas: a result is
// parsed before it is shown, so a host of another version shows an error instead of a half-drawn view.
import { z } from "zod";
import { continuationPolicySchema, policyPatchSchema } from "../../shared/continuation-policy.ts";
import { livenessSchema } from "../../shared/liveness.ts";

/** Spec 17.1 words, as the host's views.ts produces them. */
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

const waitSchema = z.discriminatedUnion("kind", [
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
    onWorkerIds: z.array(z.string()),
    requestedAt: z.number(),
  }),
]);

export const workerViewSchema = z.object({
  id: z.string(),
  /** Worktrees (paths or branches) this worker owns (spec 24). */
  worktrees: z.array(z.string()).optional(),
  adopted: z.boolean().optional(),
  runId: z.string(),
  path: z.string(),
  name: z.string(),
  objective: z.string(),
  status: z.string(),
  disposition: z.string(),
  label: stateLabelSchema,
  /** What it is doing and why, with its remedy (shared/liveness.ts, the host's own schema); null once ended. */
  liveness: livenessSchema.nullable(),
  /** Turns actually submitted: what the UI numbers (a refused steer or an undelivered command is not a turn). */
  turns: z.number().int().nonnegative(),
  summary: z.string().nullable(),
  attempt: z.object({ seq: z.number(), reason: z.string(), state: z.string() }).nullable(),
  autoResumes: z.number(),
  lastProgressAt: z.number().nullable(),
  noProgressAttempts: z.number(),
  stallWarning: z.boolean(),
  conversation: z.object({
    state: z.string(),
    binding: z.string(),
    url: z.string().nullable(),
    reportedStatus: z.string().nullable(),
    errorCode: z.string().nullable().optional(),
  }),
  wait: waitSchema.nullable(),
  pause: z
    .object({ source: z.string(), reason: z.string(), at: z.number(), errorCode: z.string().optional() })
    .nullable(),
  pendingContinuation: z.object({ reasons: z.array(z.string()), since: z.number() }).nullable(),
  policy: continuationPolicySchema,
  policyOverride: policyPatchSchema,
  unreadMessages: z.number(),
});
export type WorkerView = z.infer<typeof workerViewSchema>;

/** Needs you because a tool-confirmation card in ChatGPT waits for a person (liveness reason `approval`). */
export function waitsForToolApproval(w: Pick<WorkerView, "liveness">): boolean {
  return w.liveness?.reason === "approval";
}

export const runViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  objective: z.string(),
  status: z.string(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  defaultPolicy: continuationPolicySchema,
  counts: z.record(z.string(), z.number()),
});
export type RunView = z.infer<typeof runViewSchema>;

/** Whether the host can save changes; after its disk refused data: why, since when, when it tries again. */
export const storageSchema = z.discriminatedUnion("writable", [
  z.object({ writable: z.literal(true) }),
  z.object({
    writable: z.literal(false),
    code: z.string(),
    message: z.string(),
    path: z.string(),
    since: z.number(),
    nextRetryAt: z.number(),
  }),
]);
export type Storage = z.infer<typeof storageSchema>;

/**
 * The popup's global Auto Resume switch (docs/operator-guide.md, Controls): `enabled` is the switch itself, `on` is
 * what it shows (enabled and at least one unfinished worker continues by itself), `automatic` counts those workers.
 */
export const autoResumeSchema = z.object({
  enabled: z.boolean(),
  on: z.boolean(),
  automatic: z.number().int().nonnegative(),
});
export type AutoResume = z.infer<typeof autoResumeSchema>;

export const summarySchema = z.object({
  runs: z.array(runViewSchema),
  workers: z.array(workerViewSchema),
  autoResume: autoResumeSchema,
  eventSeq: z.number(),
  /** Absent from hosts older than the full-disk handling. */
  storage: storageSchema.optional(),
});
export type Summary = z.infer<typeof summarySchema>;

export const runListSchema = z.object({ runs: z.array(runViewSchema) });
export const runGetSchema = z.object({ run: runViewSchema, workers: z.array(workerViewSchema) });

export const attemptViewSchema = z.object({
  seq: z.number(),
  reason: z.string(),
  state: z.string(),
  promptKind: z.string(),
  promptId: z.string(),
  wakeReasons: z.array(z.string()),
  scheduledAt: z.number(),
  submittedAt: z.number().nullable(),
  terminalAt: z.number().nullable(),
  outcome: z.string().nullable(),
  errorCode: z.string().nullable(),
  executorId: z.string().nullable().optional(),
});
export type AttemptView = z.infer<typeof attemptViewSchema>;

export const eventViewSchema = z.object({
  seq: z.number(),
  type: z.string(),
  at: z.number(),
  data: z.record(z.string(), z.unknown()),
});
export type EventView = z.infer<typeof eventViewSchema>;

export const workerDetailSchema = z.object({
  worker: workerViewSchema,
  attempts: z.array(attemptViewSchema),
  events: z.array(eventViewSchema),
});
export type WorkerDetail = z.infer<typeof workerDetailSchema>;

/** Counts the popup shows (spec 17.2): unfinished workers by what they are doing. */
export function countsOf(workers: readonly WorkerView[]): {
  active: number;
  working: number;
  resuming: number;
  needsYou: number;
  stalled: number;
} {
  const count = (label: StateLabel) => workers.filter((w) => w.label === label).length;
  return {
    active: workers.length,
    working: count("Working"),
    resuming: count("Resuming"),
    needsYou: count("Needs you"),
    stalled: count("Stalled"),
  };
}
