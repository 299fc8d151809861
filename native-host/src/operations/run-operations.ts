// Run tools (architecture §6): create, get, list, stop, pause all, resume all, default continuation policy.
import { z } from "zod";
import { policyPatchSchema } from "../../../shared/continuation-policy.ts";
import { fail, ok, viewOf } from "./context.ts";
import { applyInput, defineOperation, READ_ONLY } from "./registry.ts";
import { runView, workerView } from "./views.ts";

const runId = z.string().min(1).describe("Run id, as returned by run_create or run_list");

export const runCreate = defineOperation({
  name: "run_create",
  title: "Create run",
  description:
    "Creates a run: a named objective whose workers share a default continuation policy. Set policy.mode to 'auto' to turn Auto Resume on for its workers.",
  input: {
    name: z.string().min(1).max(200),
    objective: z.string().max(20_000).optional(),
    policy: policyPatchSchema.optional().describe("Default continuation policy fields for the run's workers"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(ctx, input) {
    const id = ctx.newId();
    return applyInput(
      ctx,
      {
        type: "run.create",
        runId: id,
        name: input.name,
        ...(input.objective !== undefined ? { objective: input.objective } : {}),
        ...(input.policy ? { policy: input.policy } : {}),
      },
      () => ({ run: runView(ctx.state, ctx.state.runs[id]!, viewOf(ctx)) }),
    );
  },
});

export const runGet = defineOperation({
  name: "run_get",
  title: "Get run",
  description: "Returns a run with its workers and their continuation state.",
  input: { runId },
  annotations: READ_ONLY,
  run(ctx, input) {
    const run = ctx.state.runs[input.runId];
    if (!run) return Promise.resolve(fail("NOT_FOUND", `no run ${input.runId}`));
    const view = viewOf(ctx);
    const workers = Object.values(ctx.state.workers)
      .filter((w) => w.runId === run.id)
      .map((w) => workerView(ctx.state, w, view));
    return Promise.resolve(ok({ run: runView(ctx.state, run, view), workers }));
  },
});

export const runList = defineOperation({
  name: "run_list",
  title: "List runs",
  description: "Lists runs, newest first; by default only active ones.",
  input: { includeEnded: z.boolean().optional() },
  annotations: READ_ONLY,
  run(ctx, input) {
    const view = viewOf(ctx);
    const runs = Object.values(ctx.state.runs)
      .filter((r) => input.includeEnded === true || r.status === "active")
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((r) => runView(ctx.state, r, view));
    return Promise.resolve(ok({ runs }));
  },
});

export const runStop = defineOperation({
  name: "run_stop",
  title: "Stop run",
  description:
    "Stops a run: every unfinished worker is stopped and no further turn is started. Cannot be undone.",
  input: { runId, reason: z.string().max(2_000).optional() },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run(ctx, input) {
    return applyInput(
      ctx,
      { type: "run.stop", runId: input.runId, ...(input.reason ? { reason: input.reason } : {}) },
      () => ({ run: runView(ctx.state, ctx.state.runs[input.runId]!, viewOf(ctx)) }),
    );
  },
});

export const runPauseAll = defineOperation({
  name: "run_pause_all",
  title: "Pause all after current turns",
  description: "Pauses every unfinished worker of the run; current turns may finish, no new turn starts.",
  input: { runId },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(ctx, input) {
    return applyInput(ctx, { type: "run.pause_all", runId: input.runId }, (reply) => ({ ...reply }));
  },
});

export const runResumeAll = defineOperation({
  name: "run_resume_all",
  title: "Resume all unfinished",
  description:
    "Clears operator and run pauses of the run's workers. Stall and error pauses stay until a person looks at each worker.",
  input: { runId },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(ctx, input) {
    return applyInput(ctx, { type: "run.resume_all", runId: input.runId }, (reply) => ({ ...reply }));
  },
});

export const runContinuationSetDefault = defineOperation({
  name: "run_continuation_set_default",
  title: "Set run continuation default",
  description:
    "Changes the run's default continuation policy (e.g. mode 'auto' = Auto Resume on). Workers inherit it unless they override a field.",
  input: { runId, patch: policyPatchSchema },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(ctx, input) {
    return applyInput(
      ctx,
      { type: "run.set_default_policy", runId: input.runId, patch: input.patch },
      () => ({
        defaultPolicy: ctx.state.runs[input.runId]!.defaultPolicy,
      }),
    );
  },
});

export const RUN_OPERATIONS = [
  runCreate,
  runGet,
  runList,
  runStop,
  runPauseAll,
  runResumeAll,
  runContinuationSetDefault,
];
