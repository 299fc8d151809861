// Backoff for refused commands and ChatGPT rate limits (docs/continuation-core.md, "Refused commands" and "Rate
// limits"): a refused command is tried again after 5 s, 30 s, 2 min, then every 10 min (a person's draft in the
// composer: 15 s, 30 s, then every minute); a rate limit with no reset
// time allows one prompt after 2, 5, 15, 30 min, then every 30 min; with a reset time, one prompt after it.
import type { Ctx, DraftWorker } from "./context.ts";
import { addWake } from "./intents.ts";
import type { Intent, RetryState } from "./model.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

export const RETRY_STEPS_MS: readonly number[] = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE];
/**
 * A person's draft in the composer refused the command: it clears when they send or clear it, which may change nothing
 * the host sees (clearing it), so it is looked at again soon and never less often than once a minute.
 */
export const DRAFT_RETRY_STEPS_MS: readonly number[] = [15 * SECOND, 30 * SECOND, MINUTE];
export const DRAFT_IN_COMPOSER = "DRAFT_IN_COMPOSER";
export const RATE_LIMIT_STEPS_MS: readonly number[] = [2 * MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE];

function step(steps: readonly number[], n: number): number {
  return steps[Math.min(n, steps.length - 1)] ?? 0;
}

/** The retry state after one more refusal of `intent`'s command with `code`. */
export function nextRetry(ctx: Ctx, w: DraftWorker, intent: Intent, code: string): RetryState {
  const count = (intent.retry?.count ?? 0) + 1;
  return {
    code,
    count,
    at: ctx.now + step(code === DRAFT_IN_COMPOSER ? DRAFT_RETRY_STEPS_MS : RETRY_STEPS_MS, count - 1),
    changes: w.conversation.changes,
    since: intent.retry?.since ?? ctx.now,
  };
}

/**
 * ChatGPT said too many requests or a usage cap (on the page or as a command's refusal). The same notice reported
 * again inside its wait changes nothing; one seen after the wait, or a refused prompt (the one at the step's end, or
 * Continue now's), takes the next step. With a reset time the wait ends at it plus the policy's buffer.
 */
export function noteRateLimit(
  ctx: Ctx,
  w: DraftWorker,
  code: string,
  resetAt: number | undefined,
  bufferMs: number,
  /** A prompt of ours was refused: that prompt used the step up (Continue now's included). */
  refused = false,
): void {
  const current = w.rateLimit;
  const sameNotice = resetAt === undefined || current?.resetAt === resetAt;
  if (current && ctx.now < current.until && sameNotice && !refused) return;
  const stepIndex = current ? current.step + 1 : 0;
  const until =
    resetAt !== undefined && resetAt > ctx.now
      ? resetAt + bufferMs
      : ctx.now + step(RATE_LIMIT_STEPS_MS, stepIndex);
  w.rateLimit = {
    code,
    since: current?.since ?? ctx.now,
    until,
    step: resetAt !== undefined ? (current?.step ?? 0) : stepIndex,
    ...(resetAt !== undefined ? { resetAt } : {}),
  };
  ctx.emit("execution.rate_limited", w.runId, w.id, { code, until, resetAt: resetAt ?? null });
  // The one prompt at the limit's end: a wake that waits for it (delivered only under Auto Resume, or explicit ones).
  addWake(ctx, w, { reason: "rate_limit", notBefore: until });
}

/** A turn that generates proves the limit is over: the next one starts from the first step again. */
export function clearRateLimit(ctx: Ctx, w: DraftWorker): void {
  if (!w.rateLimit) return;
  w.rateLimit = undefined;
  ctx.emit("execution.rate_limit_cleared", w.runId, w.id, {});
}
