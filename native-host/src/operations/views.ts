// Builds the read models of shared/operations/ (views.ts, records.ts) from the domain records: runs, workers and
// attempts in operator words. Their types are the contract's, so a field built wrong or missing fails to compile.
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import type { Immutable } from "../../../shared/operations/index.ts";
import type { AttemptView } from "../../../shared/operations/records.ts";
import type { RunView, StateLabel, WorkerView } from "../../../shared/operations/views.ts";

export type { RunView, StateLabel, WorkerView } from "../../../shared/operations/views.ts";
import type { Attempt, DomainState, Run, Worker } from "../core/model.ts";
import type { Liveness, LivenessReason } from "../../../shared/liveness.ts";
import { CONNECTED_ENV, type LivenessEnv, workerLiveness } from "../core/liveness.ts";
import { dispositionOf, effectivePolicy } from "../core/policy.ts";
import { ownedClaims } from "../core/worktrees.ts";
import { conversationFields } from "./conversation-chain.ts";

/** What views need besides the state: the time, and the browser facts only the host knows (connected, tab slots). */
export interface ViewContext {
  readonly now: number;
  readonly env: LivenessEnv;
}

/** Views built without a host (tests, the CLI reading a store): now, with a browser taken as connected. */
export function detachedView(): ViewContext {
  return { now: Date.now(), env: CONNECTED_ENV };
}

/**
 * The worker's state in operator words, derived from its liveness (core/liveness.ts), the one source of what the
 * operator sees: moving is Working, due is Resuming (a rate limit is Waiting), held is its reason's word.
 */
export function stateLabel(w: Worker, run: Run | undefined, liveness?: Liveness | null): StateLabel {
  switch (w.status) {
    case "completed":
      return "Complete";
    case "failed":
      return "Failed";
    case "cancelled":
      return "Stopped";
    case "active":
      break;
  }
  if (!liveness || !run) return "Idle";
  switch (liveness.state) {
    case "moving":
      return "Working";
    case "due":
      return liveness.reason === "rate_limited" ? "Waiting" : "Resuming";
    case "held":
      return heldLabel(liveness);
  }
}

/** Held reasons whose word is not simply "Needs you" (or "Waiting" when no person is needed). */
const HELD_LABELS: Partial<Readonly<Record<LivenessReason, StateLabel>>> = {
  paused: "Paused",
  run_paused: "Paused",
  cap_reached: "Paused",
  stalled: "Stalled",
  auto_resume_off: "Idle",
  waiting_for_workers: "Waiting",
  waiting_for_dependency: "Waiting",
  tab_slot: "Waiting",
};

function heldLabel(l: Liveness): StateLabel {
  return HELD_LABELS[l.reason] ?? (l.needsYou ? "Needs you" : "Waiting");
}

export function workerView(
  state: DomainState,
  w: Worker,
  view: ViewContext = detachedView(),
): Immutable<WorkerView> {
  const run = state.runs[w.runId];
  const attempt: Attempt | undefined = w.current;
  const liveness = workerLiveness(state, w, view.now, view.env) ?? null;
  return {
    id: w.id,
    runId: w.runId,
    path: w.path,
    name: w.name,
    objective: w.objective,
    acceptance: w.acceptance,
    status: w.status,
    disposition: dispositionOf(w),
    label: stateLabel(w, run, liveness),
    liveness,
    turns: w.turns ?? 0,
    summary: w.summary ?? null,
    attempt: attempt ? { seq: attempt.seq, reason: attempt.reason, state: attempt.state } : null,
    autoResumes: w.autoResumes,
    lastProgressAt: w.stall.lastProgressAt ?? null,
    noProgressAttempts: w.stall.noProgressAttempts,
    stallWarning: w.stall.warned,
    conversation: {
      state: w.conversation.state,
      binding: w.conversation.binding,
      url: w.conversation.url ?? null,
      reportedStatus: w.conversation.reportedStatus ?? null,
      errorCode: w.conversation.errorCode ?? null,
    },
    wait: w.wait ?? null,
    pause: w.pause ?? null,
    pendingContinuation: w.intent ? { reasons: w.intent.reasons, since: w.intent.createdAt } : null,
    policy: run ? effectivePolicy(run, w) : ({} as ContinuationPolicy),
    policyOverride: w.policyOverride,
    unreadMessages: w.inboxSeq - w.inboxReadSeq,
    worktrees: ownedClaims(w).map((c) => c.location),
    adopted: w.adoptedAt !== undefined,
    ...conversationFields(w),
  };
}

export function runView(
  state: DomainState,
  run: Run,
  view: ViewContext = detachedView(),
): Immutable<RunView> {
  const counts: Record<StateLabel, number> = {
    Working: 0,
    Resuming: 0,
    "Needs you": 0,
    Waiting: 0,
    Paused: 0,
    Stalled: 0,
    Idle: 0,
    Complete: 0,
    Failed: 0,
    Stopped: 0,
  };
  for (const w of Object.values(state.workers)) {
    if (w.runId !== run.id) continue;
    counts[stateLabel(w, run, workerLiveness(state, w, view.now, view.env))] += 1;
  }
  return {
    id: run.id,
    name: run.name,
    objective: run.objective,
    status: run.status,
    createdAt: run.createdAt,
    endedAt: run.endedAt ?? null,
    defaultPolicy: run.defaultPolicy,
    counts,
  };
}

/** One execution attempt as every operation answers it (worker_get, ui_worker_detail, provenance_get). */
export function attemptView(a: Attempt): Immutable<AttemptView> {
  return {
    id: a.id,
    seq: a.seq,
    reason: a.reason,
    resumeOf: a.resumeOf ?? null,
    state: a.state,
    delivery: a.delivery,
    promptKind: a.promptKind,
    promptId: a.promptId,
    wakeReasons: a.wakeReasons,
    scheduledAt: a.scheduledAt,
    submittedAt: a.submittedAt ?? null,
    terminalAt: a.terminalAt ?? null,
    outcome: a.outcome ?? null,
    errorCode: a.errorCode ?? null,
    executorId: a.executorId ?? null,
  };
}
