// Worker operations: spawn, progress, explicit outcomes, waits, pause / continue now / stop, follow-ups, messages.
import { castDraft } from "immer";
import { applyPolicyPatch } from "../../../shared/continuation-policy.ts";
import { isChatGptStartUrl } from "../../../shared/chatgpt-start-url.ts";
import { recordProgress } from "./attempts.ts";
import { type Ctx, type DraftWorker, type Rejection, reject } from "./context.ts";
import type { Input } from "./inputs.ts";
import { LIVENESS_REASONS } from "../../../shared/liveness.ts";
import { pageErrorReason, sendableError } from "./page-errors.ts";
import { addWake } from "./intents.ts";
import type { Worker } from "./model.ts";
import { policyOf } from "./policy.ts";
import { endWorker, releaseWait, wakeRootFor, withdrawScheduled } from "./worker-end.ts";
import { addClaims, checkSpawnWorktrees } from "./worktrees.ts";

type Of<T extends Input["type"]> = Extract<Input, { type: T }>;

/** Characters of a `worker_progress` summary kept (docs/privacy.md). */
export const MAX_PROGRESS_SUMMARY = 2_000;
/** Progress summaries kept on the worker for a composed handoff brief (docs/privacy.md: within the newest 50). */
const RECENT_PROGRESS_KEPT = 3;
const RECENT_PROGRESS_CHARS = 600;

const PATH = /^\/root(\/[a-z0-9][a-z0-9._-]*)*$/;

/** Looks a worker up for an operation that needs it unfinished. */
export function activeWorker(ctx: Ctx, id: string): DraftWorker | Rejection {
  const w = ctx.worker(id);
  if (!w) return reject("NOT_FOUND", `no worker ${id}`);
  if (w.status !== "active") return reject("WORKER_TERMINAL", `worker ${w.path} is ${w.status}`);
  return w;
}

export function spawnWorker(ctx: Ctx, input: Of<"worker.spawn">): Rejection | void {
  const run = ctx.run(input.runId);
  if (!run) return reject("NOT_FOUND", `no run ${input.runId}`);
  if (run.status !== "active") return reject("RUN_TERMINAL", `run ${run.id} is ${run.status}`);
  if (ctx.worker(input.workerId)) return reject("CONFLICT", `worker ${input.workerId} already exists`);
  if (!PATH.test(input.path)) {
    return reject(
      "INVALID_INPUT",
      `path '${input.path}' must be /root or /root/<name>[/<name>…] in lower case`,
    );
  }
  const siblings = ctx.findWorkers((w) => w.runId === run.id);
  if (siblings.some((w) => w.path === input.path)) {
    return reject("CONFLICT", `run ${run.id} already has a worker at ${input.path}`);
  }
  const parentPath = input.path === "/root" ? undefined : input.path.slice(0, input.path.lastIndexOf("/"));
  const parent = parentPath === undefined ? undefined : siblings.find((w) => w.path === parentPath);
  if (parentPath !== undefined && !parent) {
    return reject("NOT_FOUND", `parent ${parentPath} does not exist in run ${run.id}`);
  }
  if (input.startUrl !== undefined && !isChatGptStartUrl(input.startUrl)) {
    return reject(
      "INVALID_INPUT",
      `startUrl '${input.startUrl}' must be a chatgpt.com GPT page (…/g/g-<id>-<name>) or project page (…/g/g-p-<id>-<name>/project)`,
    );
  }
  const merged = applyPolicyPatch(run.defaultPolicy, input.policy ?? {});
  if (!merged.ok) return reject("INVALID_POLICY", merged.message);
  const worktrees = checkSpawnWorktrees(ctx, run.id, input.worktrees ?? [], input.workerId);
  if (!Array.isArray(worktrees)) return worktrees;

  const w: Worker = {
    id: input.workerId,
    runId: run.id,
    path: input.path,
    name: input.name ?? input.path.slice(input.path.lastIndexOf("/") + 1),
    ...(parent ? { parentId: parent.id } : {}),
    objective: input.objective,
    acceptance: input.acceptance ?? [],
    ...(input.startUrl !== undefined ? { startUrl: input.startUrl } : {}),
    createdAt: ctx.now,
    status: "active",
    policyOverride: input.policy ?? {},
    conversation: { state: "unknown", binding: "none", changes: 0, observedSeq: 0, since: ctx.now },
    attemptCount: 0,
    autoResumes: 0,
    stall: {
      noProgressAttempts: 0,
      progressCursor: 0,
      baselineAt: ctx.now,
      clockRunning: false,
      warned: false,
    },
    inboxSeq: 0,
    inboxReadSeq: 0,
  };
  ctx.state.workers[w.id] = castDraft(w);
  ctx.touched.add(w.id);
  ctx.emit("worker.spawned", run.id, w.id, { path: w.path, parentId: w.parentId ?? null });
  const draft = ctx.worker(w.id);
  if (!draft) return;
  addClaims(ctx, draft, worktrees);
  // The bootstrap turn is the operator's explicit request, so it goes out whatever the policy mode.
  addWake(ctx, draft, { reason: "spawn", explicit: true });
}

export function reportProgress(ctx: Ctx, input: Of<"worker.progress">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  recordProgress(ctx, w, policyOf(ctx, w), true);
  // The summary is kept (bounded: docs/privacy.md) so the dashboard's timeline can show what the worker reported.
  const summary = input.summary?.slice(0, MAX_PROGRESS_SUMMARY);
  // The newest few, cut shorter, compose a handoff brief if the worker must move to a new conversation without one.
  if (summary) {
    const kept = [
      ...(w.recentProgress ?? []),
      { at: ctx.now, summary: summary.slice(0, RECENT_PROGRESS_CHARS) },
    ];
    w.recentProgress = kept.slice(-RECENT_PROGRESS_KEPT);
  }
  ctx.emit("worker.progress", w.runId, w.id, {
    cursor: w.stall.progressCursor,
    ...(summary ? { summary } : {}),
  });
  wakeRootFor(ctx, w, "event:worker.progress");
}

export function complete(ctx: Ctx, input: Of<"worker.complete">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  if (input.summary !== undefined) w.summary = input.summary;
  endWorker(ctx, w, "completed", input.summary ?? "completed");
}

export function fail(ctx: Ctx, input: Of<"worker.fail">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  w.summary = input.reason;
  endWorker(ctx, w, "failed", input.reason);
}

export function stop(ctx: Ctx, input: Of<"worker.stop">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  endWorker(ctx, w, "cancelled", input.reason ?? "stopped by operator");
}

export function awaitHuman(ctx: Ctx, input: Of<"worker.await_human">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  w.wait = {
    kind: "human",
    reason: input.reason,
    question: input.question,
    requestedAt: ctx.now,
    ...(input.choices ? { choices: [...input.choices] } : {}),
    ...(input.context ? { context: input.context } : {}),
  };
  recordProgress(ctx, w, policyOf(ctx, w), false);
  ctx.emit("worker.awaiting_human", w.runId, w.id, { reason: input.reason, question: input.question });
  wakeRootFor(ctx, w, "event:worker.awaiting_human");
}

export function awaitDependency(ctx: Ctx, input: Of<"worker.await_dependency">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  // A worker has one wait. Replacing an open human request would drop the question without anyone
  // answering it (and release the worker at once if the dependency has already ended).
  if (w.wait?.kind === "human") {
    return reject("WORKER_AWAITING_HUMAN", `worker ${w.path} is waiting for a person: resolve that first`);
  }
  const on = input.onWorkerIds ?? [];
  const missing = on.find((id) => !ctx.worker(id) || ctx.worker(id)?.runId !== w.runId || id === w.id);
  if (missing !== undefined)
    return reject("NOT_FOUND", `dependency ${missing} is not another worker of this run`);
  w.wait = { kind: "dependency", condition: input.condition, onWorkerIds: [...on], requestedAt: ctx.now };
  recordProgress(ctx, w, policyOf(ctx, w), false);
  ctx.emit("worker.awaiting_dependency", w.runId, w.id, { condition: input.condition, onWorkerIds: on });
  // Already satisfied (every dependency has ended): release at once rather than wait for an event that came.
  if (on.length > 0 && on.every((id) => ctx.worker(id)?.status !== "active")) {
    releaseWait(ctx, w, "dependency", "event:dependency_completed");
  }
}

export function resolveHuman(ctx: Ctx, input: Of<"human.resolve">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  if (w.wait?.kind !== "human")
    return reject("NOT_AWAITING_HUMAN", `worker ${w.path} is not waiting for a person`);
  releaseWait(ctx, w, "human", "human_resolved", input.answer);
}

export function pause(ctx: Ctx, input: Of<"worker.pause">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  if (w.pause?.source === "operator") return;
  w.pause = { source: "operator", reason: input.reason ?? "paused after current turn", at: ctx.now };
  ctx.emit("execution.paused", w.runId, w.id, { source: "operator", reason: w.pause.reason });
  withdrawScheduled(ctx, w);
}

/** Clears a pause; a stall pause is acknowledged (Continue anyway): the counter restarts, history stays. */
function clearPause(ctx: Ctx, w: DraftWorker, by: string): void {
  const p = w.pause;
  if (!p) return;
  w.pause = undefined;
  if (p.source === "stall") {
    w.stall.noProgressAttempts = 0;
    w.stall.warned = false;
    w.stall.baselineAt = ctx.now;
  }
  // Continue anyway on a cap allows another round up to it.
  if (p.source === "cap") w.capBase = { autoResumes: w.autoResumes, at: ctx.now };
  ctx.emit("worker.resumed", w.runId, w.id, { released: `pause:${p.source}`, by });
}

export function resume(ctx: Ctx, input: Of<"worker.resume">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  if (w.wait?.kind === "human") {
    return reject(
      "WORKER_AWAITING_HUMAN",
      `worker ${w.path} needs a person: resolve it (human_resolve) first`,
    );
  }
  if (w.wait?.kind === "dependency") releaseWait(ctx, w, "dependency", "dependency_released");
  clearPause(ctx, w, "resume");
}

export function continueNow(ctx: Ctx, input: Of<"worker.continue_now">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  if (w.wait && !input.overrideWait) {
    const code = w.wait.kind === "human" ? "WORKER_AWAITING_HUMAN" : "WORKER_AWAITING_DEPENDENCY";
    return reject(
      code,
      `worker ${w.path} is ${code === "WORKER_AWAITING_HUMAN" ? "waiting for a person" : "waiting for a dependency"}; resolve it or ask to override`,
    );
  }
  if (w.pause && !input.clearPause) {
    return reject("WORKER_PAUSED", `worker ${w.path} is paused; ask to clear the pause to continue`);
  }
  // Continue now makes one attempt or says why it cannot: never "accepted" and then nothing.
  const c = w.conversation;
  // Detached is fine: the browser reopens the conversation's tab for the turn.
  if (c.binding === "unavailable" || c.binding === "closed" || c.state === "closed") {
    return reject(
      "CONVERSATION_UNAVAILABLE",
      c.binding === "closed"
        ? `the tab of ${w.path} was closed and reopening closed tabs is off: reopen the conversation in a tab (it continues by itself), or turn reopening on in the extension's settings`
        : `the conversation of ${w.path} is not open in any tab: open it in a tab (or stop the worker and keep the conversation going again from its tab)`,
    );
  }
  // Moving to a new conversation, the next turn is a create: the old conversation's error does not stand in its way.
  if (c.state === "error" && !sendableError(c.errorCode) && w.rollover?.phase !== "opening") {
    return reject("CONVERSATION_BLOCKED", `${w.path}: ${blockedRemedy(c.errorCode)}`);
  }
  if (w.wait) {
    w.wait = undefined;
    ctx.emit("worker.resumed", w.runId, w.id, { released: "override", by: "continue_now" });
  }
  clearPause(ctx, w, "continue_now");
  // Another Continue now is already queued, or a submission is in flight: this click adds nothing (Continue now
  // never duplicates a pending continuation).
  const coalesced = w.intent?.manual === true || w.current?.state === "scheduled";
  // While generating this queues one resume for after the turn; the UI shows it as Resuming.
  addWake(ctx, w, { reason: "continue_now", explicit: true, manual: true });
  // A person asks for the turn now: it overrides, once, a retry backoff, a rate-limit wait and a product error.
  if (w.intent) {
    w.intent.override = true;
    delete w.intent.retry;
    // A wake it joined may wait for a later time (the rate limit's end): Continue now means now.
    if (w.intent.notBefore > ctx.now) w.intent.notBefore = ctx.now;
  }
  ctx.reply = { coalesced, afterCurrentTurn: c.state === "generating" };
}

/** Why Continue now cannot send into this page, and what a person does instead: the held reason's own words. */
function blockedRemedy(code: string | undefined): string {
  const reason = LIVENESS_REASONS[pageErrorReason(code)];
  return `${reason.text}: ${reason.remedyText}`;
}

export function followup(ctx: Ctx, input: Of<"worker.followup">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  addWake(ctx, w, { reason: "followup", explicit: true, text: input.text });
}

export function steer(ctx: Ctx, input: Of<"worker.steer">): Rejection | void {
  const w = activeWorker(ctx, input.workerId);
  if ("code" in w) return w;
  const key = input.key ?? input.text;
  if (w.lastCorrectiveKey === key) {
    ctx.emit("continuation.steering_deduplicated", w.runId, w.id, { key: input.key ?? null });
    ctx.reply = { deduplicated: true };
    return;
  }
  w.lastCorrectiveKey = key;
  addWake(ctx, w, {
    reason: "corrective",
    explicit: true,
    corrective: true,
    allowSteer: true,
    text: input.text,
  });
  ctx.reply = { deduplicated: false };
}

export function setWorkerPolicy(ctx: Ctx, input: Of<"worker.set_policy">): Rejection | void {
  const w = ctx.worker(input.workerId);
  if (!w) return reject("NOT_FOUND", `no worker ${input.workerId}`);
  const run = ctx.run(w.runId);
  if (!run) return reject("NOT_FOUND", `no run ${w.runId}`);
  const override = { ...w.policyOverride, ...input.patch };
  for (const key of input.reset ?? []) delete override[key];
  const merged = applyPolicyPatch(run.defaultPolicy, override);
  if (!merged.ok) return reject("INVALID_POLICY", merged.message);
  w.policyOverride = override;
  ctx.emit("continuation.policy_changed", w.runId, w.id, {
    scope: "worker",
    patch: input.patch,
    reset: input.reset ?? [],
    policy: merged.policy,
  });
}

export function sendMessage(ctx: Ctx, input: Of<"message.send">): Rejection | void {
  const to = ctx.worker(input.toWorkerId);
  if (!to) return reject("NOT_FOUND", `no worker ${input.toWorkerId}`);
  if (ctx.state.unread[input.messageId])
    return reject("CONFLICT", `message ${input.messageId} already exists`);
  const sender = typeof input.from === "object" ? ctx.worker(input.from.workerId) : undefined;
  if (typeof input.from === "object" && !sender)
    return reject("NOT_FOUND", `no worker ${input.from.workerId}`);
  // Delivered to the inbox even if the recipient ended, so nothing sent is ever lost.
  to.inboxSeq += 1;
  const from = sender ? sender.id : typeof input.from === "string" ? input.from : "system";
  ctx.state.unread[input.messageId] = {
    id: input.messageId,
    runId: to.runId,
    from,
    to: to.id,
    seq: to.inboxSeq,
    body: input.body,
    sentAt: ctx.now,
  };
  ctx.emit("message.sent", to.runId, to.id, { messageId: input.messageId, from, seq: to.inboxSeq });
  if (sender && sender.status === "active") recordProgress(ctx, sender, policyOf(ctx, sender), false);
  if (to.status === "active") addWake(ctx, to, { reason: "event:message.sent", allowSteer: true });
}

export function readMessages(ctx: Ctx, input: Of<"message.read">): Rejection | void {
  const w = ctx.worker(input.workerId);
  if (!w) return reject("NOT_FOUND", `no worker ${input.workerId}`);
  if (input.upToSeq > w.inboxSeq)
    return reject("INVALID_INPUT", `inbox of ${w.path} has no message ${input.upToSeq}`);
  if (input.upToSeq <= w.inboxReadSeq) return;
  w.inboxReadSeq = input.upToSeq;
  for (const m of Object.values(ctx.state.unread)) {
    if (m.to === w.id && m.seq <= input.upToSeq) delete ctx.state.unread[m.id];
  }
  ctx.emit("message.read", w.runId, w.id, { upToSeq: input.upToSeq });
}
