// Read models shared by MCP tools and the extension UI: runs and workers in operator words (spec 17.1).
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import { AWAITING_APPROVAL } from "../../../shared/error-codes.ts";
import type { Attempt, DomainState, Run, Worker } from "../core/model.ts";
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

/**
 * The worker's state in operator words. With its run given, a turn that only Auto Resume would send is not
 * "Resuming" while the worker's policy is manual: the core holds it (`manual_policy`) until a person acts, so the
 * worker is Idle and Continue now is offered.
 */
export function stateLabel(w: Worker, run: Run | undefined): StateLabel {
  if (awaitingApproval(w)) return "Needs you";
  switch (dispositionOf(w)) {
    case "completed":
      return "Complete";
    case "failed":
      return "Failed";
    case "cancelled":
      return "Stopped";
    case "awaiting_human":
      return "Needs you";
    case "awaiting_dependency":
      return "Waiting";
    case "paused":
      return w.pause?.source === "stall" ? "Stalled" : "Paused";
    case "running":
      return w.current?.state === "scheduled" ? "Resuming" : "Working";
    case "awaiting_execution":
      return w.intent && !heldForPerson(w, w.intent, run) ? "Resuming" : "Idle";
  }
}

/**
 * A tool-confirmation card holds the turn in ChatGPT until a person answers it there (the page reports it; the core
 * submits nothing meanwhile): the worker needs someone, whatever else it waits for, until the page moves on.
 */
export function awaitingApproval(w: Worker): boolean {
  return (
    w.status === "active" &&
    w.conversation.state === "error" &&
    w.conversation.errorCode === AWAITING_APPROVAL
  );
}

/** Mirrors the core's `manual_policy` hold (evaluate.ts): manual mode delivers only explicit intents. */
function heldForPerson(w: Worker, intent: NonNullable<Worker["intent"]>, run: Run | undefined): boolean {
  return run !== undefined && effectivePolicy(run, w).mode === "manual" && !intent.explicit;
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

export function workerView(state: DomainState, w: Worker): WorkerView {
  const run = state.runs[w.runId];
  const attempt: Attempt | undefined = w.current;
  return {
    id: w.id,
    runId: w.runId,
    path: w.path,
    name: w.name,
    objective: w.objective,
    acceptance: w.acceptance,
    status: w.status,
    disposition: dispositionOf(w),
    label: stateLabel(w, run),
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

export function runView(state: DomainState, run: Run): RunView {
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
  for (const w of Object.values(state.workers)) if (w.runId === run.id) counts[stateLabel(w, run)] += 1;
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
