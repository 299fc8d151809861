// Execution attempts: scheduling one, moving it through its states, and no-progress accounting
// (docs/continuation-core.md).
import { castDraft } from "immer";
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import type { Ctx, DraftWorker } from "./context.ts";
import { type PromptContext, promptIdFor } from "./prompts/render.ts";
import { COMMAND_TYPES, commandFor } from "./commands.ts";
import type { EventType } from "./events.ts";
import type { Attempt, AttemptReason, AttemptState, Delivery, Intent, PromptKind } from "./model.ts";
import { noteScheduled, rolloverBrief } from "./rollover.ts";

/** How long the executor has to get a submission done before it must report a failure code instead. */
export const COMMAND_DEADLINE_MS = 120_000;

export interface AttemptPlan {
  readonly reason: AttemptReason;
  readonly delivery: Delivery;
  readonly promptKind: PromptKind;
  readonly intent: Intent;
}

export function attemptSnapshot(attempt: Attempt): Record<string, unknown> {
  const { intent: _intent, ...rest } = attempt;
  return rest;
}

/** Creates the next attempt, appends its events and asks the executor to deliver it. */
export function scheduleAttempt(ctx: Ctx, w: DraftWorker, plan: AttemptPlan): void {
  const previous = w.current;
  // Steering would land inside the running turn: it is set aside, superseded only once the steer is submitted.
  if (previous && plan.delivery === "steer" && !isEnded(previous.state)) w.steeredTurn = previous;
  const seq = w.attemptCount + 1;
  const id = `${w.id}:${seq}`;
  const run = ctx.run(w.runId);
  if (!run) throw new Error(`worker ${w.id} refers to missing run ${w.runId}`);
  const [root] = ctx.findWorkers((r) => r.runId === w.runId && r.path === "/root");
  if (plan.reason === "handoff" || plan.reason === "rollover") noteScheduled(ctx, w, plan.reason, seq);
  const prompts: PromptContext = {
    worker: w,
    run,
    ...(root ? { rootWorker: root } : {}),
    ...(w.rollover ? { brief: rolloverBrief(ctx.state, w) } : {}),
  };
  // The template version is decided here and stored, so the attempt records exactly what was sent.
  const promptId = promptIdFor(
    {
      kind: plan.promptKind,
      workerPath: w.path,
      attemptSeq: seq,
      reason: plan.reason,
      wakeReasons: plan.intent.reasons,
      texts: [],
    },
    prompts,
  );
  const attempt: Attempt = {
    id,
    runId: w.runId,
    workerId: w.id,
    seq,
    reason: plan.reason,
    ...(previous && plan.reason !== "initial" ? { resumeOf: previous.id } : {}),
    state: "scheduled",
    delivery: plan.delivery,
    promptKind: plan.promptKind,
    promptId,
    wakeReasons: [...plan.intent.reasons],
    commandId: `${id}:cmd`,
    idempotencyKey: `${COMMAND_TYPES[plan.delivery]}:${id}`,
    deadlineAt: ctx.now + COMMAND_DEADLINE_MS,
    scheduledAt: ctx.now,
    progressSeen: false,
    intent: plan.intent,
  };
  w.attemptCount = seq;
  w.current = castDraft(attempt);
  w.intent = undefined;
  ctx.emit("execution.scheduled", w.runId, w.id, { execution: attemptSnapshot(attempt) });
  if (plan.reason !== "initial") {
    ctx.emit("execution.resume_scheduled", w.runId, w.id, {
      executionId: id,
      reason: plan.reason,
      wakeReasons: attempt.wakeReasons,
    });
  }
  ctx.effects.push({ kind: "command", command: commandFor(w, attempt, prompts) });
}

export function isEnded(state: AttemptState): boolean {
  return !(state === "scheduled" || state === "submitted" || state === "generating");
}

/** Applies a change to the current attempt and appends the event describing it, with the attempt's snapshot. */
export function updateAttempt(ctx: Ctx, w: DraftWorker, patch: Partial<Attempt>, type: EventType): void {
  const current = w.current;
  if (!current) return;
  Object.assign(current, patch);
  ctx.emit(type, w.runId, w.id, { execution: attemptSnapshot(current) });
}

const END_EVENTS: Record<AttemptState, EventType> = {
  scheduled: "execution.scheduled",
  submitted: "execution.submitted",
  generating: "execution.generating",
  idle: "execution.idle",
  completed: "execution.completed",
  blocked: "execution.blocked",
  failed: "execution.failed",
  cancelled: "execution.cancelled",
};

/** How an attempt ended: recorded on it; `countProgress` lets a turn without progress count for the stall guard. */
export interface EndOptions {
  readonly outcome: string;
  readonly errorCode?: string;
  readonly detail?: string;
  readonly countProgress: boolean;
}

/** Ends the current attempt; an ended turn without durable progress counts towards the stall guard. */
export function endAttempt(
  ctx: Ctx,
  w: DraftWorker,
  state: AttemptState,
  opts: EndOptions,
  policy?: ContinuationPolicy,
): void {
  if (w.current) endTurn(ctx, w, w.current, state, opts, policy);
}

/** Ends `attempt` (the current one, or the turn a pending steer is aimed at) unless it has ended already. */
function endTurn(
  ctx: Ctx,
  w: DraftWorker,
  attempt: NonNullable<DraftWorker["current"]>,
  state: AttemptState,
  opts: EndOptions,
  policy?: ContinuationPolicy,
): void {
  if (isEnded(attempt.state)) return;
  Object.assign(attempt, {
    state,
    outcome: opts.outcome,
    terminalAt: ctx.now,
    ...(state === "idle" ? { idleAt: ctx.now } : {}),
    ...(opts.errorCode ? { errorCode: opts.errorCode } : {}),
    ...(opts.detail ? { errorDetail: opts.detail } : {}),
  } satisfies Partial<Attempt>);
  ctx.emit(END_EVENTS[state], w.runId, w.id, { execution: attemptSnapshot(attempt) });
  if (opts.countProgress && policy && !attempt.progressSeen) countNoProgressAttempt(ctx, w, policy);
}

/**
 * Settles the turn a steer was aimed at once the steer's fate is known: submitted → that turn is superseded;
 * not submitted → it is the current attempt again (it is still running, and its own end will be recorded).
 */
export function settleSteeredTurn(ctx: Ctx, w: DraftWorker, steerSubmitted: boolean): void {
  const turn = w.steeredTurn;
  if (!turn) return;
  w.steeredTurn = undefined;
  if (isEnded(turn.state)) return;
  if (!steerSubmitted) {
    w.current = turn;
    return;
  }
  endTurn(ctx, w, turn, "completed", { outcome: "superseded_by_steer", countProgress: false });
}

/** The attempt whose turn is running now: the current one, or the turn a still-pending steer is aimed at. */
export function runningTurn(w: DraftWorker): DraftWorker["current"] {
  const turn = w.steeredTurn;
  if (turn && !isEnded(turn.state)) return turn;
  const current = w.current;
  return current && !isEnded(current.state) && current.state !== "scheduled" ? current : undefined;
}

/** Ends the running turn (see runningTurn) like endAttempt; a pending steer stays pending. */
export function endRunningTurn(
  ctx: Ctx,
  w: DraftWorker,
  state: AttemptState,
  opts: EndOptions,
  policy?: ContinuationPolicy,
): void {
  const turn = w.steeredTurn;
  if (!turn || isEnded(turn.state)) {
    endAttempt(ctx, w, state, opts, policy);
    return;
  }
  endTurn(ctx, w, turn, state, opts, policy);
  w.steeredTurn = undefined;
}

/** The state an attempt ends in when its turn goes idle, given what the worker said meanwhile. */
export function endStateForIdle(w: DraftWorker): AttemptState {
  if (w.status === "completed") return "completed";
  if (w.status === "failed") return "failed";
  if (w.status === "cancelled") return "cancelled";
  if (w.wait) return "blocked";
  return "idle";
}

function countNoProgressAttempt(ctx: Ctx, w: DraftWorker, policy: ContinuationPolicy): void {
  if (w.status !== "active") return;
  const stall = w.stall;
  stall.noProgressAttempts += 1;
  const n = stall.noProgressAttempts;
  if (policy.stallPauseAfterNoProgressAttempts !== null && n >= policy.stallPauseAfterNoProgressAttempts) {
    pauseForStall(ctx, w, `${n} consecutive execution attempts without progress`);
  } else if (
    policy.stallWarningAfterNoProgressAttempts !== null &&
    n >= policy.stallWarningAfterNoProgressAttempts &&
    !stall.warned
  ) {
    warnStall(ctx, w, `${n} consecutive execution attempts without progress`);
  }
}

export function warnStall(ctx: Ctx, w: DraftWorker, why: string): void {
  w.stall.warned = true;
  ctx.emit("continuation.warning", w.runId, w.id, { why, noProgressAttempts: w.stall.noProgressAttempts });
}

export function pauseForStall(ctx: Ctx, w: DraftWorker, why: string): void {
  if (w.pause?.source === "stall") return;
  w.pause = { source: "stall", reason: why, at: ctx.now };
  w.stall.warned = true;
  // A paused worker's no-progress clock stands still; stopping it here, not on the next pass, keeps the
  // scheduler's timer from being armed at a deadline that has already passed.
  w.stall.clockRunning = false;
  w.stall.baselineAt = ctx.now;
  ctx.emit("execution.stalled", w.runId, w.id, { why, noProgressAttempts: w.stall.noProgressAttempts });
  ctx.emit("continuation.paused_for_stall", w.runId, w.id, { why });
}

/**
 * Records durable progress: marks the current attempt productive and resets the stall guard.
 * With `requireProgressHeartbeat`, only explicit `worker.progress` reports count.
 */
export function recordProgress(
  ctx: Ctx,
  w: DraftWorker,
  policy: ContinuationPolicy,
  heartbeat: boolean,
): void {
  if (policy.requireProgressHeartbeat && !heartbeat) return;
  // Progress belongs to the turn that made it: with a steer pending, that is the turn the steer is aimed at.
  const turn = w.steeredTurn ?? w.current;
  if (turn) turn.progressSeen = true;
  w.stall.noProgressAttempts = 0;
  w.stall.lastProgressAt = ctx.now;
  w.stall.progressCursor += 1;
  w.stall.baselineAt = ctx.now;
  w.stall.warned = false;
}
