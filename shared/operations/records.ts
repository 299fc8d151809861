// The other records operations answer with, as zod schemas: execution attempts, durable events, inbox messages, the
// store's health and the global Auto Resume switch.
import { z } from "zod";
import { errorCodeSchema } from "../error-codes.ts";

/**
 * One execution attempt (one turn the orchestrator asked for): why it was started, how it was delivered, which
 * browser ran it and how it ended. worker_get, ui_worker_detail and provenance_get all answer this one shape.
 */
export const attemptViewSchema = z.object({
  id: z.string().optional(),
  seq: z.number(),
  /** initial, auto_resume, manual_resume, followup or recovery. */
  reason: z.string(),
  /** The attempt this one resumes after, if any. */
  resumeOf: z.string().nullable().optional(),
  state: z.string(),
  /** create (a new chat), send (when idle) or steer (into a generating turn). */
  delivery: z.string().optional(),
  promptKind: z.string(),
  /** Versioned prompt template, e.g. `resume@1`. */
  promptId: z.string(),
  wakeReasons: z.array(z.string()),
  scheduledAt: z.number(),
  submittedAt: z.number().nullable(),
  terminalAt: z.number().nullable(),
  outcome: z.string().nullable(),
  errorCode: z.string().nullable(),
  /** The executor (browser profile) that ran it; null until one acknowledged it. */
  executorId: z.string().nullable().optional(),
});
export type AttemptView = z.infer<typeof attemptViewSchema>;

/** A durable event with its gap-free cursor (`seq`). */
export const eventViewSchema = z.object({
  seq: z.number(),
  type: z.string(),
  at: z.number(),
  runId: z.string(),
  workerId: z.string().optional(),
  /** Small, transcript-free details: reasons, codes, ids, sequence numbers. */
  data: z.record(z.string(), z.unknown()),
});
export type EventView = z.infer<typeof eventViewSchema>;

/** A message in a worker's durable inbox. `from` is a worker id or `operator`. */
export const messageViewSchema = z.object({
  id: z.string(),
  runId: z.string(),
  from: z.string(),
  to: z.string(),
  seq: z.number(),
  body: z.string(),
  sentAt: z.number(),
});

/** Whether the host can save changes; after its disk refused data: why, since when, when it tries again. */
export const storageSchema = z.discriminatedUnion("writable", [
  z.object({ writable: z.literal(true) }),
  z.object({
    writable: z.literal(false),
    code: errorCodeSchema,
    message: z.string(),
    path: z.string(),
    since: z.number(),
    nextRetryAt: z.number(),
  }),
]);
export type Storage = z.infer<typeof storageSchema>;

/**
 * The popup's global Auto Resume switch (docs/operator-guide.md, Controls): `enabled` is the switch itself, `on` is
 * what it shows (enabled and at least one unfinished worker has Auto Resume on), `automatic` counts those of them
 * that continue by themselves now (not paused).
 */
export const autoResumeSchema = z.object({
  enabled: z.boolean(),
  on: z.boolean(),
  automatic: z.number().int().nonnegative(),
});
export type AutoResume = z.infer<typeof autoResumeSchema>;
