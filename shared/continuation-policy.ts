// ContinuationPolicy (docs/continuation-core.md): the zod schema is the single definition; host and extension infer types from it.
import { z } from "zod";

const MINUTE_MS = 60_000;
const durationMs = z.number().int().nonnegative();
const threshold = z.number().int().positive().nullable();

export const continuationPolicySchema = z
  .object({
    mode: z.enum(["manual", "auto"]),
    idleGraceMs: durationMs,
    activeKeepaliveMinMs: durationMs,
    activeKeepaliveMaxMs: durationMs,
    minContinuationSpacingMs: durationMs,
    idleMayBypassMinSpacing: z.boolean(),
    requireProgressHeartbeat: z.boolean(),
    stallWarningAfterNoProgressAttempts: threshold,
    stallPauseAfterNoProgressAttempts: threshold,
    stallWarningAfterNoProgressMs: threshold,
    stallPauseAfterNoProgressMs: threshold,
    /**
     * What may end or block the worker: `mcp` only the worker tools (the continuation-state block
     * is advisory); `output_block` the block of each response (complete / blocked / working); `either` both.
     */
    completionSignal: z.enum(["mcp", "output_block", "either"]),
    /** Under `output_block`/`either`: pause after this many consecutive responses without a valid block. */
    pauseAfterInvalidBlocks: threshold,
    /** Optional cap: hold ("cap reached") after this many automatic turns; `null` = no cap. */
    maxAutoTurns: threshold,
    /** Optional cap: hold ("cap reached") once the worker has run this long; `null` = no cap. */
    maxWallTimeMs: threshold,
    /** Added to a rate-limit reset time the page shows before the one resume (the page's clock is coarse). */
    rateLimitBufferMs: durationMs,
    /**
     * Conversation rollover (docs/continuation-core.md, "Rollover"): when the page says the conversation is too long,
     * an Auto Resume worker moves to a new conversation by itself; a manual one is held with that remedy.
     */
    rolloverOnLimit: z.boolean(),
    /** Optional size budget: roll over at a turn's end once this many turns went into the current conversation. */
    rolloverAfterTurns: threshold,
    /** Optional size budget: roll over at a turn's end once the conversation's visible text is this long (chars). */
    rolloverAtChars: threshold,
    /** How long the worker may take to answer the request for a handoff brief before the host composes one. */
    rolloverBriefTimeoutMs: durationMs,
  })
  .strict();

export type ContinuationPolicy = z.infer<typeof continuationPolicySchema>;

/** A run default or worker override: any subset of the fields. */
export const policyPatchSchema = continuationPolicySchema.partial().strict();
export type PolicyPatch = z.infer<typeof policyPatchSchema>;

/**
 * The recommended defaults. `mode` stays manual so nothing resumes on its own until a run or a
 * person turns Auto Resume on (existing and migrated work defaults conservatively).
 */
export const DEFAULT_CONTINUATION_POLICY: ContinuationPolicy = Object.freeze({
  mode: "manual",
  idleGraceMs: 3_000,
  activeKeepaliveMinMs: 20 * MINUTE_MS,
  activeKeepaliveMaxMs: 21 * MINUTE_MS,
  minContinuationSpacingMs: 15 * MINUTE_MS,
  idleMayBypassMinSpacing: true,
  requireProgressHeartbeat: false,
  stallWarningAfterNoProgressAttempts: 10,
  stallPauseAfterNoProgressAttempts: 20,
  stallWarningAfterNoProgressMs: 30 * MINUTE_MS,
  stallPauseAfterNoProgressMs: 60 * MINUTE_MS,
  completionSignal: "mcp",
  pauseAfterInvalidBlocks: 3,
  maxAutoTurns: null,
  maxWallTimeMs: null,
  rateLimitBufferMs: 2 * MINUTE_MS,
  rolloverOnLimit: true,
  rolloverAfterTurns: null,
  rolloverAtChars: null,
  rolloverBriefTimeoutMs: 10 * MINUTE_MS,
});

/** Merges a patch onto a policy; returns a problem description when the result is inconsistent. */
export function applyPolicyPatch(
  base: ContinuationPolicy,
  patch: PolicyPatch,
): { ok: true; policy: ContinuationPolicy } | { ok: false; message: string } {
  const policy = { ...base, ...patch };
  if (policy.activeKeepaliveMinMs > policy.activeKeepaliveMaxMs) {
    return { ok: false, message: "activeKeepaliveMinMs must not exceed activeKeepaliveMaxMs" };
  }
  return { ok: true, policy };
}
