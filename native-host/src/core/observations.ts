// Executor reports (docs/continuation-core.md): conversation states, bindings and command results, applied idempotently.
import type { ContinuationBlockReport } from "../../../shared/continuation-block-report.ts";
import { AWAITING_APPROVAL, RATE_LIMIT_CODES } from "../../../shared/error-codes.ts";
import {
  endAttempt,
  endRunningTurn,
  endStateForIdle,
  isEnded,
  runningTurn,
  settleSteeredTurn,
  updateAttempt,
} from "./attempts.ts";
import { type Ctx, type DraftWorker, type Rejection, reject } from "./context.ts";
import { castDraft } from "immer";
import { clearRateLimit, nextRetry, noteRateLimit } from "./backoff.ts";
import { MESSAGE_DELIVERY_TIMEOUT } from "./evaluate.ts";
import { applyBlock, countInvalidBlock } from "./output-block.ts";
import type { Input } from "./inputs.ts";
import { addWake, withdrawWake } from "./intents.ts";
import type { BindingState, ConversationState, Intent } from "./model.ts";
import { policyOf } from "./policy.ts";
import {
  CONVERSATION_TOO_LONG,
  finishRollover,
  onLengthLimit,
  onTurnEnded,
  trackLeftConversation,
} from "./rollover.ts";

type Of<T extends Input["type"]> = Extract<Input, { type: T }>;

/** Codes with which the executor proves the prompt was NOT submitted: the intent may be delivered later. */
export const NOT_DELIVERED: ReadonlySet<string> = new Set([
  "CANCELLED",
  "STEERING_UNAVAILABLE",
  "TAB_CLOSED",
  "EXECUTOR_UNAVAILABLE",
  "DEADLINE_EXCEEDED",
  "NOT_SIGNED_IN",
  "RATE_LIMITED",
  "USAGE_CAP",
  // Refused before typing: the page says the conversation cannot take another message.
  "CONVERSATION_TOO_LONG",
  // Send was clicked once and the page kept our text and showed no new user turn: it never took the prompt.
  "SEND_IGNORED",
  // Refused before typing: a person's draft is in the composer (never overwritten).
  "DRAFT_IN_COMPOSER",
]);

function known(ctx: Ctx, workerId: string): DraftWorker | Rejection {
  return ctx.worker(workerId) ?? reject("NOT_FOUND", `no worker ${workerId}`);
}

/**
 * Records which executor (browser profile) runs the current attempt, from the first report that proves it:
 * its ack, its result, or a turn observed while the attempt is live. Never overwritten, so two browsers of
 * one backend stay distinguishable in the attempt history.
 */
function noteExecutor(w: DraftWorker, executorId: string | undefined): void {
  const attempt = w.current;
  if (executorId === undefined || !attempt || isEnded(attempt.state)) return;
  attempt.executorId ??= executorId;
}

/** Records the executor holding the worker's conversation (see Conversation.executorId). */
function noteHolder(w: DraftWorker, executorId: string | undefined): void {
  if (executorId !== undefined && w.conversation.executorId !== executorId)
    w.conversation.executorId = executorId;
}

/** Bindings whose browser carries the worker's commands: the tab shows it, or the browser reopens it for them. */
function holds(binding: BindingState): boolean {
  return binding === "bound" || binding === "detached";
}

export function holdConversation(ctx: Ctx, input: Of<"conversation.held">): Rejection | void {
  const w = known(ctx, input.workerId);
  if ("code" in w) return w;
  noteHolder(w, input.executorId);
}

export function observeConversation(ctx: Ctx, input: Of<"conversation.observed">): Rejection | void {
  const w = known(ctx, input.workerId);
  if ("code" in w) return w;
  // Any report, even a stale one, comes from the browser that shows the conversation.
  noteHolder(w, input.executorId);
  const c = w.conversation;
  if (input.seq <= c.observedSeq) return; // stale or replayed report
  // A page that unloads (reload, navigation) says nothing about the conversation: the turn may run on, and where the
  // conversation is open follows the browser's binding reports (docs/continuation-core.md, "Bindings").
  if (input.state === "closed") {
    c.observedSeq = input.seq;
    return;
  }
  const seqAtSubmission = w.current?.state === "submitted" ? w.current.submittedAtSeq : undefined;
  // A scheduled attempt may not have reached this executor yet: only a generating turn proves it did.
  if (w.current?.state !== "scheduled" || input.state === "generating") noteExecutor(w, input.executorId);
  c.observedSeq = input.seq;
  if (input.url !== undefined) c.url = input.url;
  trackLeftConversation(w);
  if (input.continuationStatus !== undefined) c.reportedStatus = input.continuationStatus;
  if (input.continuationBlock?.result === "block") c.reportedStatus = input.continuationBlock.status;
  if (input.visibleChars !== undefined) c.visibleChars = input.visibleChars;
  // A report comes from a tab that shows the conversation (a reopened or revisited one included).
  if (c.binding !== "bound") {
    c.binding = "bound";
    c.changes += 1;
    c.since = ctx.now;
    ctx.emit("binding.changed", w.runId, w.id, { binding: "bound" });
  }
  const sameState = c.state === input.state && (c.errorCode ?? null) === (input.errorCode ?? null);
  // A duplicate report gets no reaction, except the first one after our submission: a turn so short that
  // generating was never seen still ended, and waiting for a change that already happened would stall.
  const firstAfterSubmission = seqAtSubmission !== undefined && input.seq > seqAtSubmission;
  if (sameState && !firstAfterSubmission) return;
  const previous = c.state;
  c.state = input.state;
  c.changes += 1;
  c.since = ctx.now;
  if (input.errorCode === undefined) delete c.errorCode;
  else c.errorCode = input.errorCode;
  onState(ctx, w, previous, input.state, input.errorCode, input.continuationBlock, endedAt(ctx, input.since));
  if (input.state === "idle" || input.state === "ready") onTurnEnded(ctx, w, input.handoffBrief);
  else if (input.state === "error" && input.errorCode === CONVERSATION_TOO_LONG) onLengthLimit(ctx, w);
  if (input.state === "error" && RATE_LIMIT_CODES.has(input.errorCode ?? "") && w.status === "active") {
    noteRateLimit(
      ctx,
      w,
      input.errorCode ?? "RATE_LIMITED",
      input.resetAt,
      policyOf(ctx, w).rateLimitBufferMs,
    );
  }
}

/** How far back a page's evidence time may move the idle grace: a moment's delivery, never a wrong clock. */
export const MAX_EVIDENCE_AGE_MS = 5_000;

/**
 * When the turn ended: the page's evidence time when it gave one (the idle grace counts from the page's own end of turn,
 * not from when the report arrived), clamped to the last few seconds.
 */
function endedAt(ctx: Ctx, since: number | undefined): number {
  if (since === undefined) return ctx.now;
  return Math.min(ctx.now, Math.max(since, ctx.now - MAX_EVIDENCE_AGE_MS));
}

function onState(
  ctx: Ctx,
  w: DraftWorker,
  previous: ConversationState,
  state: ConversationState,
  errorCode: string | undefined,
  block: ContinuationBlockReport | undefined,
  ended: number,
): void {
  const attempt = w.current;
  const live = attempt !== undefined && !isEnded(attempt.state);
  const policy = policyOf(ctx, w);
  switch (state) {
    case "generating":
      // A late Stop button or a thinking pause: the turn did not really end, so the idle wake is withdrawn.
      withdrawWake(w, "idle");
      // A turn that runs proves ChatGPT takes prompts again.
      clearRateLimit(ctx, w);
      // Generation is never proof that a command was delivered: it may be the turn before ours streaming on (a page can
      // ignore a send during a pause of that turn). Only the executor's result, which rests on our marker in a new user
      // turn, makes an attempt submitted (docs/continuation-core.md, "Submission needs proof").
      if (live && attempt.state === "scheduled") return;
      if (live && attempt.state !== "generating") {
        updateAttempt(
          ctx,
          w,
          { state: "generating", generatingAt: ctx.now, submittedAt: attempt.submittedAt ?? ctx.now },
          "execution.generating",
        );
      }
      return;
    case "idle":
    case "ready": {
      // Ours: a turn we submitted (possibly the one a still-pending steer was aimed at).
      const turn = runningTurn(w);
      if (!turn && previous !== "generating") return;
      // The block speaks for the turn that just ended, ours or one the person typed.
      const toolProgress = turn?.progressSeen === true;
      const outcome = applyBlock(ctx, w, block, policy);
      if (turn)
        endRunningTurn(ctx, w, endStateForIdle(w), { outcome: "turn_ended", countProgress: true }, policy);
      if (outcome === "invalid" && block) countInvalidBlock(ctx, w, block, policy, toolProgress);
      // The worker is still unfinished (addWake ignores one that has just ended).
      addWake(ctx, w, { reason: "idle", notBefore: ended + policy.idleGraceMs });
      return;
    }
    case "error":
      if (errorCode === MESSAGE_DELIVERY_TIMEOUT) {
        // A delivery timeout: the attempt ends; the answer is a fresh exactly-once `continue`, never Retry.
        if (runningTurn(w)) {
          endRunningTurn(
            ctx,
            w,
            "failed",
            { outcome: "delivery_timeout", errorCode, countProgress: true },
            policy,
          );
        }
        withdrawWake(w, "idle");
        addWake(ctx, w, {
          reason: "delivery_timeout",
          afterDeliveryTimeout: true,
          notBefore: ctx.now + policy.idleGraceMs,
        });
      } else if (errorCode !== AWAITING_APPROVAL && runningTurn(w)) {
        // Other product errors end the turn. A tool-confirmation card only pauses it: once a person
        // answers it in ChatGPT the same turn streams on and ends at its own idle; meanwhile the error state holds
        // every wake and stops the stall clock.
        endRunningTurn(
          ctx,
          w,
          "failed",
          { outcome: "product_error", ...(errorCode ? { errorCode } : {}), countProgress: true },
          policy,
        );
      }
      ctx.emit("execution.error", w.runId, w.id, { errorCode: errorCode ?? null });
      return;
    case "closed": // never reaches here (observeConversation keeps only its sequence number)
    case "unknown":
      return;
  }
}

export function changeBinding(ctx: Ctx, input: Of<"binding.changed">): Rejection | void {
  const w = known(ctx, input.workerId);
  if ("code" in w) return w;
  const c = w.conversation;
  if (holds(input.binding)) noteHolder(w, input.executorId);
  if (input.url !== undefined) c.url = input.url;
  trackLeftConversation(w);
  if (c.binding === input.binding) return;
  c.binding = input.binding;
  c.changes += 1;
  c.since = ctx.now;
  ctx.emit("binding.changed", w.runId, w.id, { binding: input.binding });
}

function commandAttempt(ctx: Ctx, workerId: string, commandId: string): DraftWorker | Rejection {
  const w = known(ctx, workerId);
  if ("code" in w) return w;
  if (w.current?.commandId !== commandId)
    return reject("UNKNOWN_COMMAND", `command ${commandId} is not current for ${w.path}`);
  return w;
}

export function ackCommand(ctx: Ctx, input: Of<"command.acked">): Rejection | void {
  const w = commandAttempt(ctx, input.workerId, input.commandId);
  if ("code" in w) return w;
  noteExecutor(w, input.executorId);
  if (w.current && w.current.ackedAt === undefined) w.current.ackedAt = ctx.now;
}

export function commandResult(ctx: Ctx, input: Of<"command.result">): Rejection | void {
  const w = commandAttempt(ctx, input.workerId, input.commandId);
  if ("code" in w) return w;
  const attempt = w.current;
  if (!attempt || attempt.state !== "scheduled") return; // duplicate result: already applied
  noteExecutor(w, input.executorId);
  if (input.outcome === "submitted") {
    onSubmitted(ctx, w, input.url);
    return;
  }
  const code = input.errorCode ?? "UNKNOWN";
  const detail = input.detail;
  if (NOT_DELIVERED.has(code)) {
    endAttempt(ctx, w, "cancelled", {
      outcome: "not_delivered",
      errorCode: code,
      ...(detail ? { detail } : {}),
      countProgress: false,
    });
    settleSteeredTurn(ctx, w, false);
    if (attempt.intent && w.status === "active") restoreIntent(ctx, w, attempt.intent, code);
    // Refused because the conversation is too long: the remedy is a new conversation, where the policy allows it.
    if (code === CONVERSATION_TOO_LONG) onLengthLimit(ctx, w);
    // The move is a different delivery than the refused one (a send refused for the limit, a withdrawn brief
    // request): that refusal's backoff does not hold it.
    const moving = code === CONVERSATION_TOO_LONG || attempt.reason === "handoff";
    if (moving && w.rollover?.phase === "opening" && w.intent) delete w.intent.retry;
    if (RATE_LIMIT_CODES.has(code) && w.status === "active") {
      noteRateLimit(ctx, w, code, undefined, policyOf(ctx, w).rateLimitBufferMs, true);
    }
    return;
  }
  // Ambiguous delivery or a changed UI: never resend (a turn must not be sent twice); pause and surface it.
  endAttempt(ctx, w, "failed", {
    outcome: "delivery_failed",
    errorCode: code,
    ...(detail ? { detail } : {}),
    countProgress: false,
  });
  // Not proven either way: the turn it was aimed at stays the turn of record until its own end.
  settleSteeredTurn(ctx, w, false);
  if (w.status === "active") {
    w.pause = { source: "error", reason: detail ?? code, at: ctx.now, errorCode: code };
    ctx.emit("execution.paused", w.runId, w.id, { source: "error", errorCode: code });
  }
}

/**
 * Proven not delivered: the wish to continue comes back, merged with any wake that arrived meanwhile (an idle that
 * came while a steer was refused must not be overwritten). A refused steer waits for the turn's end; a rate limit
 * waits for its time (noteRateLimit); any other refusal is tried again with backoff, or at once when the conversation
 * changes or a browser connects (docs/continuation-core.md, "Refused commands").
 */
function restoreIntent(ctx: Ctx, w: DraftWorker, sent: Intent, code: string): void {
  const steerRefused = code === "STEERING_UNAVAILABLE";
  const retry = steerRefused || RATE_LIMIT_CODES.has(code) ? undefined : nextRetry(ctx, w, sent, code);
  const existing = w.intent;
  // The refusal's retry (if any) replaces the one the sent intent carried.
  const { retry: _previous, ...unsent } = sent;
  const merged: Intent = {
    ...unsent,
    reasons: [...new Set([...sent.reasons, ...(existing?.reasons ?? [])])],
    texts: [...sent.texts, ...(existing?.texts ?? [])],
    notBefore: Math.max(sent.notBefore, existing?.notBefore ?? 0),
    explicit: sent.explicit || (existing?.explicit ?? false),
    manual: sent.manual || (existing?.manual ?? false),
    corrective: sent.corrective || (existing?.corrective ?? false),
    // A refused steer goes out after the turn; a wake that came meanwhile may still steer only if it asked to.
    allowSteer: (steerRefused ? false : sent.allowSteer) || (existing?.allowSteer ?? false),
    afterDeliveryTimeout: sent.afterDeliveryTimeout || (existing?.afterDeliveryTimeout ?? false),
    // Continue now overrides once: the refused attempt used it up.
    override: existing?.override ?? false,
    ...(retry ? { retry } : {}),
  };
  w.intent = castDraft(merged);
  if (retry) {
    ctx.emit("execution.retry_scheduled", w.runId, w.id, { code, at: retry.at, refusals: retry.count });
  }
}

export function onSubmitted(ctx: Ctx, w: DraftWorker, url: string | undefined): void {
  const attempt = w.current;
  if (!attempt) return;
  const c = w.conversation;
  if (url !== undefined) c.url = url;
  trackLeftConversation(w);
  if (c.binding !== "bound") {
    c.binding = "bound";
    c.changes += 1;
  }
  updateAttempt(
    ctx,
    w,
    { state: "submitted", submittedAt: ctx.now, submittedAtChange: c.changes, submittedAtSeq: c.observedSeq },
    "execution.submitted",
  );
  if (attempt.delivery === "steer") settleSteeredTurn(ctx, w, true);
  w.lastSubmittedAt = ctx.now;
  w.turns = (w.turns ?? 0) + 1;
  if (attempt.reason === "auto_resume") w.autoResumes += 1;
  if (attempt.reason === "rollover") finishRollover(ctx, w, url);
  if (attempt.reason !== "initial") {
    ctx.emit("execution.resumed", w.runId, w.id, { executionId: attempt.id, reason: attempt.reason });
  }
  const policy = policyOf(ctx, w);
  const span = policy.activeKeepaliveMaxMs - policy.activeKeepaliveMinMs;
  w.keepaliveAt = ctx.now + policy.activeKeepaliveMinMs + Math.floor(ctx.clock.random() * (span + 1));
}
