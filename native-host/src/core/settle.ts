// After every input: runs each worker's timers (stall clock, keepalive) and acts on the delivery decision (evaluate.ts).
import { current, isDraft } from "immer";
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import { ADOPT_WAKE } from "./adopt.ts";
import { endAttempt, pauseForStall, scheduleAttempt, warnStall } from "./attempts.ts";
import type { Ctx, DraftWorker } from "./context.ts";
import { evaluateIntent } from "./evaluate.ts";
import { addWake, dropIntent } from "./intents.ts";
import {
  type AttemptReason,
  type Delivery,
  type DomainState,
  type Intent,
  type PromptKind,
  type Run,
  submittedUnseen,
  type Worker,
} from "./model.ts";
import { governingPolicy } from "./policy.ts";
import { rolloverDeadline, settleRollover } from "./rollover.ts";

/** Tests switch the filter off to check that it never skips a worker settling would have changed. */
export const settleOptions = { filter: true };

export function settleAll(ctx: Ctx): void {
  // Workers this input did not touch are checked on the plain input state: reading every worker through
  // the draft would make immer proxy and finalize all of them on every input.
  const changedRuns = new Set(ctx.touchedRuns);
  const touched = new Set(ctx.touched);
  for (const id of new Set([...Object.keys(ctx.base.workers), ...touched])) {
    const plain = ctx.base.workers[id];
    const mustLook = touched.has(id) || !plain || changedRuns.has(plain.runId);
    if (!mustLook && settleOptions.filter) {
      const run = ctx.base.runs[plain.runId];
      if (!run || !mayAct(ctx.base, run, plain, ctx.now)) continue;
    }
    const w = ctx.worker(id);
    if (w) settleWorker(ctx, w);
  }
}

/**
 * A cheap, conservative pre-check: false only when `settleWorker` would certainly change nothing (no
 * intent, no due keepalive or stall deadline, no stall-clock switch, no idle runnable Auto Resume worker).
 */
function mayAct(state: DomainState, run: Run, w: Worker, now: number): boolean {
  // A rollover may change (an ended worker's waits for its create's result, then goes: settleRollover).
  if (w.intent || w.rollover) return true;
  if (run.status !== "active" || w.status !== "active") return w.keepaliveAt !== undefined;
  if (w.keepaliveAt !== undefined && now >= w.keepaliveAt) return true;
  const policy = governingPolicy(state, run, w);
  if (stallClockShouldRun(w, policy) !== w.stall.clockRunning) return true;
  if (w.stall.clockRunning && now >= stallDeadline(w, policy)) return true;
  if (now >= capDeadline(w, policy)) return true;
  const c = w.conversation;
  return policy.mode === "auto" && runnable(w) && (c.state === "idle" || c.state === "ready");
}

function settleWorker(ctx: Ctx, w: DraftWorker): void {
  const run = ctx.run(w.runId);
  if (!run) return;
  settleRollover(ctx, w);
  leaveTurnBehind(ctx, w);
  if (run.status !== "active" || w.status !== "active") {
    dropIntent(ctx, w, run.status !== "active" ? "run_ended" : "worker_ended");
    w.keepaliveAt = undefined;
    return;
  }
  const policy = governingPolicy(ctx.state, run, w);
  runStallClock(ctx, w, policy);
  checkCaps(ctx, w, policy);
  fireKeepalive(ctx, w, policy);
  wakeIdleRunnable(ctx, w, policy);

  const intent = w.intent;
  if (!intent) return;
  const decision = evaluateIntent(run, w, intent, policy, ctx.now);
  switch (decision.kind) {
    case "cancel":
      dropIntent(ctx, w, decision.why);
      return;
    case "hold":
      return;
    case "wait":
      if (decision.why === "spacing_floor" && intent.deferredUntil !== decision.until) {
        intent.deferredUntil = decision.until;
        ctx.emit("execution.deferred", w.runId, w.id, {
          notBefore: decision.until,
          wakeReasons: [...intent.reasons],
        });
      }
      return;
    case "deliver":
      scheduleAttempt(ctx, w, {
        reason: reasonFor(w, intent, decision.delivery),
        delivery: decision.delivery,
        promptKind: promptFor(w, intent, decision.delivery),
        intent: isDraft(intent) ? current(intent) : intent,
      });
      return;
  }
}

/**
 * A move to a new conversation past a turn of ours whose tab is gone (it does not wait for it: evaluate.ts): its end will never be
 * seen, so it is recorded as left behind now, before this pass's timers are looked at, never overwritten by the move.
 */
function leaveTurnBehind(ctx: Ctx, w: DraftWorker): void {
  if (w.rollover?.phase !== "opening" || w.status !== "active") return;
  const a = w.current;
  const binding = w.conversation.binding;
  if (!a || (a.state !== "submitted" && a.state !== "generating")) return;
  if (binding === "bound" || binding === "detached") return;
  endAttempt(ctx, w, "idle", { outcome: "conversation_left", countProgress: false });
}

/** A product error, a rate limit or a lost tab holds the worker without it being the agent's fault: no stall time. */
function stallClockShouldRun(w: Worker, policy: ContinuationPolicy): boolean {
  const c = w.conversation;
  const reachable = c.state !== "error" && c.state !== "closed" && c.binding !== "unavailable";
  return policy.mode === "auto" && runnable(w) && reachable && w.rateLimit === undefined;
}

function runnable(w: Worker): boolean {
  return w.status === "active" && !w.wait && !w.pause;
}

/** Time-based stall guard: the clock only runs while the worker is runnable under Auto Resume. */
function runStallClock(ctx: Ctx, w: DraftWorker, policy: ContinuationPolicy): void {
  const running = stallClockShouldRun(w, policy);
  if (running !== w.stall.clockRunning) {
    // Time spent held (waiting, paused, manual) is not time without progress: restart the clock.
    w.stall.clockRunning = running;
    w.stall.baselineAt = ctx.now;
  }
  // A turn still running is never stall-paused mid-turn: the time-based decision is taken when the turn ends.
  if (!running || turnRunning(w)) return;
  const elapsed = ctx.now - w.stall.baselineAt;
  const minutes = Math.round(elapsed / 60_000);
  if (policy.stallPauseAfterNoProgressMs !== null && elapsed >= policy.stallPauseAfterNoProgressMs) {
    pauseForStall(ctx, w, `no progress for ${minutes} min`);
  } else if (
    policy.stallWarningAfterNoProgressMs !== null &&
    elapsed >= policy.stallWarningAfterNoProgressMs &&
    !w.stall.warned
  ) {
    warnStall(ctx, w, `no progress for ${minutes} min`);
  }
}

/** A turn is generating, or one we submitted has not been seen to end yet. */
function turnRunning(w: Worker): boolean {
  const state = w.current?.state;
  return w.conversation.state === "generating" || state === "submitted" || state === "generating";
}

/**
 * Optional per-worker caps (automatic turns, wall time), counted from spawn or the last Continue anyway on a cap:
 * reaching one holds the worker ("cap reached") at a turn boundary.
 */
function checkCaps(ctx: Ctx, w: DraftWorker, policy: ContinuationPolicy): void {
  if (w.pause || w.wait || turnRunning(w)) return;
  const base = w.capBase ?? { autoResumes: 0, at: w.createdAt };
  let why: string | undefined;
  if (policy.maxAutoTurns !== null && w.autoResumes - base.autoResumes >= policy.maxAutoTurns) {
    why = `${policy.maxAutoTurns} automatic turns reached`;
  } else if (policy.maxWallTimeMs !== null && ctx.now - base.at >= policy.maxWallTimeMs) {
    why = `wall time of ${Math.round(policy.maxWallTimeMs / 60_000)} min reached`;
  }
  if (!why) return;
  w.pause = { source: "cap", reason: why, at: ctx.now };
  ctx.emit("execution.paused", w.runId, w.id, { source: "cap", reason: why });
}

/** When the wall-time cap is reached (Infinity: no cap). */
function capDeadline(w: Worker, policy: ContinuationPolicy): number {
  if (policy.maxWallTimeMs === null || w.pause) return Infinity;
  return (w.capBase?.at ?? w.createdAt) + policy.maxWallTimeMs;
}

/** Active keepalive: due even while generating; it becomes a coalesced, steerable wake. */
function fireKeepalive(ctx: Ctx, w: DraftWorker, policy: ContinuationPolicy): void {
  if (w.keepaliveAt === undefined || ctx.now < w.keepaliveAt) return;
  w.keepaliveAt = undefined;
  if (policy.mode !== "auto" || !runnable(w)) return;
  addWake(ctx, w, { reason: "active_keepalive", allowSteer: true });
}

/**
 * An active Auto Resume worker whose conversation is idle with nothing pending gets a turn,
 * whatever brought it there (restart, policy switched to auto, released from a hold).
 */
function wakeIdleRunnable(ctx: Ctx, w: DraftWorker, policy: ContinuationPolicy): void {
  if (w.intent || policy.mode !== "auto" || !runnable(w)) return;
  const c = w.conversation;
  if ((c.binding !== "bound" && c.binding !== "detached") || (c.state !== "idle" && c.state !== "ready"))
    return;
  const current = w.current;
  if (current && (current.state === "scheduled" || current.state === "generating")) return;
  if (submittedUnseen(w)) return;
  addWake(ctx, w, { reason: "recovery", notBefore: c.since + policy.idleGraceMs });
}

/** True while the bootstrap turn has not been delivered: its intent comes back when the executor proves that. */
function bootstrapPending(intent: Intent): boolean {
  return intent.reasons.includes("spawn") || intent.reasons.includes(ADOPT_WAKE);
}

function reasonFor(w: Worker, intent: Intent, delivery: Delivery): AttemptReason {
  const rolling = rolloverTurn(w, delivery);
  if (rolling) return rolling;
  if (delivery === "create" || bootstrapPending(intent)) return "initial";
  if (intent.manual) return "manual_resume";
  if (intent.texts.length > 0) return "followup";
  // Delivered because a person or /root asked (a human answer without text), not by Auto Resume: in
  // manual mode such a turn must not be recorded, or counted, as automatic.
  if (intent.explicit) return "manual_resume";
  if (intent.reasons.length === 1 && intent.reasons[0] === "recovery") return "recovery";
  return "auto_resume";
}

function promptFor(w: Worker, intent: Intent, delivery: Delivery): PromptKind {
  const rolling = rolloverTurn(w, delivery);
  if (rolling) return rolling;
  if (delivery === "create" || bootstrapPending(intent)) return "bootstrap";
  if (intent.corrective) return "corrective";
  if (intent.texts.length > 0) return "followup";
  if (intent.reasons.includes("active_keepalive")) return "keepalive";
  if (intent.afterDeliveryTimeout) return "continue";
  return "resume";
}

/** A rollover's turn: the request for the brief (a send into the old conversation) or the new one's first prompt. */
function rolloverTurn(w: Worker, delivery: Delivery): "handoff" | "rollover" | undefined {
  const phase = w.rollover?.phase;
  if (phase === "opening" && delivery === "create") return "rollover";
  if (phase === "brief_requested" && delivery === "send") return "handoff";
  return undefined;
}

/** The earliest moment at which a tick could change something; the scheduler arms one timer for it. */
export function nextDeadline(state: DomainState, now: number): number | null {
  let earliest = Infinity;
  for (const w of Object.values(state.workers)) {
    const run = state.runs[w.runId];
    if (!run || run.status !== "active" || w.status !== "active") continue;
    const policy = governingPolicy(state, run, w);
    if (w.keepaliveAt !== undefined) earliest = Math.min(earliest, w.keepaliveAt);
    earliest = Math.min(earliest, rolloverDeadline(w));
    // Mid-turn the stall decision waits for the turn's end, which is an input, not a deadline.
    if (w.stall.clockRunning && !turnRunning(w)) {
      earliest = Math.min(earliest, stallDeadline(w, policy));
    }
    if (!turnRunning(w)) earliest = Math.min(earliest, capDeadline(w, policy));
    if (w.intent) {
      const d = evaluateIntent(run, w, w.intent, policy, now);
      if (d.kind === "wait") earliest = Math.min(earliest, d.until);
    }
  }
  return Number.isFinite(earliest) ? earliest : null;
}

function stallDeadline(w: Worker, policy: ContinuationPolicy): number {
  const limits = [
    w.stall.warned ? null : policy.stallWarningAfterNoProgressMs,
    policy.stallPauseAfterNoProgressMs,
  ].filter((x): x is number => x !== null);
  return limits.length === 0 ? Infinity : w.stall.baselineAt + Math.min(...limits);
}

export type { Run };
