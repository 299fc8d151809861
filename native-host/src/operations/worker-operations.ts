// Worker operations (contracts in shared/operations/worker.ts): spawn, read, the worker's explicit outcomes and
// waits, and the operator's controls.
import type { z } from "zod";
import {
  continueNowReply,
  HUMAN_RESOLVE,
  rolloverReply,
  steerReply,
  WORKER_AWAIT_DEPENDENCY,
  WORKER_AWAIT_HUMAN,
  WORKER_COMPLETE,
  WORKER_CONTINUATION_GET,
  WORKER_CONTINUATION_SET,
  WORKER_CONTINUE_NOW,
  WORKER_FAIL,
  WORKER_FOLLOWUP,
  WORKER_GET,
  WORKER_LIST,
  WORKER_NEW_CONVERSATION,
  WORKER_PAUSE,
  WORKER_PROGRESS,
  WORKER_RESUME,
  WORKER_ROLLOVER,
  WORKER_SPAWN,
  WORKER_STEER,
  WORKER_STOP,
} from "../../../shared/operations/worker.ts";
import type { Input } from "../core/inputs.ts";
import { effectivePolicy } from "../core/policy.ts";
import { fail, ok, type OperationsContext, viewOf } from "./context.ts";
import { applyInput, applyInputWith, defineOperation } from "./registry.ts";
import { attemptView, workerView } from "./views.ts";

function workerReply(ctx: OperationsContext, id: string) {
  const w = ctx.state.workers[id];
  return { worker: w ? workerView(ctx.state, w, viewOf(ctx)) : null };
}

/** The common shape of an operation that applies one input to one worker and answers with the worker. */
function workerInput(ctx: OperationsContext, input: Input, id: string) {
  return applyInput(ctx, input, () => workerReply(ctx, id));
}

/** The same, with what the core replied (read with `reply`) beside the worker. */
function workerInputWith<R extends z.ZodObject>(ctx: OperationsContext, input: Input, id: string, reply: R) {
  return applyInputWith(ctx, input, reply, (said) => ({ ...workerReply(ctx, id), ...said }));
}

export const workerSpawn = defineOperation(WORKER_SPAWN, (ctx, input) => {
  const id = ctx.newId();
  return workerInput(
    ctx,
    {
      type: "worker.spawn",
      runId: input.runId,
      workerId: id,
      path: input.path,
      objective: input.objective,
      ...(input.name ? { name: input.name } : {}),
      ...(input.acceptance ? { acceptance: input.acceptance } : {}),
      ...(input.policy ? { policy: input.policy } : {}),
      ...(input.worktrees ? { worktrees: input.worktrees } : {}),
      ...(input.startUrl ? { startUrl: input.startUrl } : {}),
    },
    id,
  );
});

export const workerGet = defineOperation(WORKER_GET, (ctx, input) => {
  const w = ctx.state.workers[input.workerId];
  if (!w) return Promise.resolve(fail("NOT_FOUND", `no worker ${input.workerId}`));
  const attempts = ctx.attempts(w.id).map(attemptView);
  return Promise.resolve(ok({ worker: workerView(ctx.state, w, viewOf(ctx)), attempts }));
});

export const workerList = defineOperation(WORKER_LIST, (ctx, input) => {
  const view = viewOf(ctx);
  const workers = Object.values(ctx.state.workers)
    .filter(
      (w) =>
        (input.runId === undefined || w.runId === input.runId) &&
        (!input.unfinishedOnly || w.status === "active"),
    )
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((w) => workerView(ctx.state, w, view));
  return Promise.resolve(ok({ workers }));
});

export const workerProgress = defineOperation(WORKER_PROGRESS, (ctx, input) =>
  workerInput(
    ctx,
    {
      type: "worker.progress",
      workerId: input.workerId,
      ...(input.summary ? { summary: input.summary } : {}),
    },
    input.workerId,
  ),
);

export const workerComplete = defineOperation(WORKER_COMPLETE, (ctx, input) =>
  workerInput(
    ctx,
    {
      type: "worker.complete",
      workerId: input.workerId,
      ...(input.summary ? { summary: input.summary } : {}),
    },
    input.workerId,
  ),
);

export const workerFail = defineOperation(WORKER_FAIL, (ctx, input) =>
  workerInput(ctx, { type: "worker.fail", workerId: input.workerId, reason: input.reason }, input.workerId),
);

export const workerAwaitHuman = defineOperation(WORKER_AWAIT_HUMAN, (ctx, input) =>
  workerInput(
    ctx,
    {
      type: "worker.await_human",
      workerId: input.workerId,
      reason: input.reason,
      question: input.question,
      ...(input.choices ? { choices: input.choices } : {}),
      ...(input.context ? { context: input.context } : {}),
    },
    input.workerId,
  ),
);

export const workerAwaitDependency = defineOperation(WORKER_AWAIT_DEPENDENCY, (ctx, input) =>
  workerInput(
    ctx,
    {
      type: "worker.await_dependency",
      workerId: input.workerId,
      condition: input.condition,
      ...(input.onWorkerIds ? { onWorkerIds: input.onWorkerIds } : {}),
    },
    input.workerId,
  ),
);

export const workerPause = defineOperation(WORKER_PAUSE, (ctx, input) =>
  workerInput(
    ctx,
    { type: "worker.pause", workerId: input.workerId, ...(input.reason ? { reason: input.reason } : {}) },
    input.workerId,
  ),
);

export const workerResume = defineOperation(WORKER_RESUME, (ctx, input) =>
  workerInput(ctx, { type: "worker.resume", workerId: input.workerId }, input.workerId),
);

export const workerContinueNow = defineOperation(WORKER_CONTINUE_NOW, (ctx, input) =>
  workerInputWith(
    ctx,
    {
      type: "worker.continue_now",
      workerId: input.workerId,
      ...(input.overrideWait !== undefined ? { overrideWait: input.overrideWait } : {}),
      ...(input.clearPause !== undefined ? { clearPause: input.clearPause } : {}),
    },
    input.workerId,
    continueNowReply,
  ),
);

// Rollover (docs/continuation-core.md, "Rollover"): the agent's brief goes to the core, which keeps it in memory only
// until the new conversation's first prompt carries it; the record keeps its size.
export const workerRollover = defineOperation(WORKER_ROLLOVER, (ctx, input) =>
  workerInputWith(
    ctx,
    {
      type: "worker.rollover",
      workerId: input.workerId,
      trigger: "agent",
      brief: input.brief,
      ...(input.reason ? { reason: input.reason } : {}),
    },
    input.workerId,
    rolloverReply,
  ),
);

/** The operator's "Continue in a new conversation": no brief, so the core asks the conversation for one. */
export const workerNewConversation = defineOperation(WORKER_NEW_CONVERSATION, (ctx, input) =>
  workerInputWith(
    ctx,
    {
      type: "worker.rollover",
      workerId: input.workerId,
      trigger: "operator",
      ...(input.reason ? { reason: input.reason } : {}),
    },
    input.workerId,
    rolloverReply,
  ),
);

export const workerStop = defineOperation(WORKER_STOP, (ctx, input) =>
  workerInput(
    ctx,
    { type: "worker.stop", workerId: input.workerId, ...(input.reason ? { reason: input.reason } : {}) },
    input.workerId,
  ),
);

export const workerFollowup = defineOperation(WORKER_FOLLOWUP, (ctx, input) =>
  workerInput(ctx, { type: "worker.followup", workerId: input.workerId, text: input.text }, input.workerId),
);

export const workerSteer = defineOperation(WORKER_STEER, (ctx, input) =>
  workerInputWith(
    ctx,
    {
      type: "worker.steer",
      workerId: input.workerId,
      text: input.text,
      ...(input.key ? { key: input.key } : {}),
    },
    input.workerId,
    steerReply,
  ),
);

export const workerContinuationGet = defineOperation(WORKER_CONTINUATION_GET, (ctx, input) => {
  const w = ctx.state.workers[input.workerId];
  const run = w ? ctx.state.runs[w.runId] : undefined;
  if (!w || !run) return Promise.resolve(fail("NOT_FOUND", `no worker ${input.workerId}`));
  return Promise.resolve(
    ok({ policy: effectivePolicy(run, w), override: w.policyOverride, runDefault: run.defaultPolicy }),
  );
});

export const workerContinuationSet = defineOperation(WORKER_CONTINUATION_SET, (ctx, input) =>
  workerInput(
    ctx,
    {
      type: "worker.set_policy",
      workerId: input.workerId,
      patch: input.patch,
      ...(input.reset ? { reset: input.reset } : {}),
    },
    input.workerId,
  ),
);

export const humanResolve = defineOperation(HUMAN_RESOLVE, (ctx, input) =>
  workerInput(
    ctx,
    { type: "human.resolve", workerId: input.workerId, ...(input.answer ? { answer: input.answer } : {}) },
    input.workerId,
  ),
);

export const WORKER_OPERATIONS = [
  workerSpawn,
  workerGet,
  workerList,
  workerProgress,
  workerComplete,
  workerFail,
  workerAwaitHuman,
  workerAwaitDependency,
  workerPause,
  workerResume,
  workerContinueNow,
  workerRollover,
  workerNewConversation,
  workerStop,
  workerFollowup,
  workerSteer,
  workerContinuationGet,
  workerContinuationSet,
  humanResolve,
];
