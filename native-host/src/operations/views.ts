// Read models shared by MCP tools and the extension UI: runs and workers in operator words (spec 17.1).
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import type { Attempt, DomainState, Run, Worker } from "../core/model.ts";
import type { Liveness, LivenessReason } from "../../../shared/liveness.ts";
import { CONNECTED_ENV, type LivenessEnv, workerLiveness } from "../core/liveness.ts";
import { dispositionOf, effectivePolicy } from "../core/policy.ts";
import { ownedClaims } from "../core/worktrees.ts";

/** Spec 17.1 terms; never colour-only in the UI, so the word travels with the state. */
export type StateLabel =
  | "Working"
  | "Resuming"
  | "Needs you"
  | "Waiting"
  | "Paused"
  | "Stalled"
  | "Idle"
  | "Complete"
  | "Failed"
  | "Stopped";

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

export interface WorkerView {
  readonly id: string;
  readonly runId: string;
  readonly path: string;
  readonly name: string;
  readonly objective: string;
  readonly acceptance: readonly string[];
  readonly status: Worker["status"];
  readonly disposition: ReturnType<typeof dispositionOf>;
  readonly label: StateLabel;
  /** Moving, due (with its time) or held (with the reason and remedy): null once the worker has ended. */
  readonly liveness: Liveness | null;
  /** Turns confirmed submitted: what the UI numbers (refused steers and undelivered commands are not turns). */
  readonly turns: number;
  readonly summary: string | null;
  readonly attempt: { readonly seq: number; readonly reason: string; readonly state: string } | null;
  readonly autoResumes: number;
  readonly lastProgressAt: number | null;
  readonly noProgressAttempts: number;
  readonly stallWarning: boolean;
  readonly conversation: {
    readonly state: string;
    readonly binding: string;
    readonly url: string | null;
    /** The agent's own last `status:` line (spec 27.3): a signal only; the worker's state is authoritative. */
    readonly reportedStatus: string | null;
    /** What the page reported with an `error` state (e.g. AWAITING_APPROVAL: a tool card waits for a person). */
    readonly errorCode: string | null;
  };
  readonly wait: Worker["wait"] | null;
  readonly pause: Worker["pause"] | null;
  readonly pendingContinuation: { readonly reasons: readonly string[]; readonly since: number } | null;
  readonly policy: ContinuationPolicy;
  /** Fields the worker sets itself; everything else is the run default. */
  readonly policyOverride: Worker["policyOverride"];
  readonly unreadMessages: number;
  /** Work locations the worker owns now (spec 24); released ones are in provenance_get. */
  readonly worktrees: readonly string[];
  /** Adopted from an open conversation ("Keep this conversation going"): the popup offers Release. */
  readonly adopted: boolean;
}

export function workerView(state: DomainState, w: Worker, view: ViewContext = detachedView()): WorkerView {
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
  };
}

export interface RunView {
  readonly id: string;
  readonly name: string;
  readonly objective: string;
  readonly status: Run["status"];
  readonly createdAt: number;
  readonly endedAt: number | null;
  readonly defaultPolicy: ContinuationPolicy;
  readonly counts: Readonly<Record<StateLabel, number>>;
}

export function runView(state: DomainState, run: Run, view: ViewContext = detachedView()): RunView {
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
