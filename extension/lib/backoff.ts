// Capped exponential backoff with jitter for reconnecting the native port (docs/extension.md, "The native port
// and its health").

export interface BackoffPolicy {
  /** Ceiling of the first delay. */
  readonly baseMs: number;
  /** No delay ever exceeds this. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 30_000 };

/**
 * Delay before reconnect attempt `attempt` (0 = first retry): the ceiling doubles per attempt up to `maxMs`, and
 * the delay is drawn uniformly from the upper half of it ("equal jitter"), so many extensions restarted by one
 * host crash do not reconnect in lockstep, yet the wait still grows.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const exponent = Number.isFinite(attempt) ? Math.min(Math.max(0, Math.floor(attempt)), 30) : 0;
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const drawn = random();
  const r = Number.isFinite(drawn) ? Math.min(Math.max(drawn, 0), 1) : 0.5;
  return Math.round(ceiling / 2 + (r * ceiling) / 2);
}
