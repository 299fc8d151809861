// Worker tools (architecture §6, spec 8): spawn, read, explicit outcomes, waits and the operator controls.
import { z } from "zod";
import { policyPatchSchema } from "../../../shared/continuation-policy.ts";
import type { Input } from "../core/inputs.ts";
import { effectivePolicy } from "../core/policy.ts";
import { fail, ok, type OperationsContext, viewOf } from "./context.ts";
import { applyInput, defineOperation, READ_ONLY } from "./registry.ts";
import { workerView } from "./views.ts";

const workerId = z.string().min(1).describe("Worker id, as returned by worker_spawn or worker_list");
const text = (max: number) => z.string().min(1).max(max);
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

function workerReply(ctx: OperationsContext, id: string) {
  const w = ctx.state.workers[id];
  return { worker: w ? workerView(ctx.state, w, viewOf(ctx)) : null };
}

/** The common shape of a tool that applies one input to one worker and answers with the worker. */
function workerInput(ctx: OperationsContext, input: Input, id: string) {
  return applyInput(ctx, input, (reply) => ({ ...workerReply(ctx, id), ...(reply ?? {}) }));
}

export const workerSpawn = defineOperation({
  name: "worker_spawn",
  title: "Spawn worker",
  description:
    "Creates a worker at a path (/root for the coordinator, /root/<name> for a child) bound to a new ChatGPT conversation, and starts its first turn.",
  input: {
    runId: z.string().min(1),
    path: z
      .string()
      .regex(/^\/root(\/[a-z0-9][a-z0-9._-]*)*$/, "a path like /root or /root/backend")
      .max(300),
    name: z.string().max(200).optional(),
    objective: text(20_000),
    acceptance: z.array(text(2_000)).max(50).optional(),
    policy: policyPatchSchema
      .optional()
      .describe("Overrides of the run's continuation default for this worker"),
    worktrees: z
      .array(z.string().min(1).max(1_000))
      .max(20)
      .optional()
      .describe(
        "Work locations (git worktree paths or branch names) the worker owns; one owner each per run",
      ),
    startUrl: z
      .string()
      .max(2_000)
      .optional()
      .describe(
        "Start the conversation in this Custom GPT or project instead of a plain new chat: its chatgpt.com page, e.g. https://chatgpt.com/g/g-p-<id>-<name>/project",
      ),
  },
  annotations: { ...WRITE, idempotentHint: false },
  run(ctx, input) {
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
  },
});

export const workerGet = defineOperation({
  name: "worker_get",
  title: "Get worker",
  description:
    "Returns a worker: assignment, state in words, current attempt, resumes, waits, policy and the execution-attempt history.",
  input: { workerId },
  annotations: READ_ONLY,
  run(ctx, input) {
    const w = ctx.state.workers[input.workerId];
    if (!w) return Promise.resolve(fail("NOT_FOUND", `no worker ${input.workerId}`));
    const attempts = ctx.attempts(w.id).map((a) => ({
      seq: a.seq,
      reason: a.reason,
      state: a.state,
      delivery: a.delivery,
      promptKind: a.promptKind,
      wakeReasons: a.wakeReasons,
      scheduledAt: a.scheduledAt,
      submittedAt: a.submittedAt ?? null,
      terminalAt: a.terminalAt ?? null,
      outcome: a.outcome ?? null,
      errorCode: a.errorCode ?? null,
    }));
    return Promise.resolve(ok({ worker: workerView(ctx.state, w, viewOf(ctx)), attempts }));
  },
});

export const workerList = defineOperation({
  name: "worker_list",
  title: "List workers",
  description: "Lists workers, optionally of one run and only unfinished ones.",
  input: { runId: z.string().optional(), unfinishedOnly: z.boolean().optional() },
  annotations: READ_ONLY,
  run(ctx, input) {
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
  },
});

export const workerProgress = defineOperation({
  name: "worker_progress",
  title: "Report progress",
  description:
    "Records durable progress (a checkpoint, commit, milestone). Resets the stall guard and wakes /root. Call it whenever meaningful work is done. The summary (first 2,000 characters) is kept with the worker's newest 50 and shown in the dashboard's timeline.",
  input: { workerId, summary: text(5_000).optional() },
  annotations: { ...WRITE, idempotentHint: false },
  run(ctx, input) {
    return workerInput(
      ctx,
      {
        type: "worker.progress",
        workerId: input.workerId,
        ...(input.summary ? { summary: input.summary } : {}),
      },
      input.workerId,
    );
  },
});

export const workerComplete = defineOperation({
  name: "worker_complete",
  title: "Complete worker",
  description:
    "Declares the whole assignment finished with its acceptance criteria met. No further turn will be started.",
  input: {
    workerId,
    summary: text(10_000).optional().describe("Terminal handoff: what was done, where, how verified"),
  },
  annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
  run(ctx, input) {
    return workerInput(
      ctx,
      {
        type: "worker.complete",
        workerId: input.workerId,
        ...(input.summary ? { summary: input.summary } : {}),
      },
      input.workerId,
    );
  },
});

export const workerFail = defineOperation({
  name: "worker_fail",
  title: "Fail worker",
  description: "Declares the assignment irrecoverably failed. No further turn will be started.",
  input: { workerId, reason: text(10_000) },
  annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
  run(ctx, input) {
    return workerInput(
      ctx,
      { type: "worker.fail", workerId: input.workerId, reason: input.reason },
      input.workerId,
    );
  },
});

export const workerAwaitHuman = defineOperation({
  name: "worker_await_human",
  title: "Wait for a person",
  description:
    "Stops automatic continuation until a person answers (shown as Needs you). Use only when human input is genuinely required.",
  input: {
    workerId,
    reason: text(2_000),
    question: text(10_000),
    choices: z.array(text(500)).max(20).optional(),
    context: z.string().max(10_000).optional(),
  },
  annotations: { ...WRITE, idempotentHint: false },
  run(ctx, input) {
    return workerInput(
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
    );
  },
});

export const workerAwaitDependency = defineOperation({
  name: "worker_await_dependency",
  title: "Wait for a dependency",
  description:
    "Stops automatic continuation until a dependency changes: released automatically when every listed worker has ended, or explicitly by worker_resume.",
  input: { workerId, condition: text(2_000), onWorkerIds: z.array(z.string().min(1)).max(50).optional() },
  annotations: { ...WRITE, idempotentHint: false },
  run(ctx, input) {
    return workerInput(
      ctx,
      {
        type: "worker.await_dependency",
        workerId: input.workerId,
        condition: input.condition,
        ...(input.onWorkerIds ? { onWorkerIds: input.onWorkerIds } : {}),
      },
      input.workerId,
    );
  },
});

export const workerPause = defineOperation({
  name: "worker_pause",
  title: "Pause after current turn",
  description: "The current turn may finish; no further turn starts until resumed. Nothing is cancelled.",
  input: { workerId, reason: z.string().max(2_000).optional() },
  annotations: { ...WRITE, idempotentHint: true },
  run(ctx, input) {
    return workerInput(
      ctx,
      { type: "worker.pause", workerId: input.workerId, ...(input.reason ? { reason: input.reason } : {}) },
      input.workerId,
    );
  },
});

export const workerResume = defineOperation({
  name: "worker_resume",
  title: "Resume worker",
  description:
    "Clears a pause (a stall pause is acknowledged: Continue anyway) and releases a dependency wait. Under Auto Resume an idle worker then gets its next turn.",
  input: { workerId },
  annotations: { ...WRITE, idempotentHint: true },
  run(ctx, input) {
    return workerInput(ctx, { type: "worker.resume", workerId: input.workerId }, input.workerId);
  },
});

export const workerContinueNow = defineOperation({
  name: "worker_continue_now",
  title: "Continue now",
  description:
    "Starts one manual-resume turn now if the conversation is idle, or right after the current turn. Fails for finished workers; set overrideWait to clear a human/dependency wait and clearPause to clear a pause.",
  input: { workerId, overrideWait: z.boolean().optional(), clearPause: z.boolean().optional() },
  annotations: { ...WRITE, idempotentHint: true },
  run(ctx, input) {
    return workerInput(
      ctx,
      {
        type: "worker.continue_now",
        workerId: input.workerId,
        ...(input.overrideWait !== undefined ? { overrideWait: input.overrideWait } : {}),
        ...(input.clearPause !== undefined ? { clearPause: input.clearPause } : {}),
      },
      input.workerId,
    );
  },
});

export const workerStop = defineOperation({
  name: "worker_stop",
  title: "Stop worker",
  description:
    "Ends the worker for good (cancelled); no further turn. Use worker_pause to stop only automatic turns.",
  input: { workerId, reason: z.string().max(2_000).optional() },
  annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
  run(ctx, input) {
    return workerInput(
      ctx,
      { type: "worker.stop", workerId: input.workerId, ...(input.reason ? { reason: input.reason } : {}) },
      input.workerId,
    );
  },
});

export const workerFollowup = defineOperation({
  name: "worker_followup",
  title: "Send follow-up",
  description:
    "Delivers a follow-up instruction to the worker's conversation as its next turn (after the current one).",
  input: { workerId, text: text(20_000) },
  annotations: { ...WRITE, idempotentHint: false },
  run(ctx, input) {
    return workerInput(
      ctx,
      { type: "worker.followup", workerId: input.workerId, text: input.text },
      input.workerId,
    );
  },
});

export const workerSteer = defineOperation({
  name: "worker_steer",
  title: "Corrective steering",
  description:
    "For /root: delivers a material correction at once, even mid-turn and inside the 15-minute spacing. Identical corrections (same key) are dropped.",
  input: { workerId, text: text(20_000), key: z.string().max(200).optional() },
  annotations: { ...WRITE, idempotentHint: true },
  run(ctx, input) {
    return workerInput(
      ctx,
      {
        type: "worker.steer",
        workerId: input.workerId,
        text: input.text,
        ...(input.key ? { key: input.key } : {}),
      },
      input.workerId,
    );
  },
});

export const workerContinuationGet = defineOperation({
  name: "worker_continuation_get",
  title: "Get continuation policy",
  description: "Returns the worker's effective continuation policy, its own overrides and the run default.",
  input: { workerId },
  annotations: READ_ONLY,
  run(ctx, input) {
    const w = ctx.state.workers[input.workerId];
    const run = w ? ctx.state.runs[w.runId] : undefined;
    if (!w || !run) return Promise.resolve(fail("NOT_FOUND", `no worker ${input.workerId}`));
    return Promise.resolve(
      ok({ policy: effectivePolicy(run, w), override: w.policyOverride, runDefault: run.defaultPolicy }),
    );
  },
});

export const workerContinuationSet = defineOperation({
  name: "worker_continuation_set",
  title: "Set continuation policy",
  description:
    "Overrides continuation policy fields for one worker (e.g. mode 'auto' or 'manual'); `reset` lists fields that return to the run default.",
  input: {
    workerId,
    patch: policyPatchSchema,
    reset: z.array(z.enum(Object.keys(policyPatchSchema.shape) as [string, ...string[]])).optional(),
  },
  annotations: { ...WRITE, idempotentHint: true },
  run(ctx, input) {
    return workerInput(
      ctx,
      {
        type: "worker.set_policy",
        workerId: input.workerId,
        patch: input.patch,
        ...(input.reset ? { reset: input.reset as (keyof typeof input.patch)[] } : {}),
      },
      input.workerId,
    );
  },
});

export const humanResolve = defineOperation({
  name: "human_resolve",
  title: "Answer a Needs-you",
  description:
    "Resolves a worker's wait for a person; the answer, if any, is delivered as the worker's next turn.",
  input: { workerId, answer: z.string().max(20_000).optional() },
  annotations: { ...WRITE, idempotentHint: false },
  run(ctx, input) {
    return workerInput(
      ctx,
      { type: "human.resolve", workerId: input.workerId, ...(input.answer ? { answer: input.answer } : {}) },
      input.workerId,
    );
  },
});

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
  workerStop,
  workerFollowup,
  workerSteer,
  workerContinuationGet,
  workerContinuationSet,
  humanResolve,
];
