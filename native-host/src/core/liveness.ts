// The liveness invariant (docs/continuation-core.md, "Liveness"): what an active worker is doing, as one of moving,
// due (a deadline armed, with its time) or held (a reason from the closed list in shared/liveness.ts). Pure: the
// browser facts only the host knows (connected, a command queued for a tab slot or sent) come in as `env`.
import { type Liveness, livenessOf } from "../../../shared/liveness.ts";
import { AWAITING_APPROVAL, RATE_LIMIT_CODES } from "../../../shared/error-codes.ts";
import { DRAFT_IN_COMPOSER } from "./backoff.ts";
import { evaluateIntent, MESSAGE_DELIVERY_TIMEOUT } from "./evaluate.ts";
import { INVALID_BLOCK_CODE } from "./output-block.ts";
import { type DomainState, submittedUnseen, type Worker } from "./model.ts";
import { pageErrorReason } from "./page-errors.ts";
import { governingPolicy } from "./policy.ts";

/** How long past a sent command's deadline the browser may take to answer before the worker shows it has not. */
export const ANSWER_GRACE_MS = 30_000;

/** Where the host has the command of a worker's scheduled attempt. */
export type Dispatch =
  | { readonly kind: "queued"; readonly position: number; readonly since: number }
  | { readonly kind: "sent"; readonly deadlineAt: number };

export interface LivenessEnv {
  /** Whether any browser (executor) is connected, and since when that has been so. */
  readonly browser: { readonly connected: boolean; readonly since: number };
  dispatch(workerId: string): Dispatch | undefined;
}

/** For views without a host (tests, the CLI reading a store): a browser connected, every command sent. */
export const CONNECTED_ENV: LivenessEnv = {
  browser: { connected: true, since: 0 },
  dispatch: () => undefined,
};

/** The worker's liveness; undefined for a worker (or run) that has ended. */
export function workerLiveness(
  state: DomainState,
  w: Worker,
  now: number,
  env: LivenessEnv,
): Liveness | undefined {
  const explained = explain(state, w, now, env);
  if (explained || w.status !== "active" || state.runs[w.runId]?.status !== "active") return explained;
  return livenessOf("tab_unavailable", w.conversation.since);
}

/**
 * The reason, or undefined when none applies: the property tests assert that never happens for an active worker
 * (no state the UI cannot name).
 */
export function explain(state: DomainState, w: Worker, now: number, env: LivenessEnv): Liveness | undefined {
  const run = state.runs[w.runId];
  if (!run || run.status !== "active" || w.status !== "active") return undefined;
  const c = w.conversation;
  const wait = w.wait;
  if (wait?.kind === "human") return livenessOf("question", wait.requestedAt);
  if (c.state === "error" && c.errorCode === AWAITING_APPROVAL) return livenessOf("approval", c.since);
  if (wait?.kind === "dependency") {
    const ids = wait.onWorkerIds.filter((id) => state.workers[id]?.status === "active");
    if (ids.length === 0) {
      return livenessOf("waiting_for_dependency", wait.requestedAt, {
        detail: { condition: wait.condition },
      });
    }
    const paths = ids.map((id) => state.workers[id]?.path ?? id);
    return livenessOf("waiting_for_workers", wait.requestedAt, {
      detail: { workerIds: ids, workerPaths: paths, condition: wait.condition },
    });
  }
  const pause = w.pause;
  if (pause) {
    switch (pause.source) {
      case "operator":
        return livenessOf("paused", pause.at);
      case "run":
        return livenessOf("run_paused", pause.at);
      case "stall":
        return livenessOf("stalled", pause.at);
      case "cap":
        return livenessOf("cap_reached", pause.at);
      case "error":
        return pause.errorCode === INVALID_BLOCK_CODE
          ? livenessOf("invalid_blocks", pause.at)
          : livenessOf(
              "delivery_uncertain",
              pause.at,
              pause.errorCode ? { detail: { code: pause.errorCode } } : {},
            );
    }
  }
  const policy = governingPolicy(state, run, w);
  const attempt = w.current;
  const intent = w.intent;
  const generating = c.state === "generating" && c.binding === "bound";
  // Auto Resume off and nothing a person asked for: the worker waits for a person, whatever the browser does.
  if (policy.mode === "manual" && !intent?.explicit && attempt?.state !== "scheduled" && !generating) {
    return livenessOf("auto_resume_off", Math.max(c.since, intent?.createdAt ?? 0));
  }
  if (!env.browser.connected) return livenessOf("browser_not_connected", env.browser.since);
  // A steer (keepalive, message) aimed at a running turn: the turn is what moves.
  if (generating && (attempt?.state !== "scheduled" || attempt.delivery === "steer")) {
    return livenessOf("generating", c.since);
  }
  if (attempt?.state === "scheduled") {
    const dispatch = env.dispatch(w.id);
    if (dispatch?.kind === "queued") {
      return livenessOf("tab_slot", dispatch.since, { detail: { position: dispatch.position } });
    }
    const deadline = dispatch?.deadlineAt ?? attempt.deadlineAt;
    if (now <= deadline + ANSWER_GRACE_MS) {
      return livenessOf("submitting", attempt.scheduledAt, { until: deadline + ANSWER_GRACE_MS });
    }
    return livenessOf("browser_unresponsive", deadline);
  }
  if (attempt && submittedUnseen(w)) return livenessOf("submitted", attempt.submittedAt ?? now);
  if (intent) {
    const decision = evaluateIntent(run, w, intent, policy, now);
    switch (decision.kind) {
      case "wait":
        if (decision.why === "rate_limited" && w.rateLimit)
          return livenessOf("rate_limited", w.rateLimit.since, {
            until: decision.until,
            ...(w.rateLimit.code ? { detail: { code: w.rateLimit.code } } : {}),
          });
        // A person's draft refused the turn: it is looked at again at `until`, but only they can clear it.
        if (decision.why === "retry_backoff" && intent.retry?.code === DRAFT_IN_COMPOSER)
          return livenessOf("draft_in_composer", intent.retry.since, { until: decision.until });
        return livenessOf(decision.why, intent.retry?.since ?? intent.createdAt, { until: decision.until });
      case "deliver":
        // Due now: the next tick or input delivers it.
        return livenessOf("idle_grace", intent.createdAt, { until: now });
      case "hold":
        if (decision.why === "conversation_error") return pageError(w);
        if (decision.why === "conversation_unavailable") return unavailable(w);
        if (decision.why === "manual_policy") return livenessOf("auto_resume_off", intent.createdAt);
        // A move to a new conversation waits for the old one's running turn: it moves, or its tab is on the way back.
        if (decision.why === "conversation_busy")
          return c.binding === "bound" ? livenessOf("generating", c.since) : unavailable(w);
        return undefined;
      case "cancel":
        return undefined;
    }
  }
  if (
    c.state === "error" &&
    !RATE_LIMIT_CODES.has(c.errorCode ?? "") &&
    c.errorCode !== MESSAGE_DELIVERY_TIMEOUT
  ) {
    return pageError(w);
  }
  if (c.binding !== "bound" || c.state === "unknown" || c.state === "closed") return unavailable(w);
  return undefined;
}

/**
 * No usable page: bound but not reported on yet (a tab opening, an adopted conversation's first report) or detached (the
 * browser reopens the conversation's tab by itself) is a moment's wait; a tab closed while reopening is off, or lost
 * (not found after a restart), needs a person.
 */
function unavailable(w: Worker): Liveness {
  const c = w.conversation;
  if (c.binding === "closed") return livenessOf("tab_closed", c.since);
  return (c.binding === "bound" && c.state === "unknown") || c.binding === "detached"
    ? livenessOf("page_loading", c.since)
    : livenessOf("tab_unavailable", c.since);
}

function pageError(w: Worker): Liveness {
  const c = w.conversation;
  return livenessOf(
    pageErrorReason(c.errorCode),
    c.since,
    c.errorCode ? { detail: { code: c.errorCode } } : {},
  );
}
