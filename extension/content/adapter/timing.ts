// Default waits of the adapter (docs/adapter.md, "Timing"), with the reason for each figure beside it.
import type { Timing } from "./types.ts";

export const DEFAULT_TIMING: Timing = {
  settleMs: 300, // outlasts the action bar's flash in a thinking pause; the host adds its own grace after idle
  lastResortIdleMs: 90_000, // only for a page whose evidence cannot be read: far beyond any thinking or tool pause
  pollMs: 1_000, // a 400–1000 ms poll besides the observer catches what makes no mutation record
  idlePollMaxMs: 30_000, // a settled page changes by mutations; the poll is only the net for what makes none
  throttleMs: 150, // tick at most every 100–250 ms while the DOM churns
  errorConfirmMs: 500,
  hostUiGraceMs: 5_000, // hydration remounts the composer within about 1 s
  composerStableMs: 600, // same composer element for ≥600 ms
  answerWaitMs: 30_000,
  animatedStaleMs: 60_000, // a stuck data-markdown-animated must not block forever
  sendEnableWaitMs: 3_000, // Send is disabled ~300–500 ms after each edit
  acceptanceWindowMs: 15_000,
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
    ...(opts.idleDebounceMs !== undefined ? { settleMs: opts.idleDebounceMs } : {}),
    ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
  };
}
