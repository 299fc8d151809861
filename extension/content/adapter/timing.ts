// Default waits of the adapter, chosen from research §3/§4 (sources' figures in the comments).
import type { Timing } from "./types.ts";

export const DEFAULT_TIMING: Timing = {
  idleDebounceMs: 2_000, // S7 uses 3 × 400 ms; Pro needs ≥1.2 s without change; the host adds its own grace
  pollMs: 1_000, // research: a 400–1000 ms poll besides the observer (hidden tabs throttle)
  throttleMs: 150, // research: tick at most every 100–250 ms
  errorConfirmMs: 500,
  hostUiGraceMs: 5_000, // hydration remounts the composer within about 1 s
  composerStableMs: 600, // S2: same composer element for ≥600 ms
  thinkingIdleFallbackMs: 12_000,
  answerWaitMs: 30_000,
  animatedStaleMs: 60_000, // research §3.3: a stuck data-markdown-animated must not block forever
  sendEnableWaitMs: 3_000, // Send is disabled ~300–500 ms after each edit (S1 waits about 500 ms)
  acceptanceWindowMs: 15_000, // S3: ≤30 s; S9: 2 s then one fallback
  preconditionWaitMs: 20_000,
  urlSettleMs: 3_000,
  submitPollMs: 100,
};

export function resolveTiming(opts: {
  idleDebounceMs?: number;
  pollMs?: number;
  timing?: Partial<Timing>;
}): Timing {
  return {
    ...DEFAULT_TIMING,
    ...(opts.timing ?? {}),
    ...(opts.idleDebounceMs !== undefined ? { idleDebounceMs: opts.idleDebounceMs } : {}),
    ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
  };
}
