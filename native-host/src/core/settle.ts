// After every input: runs each worker's timers (stall clock, keepalive) and acts on the 10.2 decision.
import { current, isDraft } from "immer";
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import { pauseForStall, scheduleAttempt, warnStall } from "./attempts.ts";
import type { Ctx, DraftWorker } from "./context.ts";
import { evaluateIntent } from "./evaluate.ts";
import { addWake, dropIntent } from "./intents.ts";
import type { AttemptReason, Delivery, DomainState, Intent, PromptKind, Run, Worker } from "./model.ts";
import { effectivePolicy } from "./policy.ts";

export function settleAll(ctx: Ctx): void {
  for (const w of Object.values(ctx.state.workers)) {
    if (w.status === "active" || w.intent || w.keepaliveAt !== undefined) settleWorker(ctx, w);
  }
}

function settleWorker(ctx: Ctx, w: DraftWorker): void {
  const run = ctx.run(w.runId);
  if (!run) return;
  if (run.status !== "active" || w.status !== "active") {
    dropIntent(ctx, w, run.status !== "active" ? "run_ended" : "worker_ended");
    w.keepaliveAt = undefined;
    return;
  }
  const policy = effectivePolicy(run, w);
  runStallClock(ctx, w, policy);
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
        reason: reasonFor(intent, decision.delivery),
        delivery: decision.delivery,
        promptKind: promptFor(intent, decision.delivery),
        intent: isDraft(intent) ? current(intent) : intent,
      });
      return;
  }
}

function runnable(w: Worker): boolean {
  return w.status === "active" && !w.wait && !w.pause;
}

/** Time-based stall guard (16.3): the clock only runs while the worker is runnable under Auto Resume. */
function runStallClock(ctx: Ctx, w: DraftWorker, policy: ContinuationPolicy): void {
  // A product error or a lost tab holds the worker without it being the agent's fault: no stall time.
  const c = w.conversation;
  const reachable = c.state !== "error" && c.state !== "closed" && c.binding !== "unavailable";
  const running = policy.mode === "auto" && runnable(w) && reachable;
  if (running !== w.stall.clockRunning) {
    // Time spent held (waiting, paused, manual) is not time without progress: restart the clock.
    w.stall.clockRunning = running;
    w.stall.baselineAt = ctx.now;
  }
  if (!running) return;
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

/** Active keepalive (10.6): due even while generating; it becomes a coalesced, steerable wake. */
function fireKeepalive(ctx: Ctx, w: DraftWorker, policy: ContinuationPolicy): void {
  if (w.keepaliveAt === undefined || ctx.now < w.keepaliveAt) return;
  w.keepaliveAt = undefined;
  if (policy.mode !== "auto" || !runnable(w)) return;
  addWake(ctx, w, { reason: "active_keepalive", allowSteer: true });
}

/**
 * Spec 13.1.5: an active Auto Resume worker whose conversation is idle with nothing pending gets a turn,
 * whatever brought it there (restart, policy switched to auto, released from a hold).
 */
function wakeIdleRunnable(ctx: Ctx, w: DraftWorker, policy: ContinuationPolicy): void {
  if (w.intent || policy.mode !== "auto" || !runnable(w)) return;
  const c = w.conversation;
  if (c.binding !== "bound" || (c.state !== "idle" && c.state !== "ready")) return;
  const current = w.current;
  if (current && (current.state === "scheduled" || current.state === "generating")) return;
  if (current?.state === "submitted" && c.changes <= (current.submittedAtChange ?? 0)) return;
  addWake(ctx, w, { reason: "recovery", notBefore: c.since + policy.idleGraceMs });
}

/** True while the bootstrap turn has not been delivered: its intent comes back when the executor proves that. */
function bootstrapPending(intent: Intent): boolean {
  return intent.reasons.includes("spawn");
}

function reasonFor(intent: Intent, delivery: Delivery): AttemptReason {
  if (delivery === "create" || bootstrapPending(intent)) return "initial";
  if (intent.manual) return "manual_resume";
  if (intent.texts.length > 0) return "followup";
  // Delivered because a person or /root asked (a human answer without text), not by Auto Resume: in
  // manual mode such a turn must not be recorded, or counted, as automatic.
  if (intent.explicit) return "manual_resume";
  if (intent.reasons.length === 1 && intent.reasons[0] === "recovery") return "recovery";
  return "auto_resume";
}

function promptFor(intent: Intent, delivery: Delivery): PromptKind {
  if (delivery === "create" || bootstrapPending(intent)) return "bootstrap";
  if (intent.corrective) return "corrective";
  if (intent.texts.length > 0) return "followup";
  if (intent.reasons.includes("active_keepalive")) return "keepalive";
  if (intent.afterDeliveryTimeout) return "continue";
  return "resume";
}

/** The earliest moment at which a tick could change something; the scheduler arms one timer for it. */
export function nextDeadline(state: DomainState, now: number): number | null {
  let earliest = Infinity;
  for (const w of Object.values(state.workers)) {
    const run = state.runs[w.runId];
    if (!run || run.status !== "active" || w.status !== "active") continue;
    const policy = effectivePolicy(run, w);
    if (w.keepaliveAt !== undefined) earliest = Math.min(earliest, w.keepaliveAt);
    if (w.stall.clockRunning) {
      earliest = Math.min(earliest, stallDeadline(w, policy));
    }
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
