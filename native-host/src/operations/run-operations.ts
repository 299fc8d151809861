// Run operations (contracts in shared/operations/run.ts): create, get, list, stop, pause all, resume all, and the
// run's default continuation policy.
import {
  RUN_CONTINUATION_SET_DEFAULT,
  RUN_CREATE,
  RUN_GET,
  RUN_LIST,
  RUN_PAUSE_ALL,
  RUN_RESUME_ALL,
  RUN_STOP,
} from "../../../shared/operations/run.ts";
import { fail, ok, viewOf } from "./context.ts";
import { applyInput, applyInputWith, defineOperation } from "./registry.ts";
import { runView, workerView } from "./views.ts";

export const runCreate = defineOperation(RUN_CREATE, async (ctx, input) => {
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
});

export const runGet = defineOperation(RUN_GET, (ctx, input) => {
  const run = ctx.state.runs[input.runId];
  if (!run) return Promise.resolve(fail("NOT_FOUND", `no run ${input.runId}`));
  const view = viewOf(ctx);
  const workers = Object.values(ctx.state.workers)
    .filter((w) => w.runId === run.id)
    .map((w) => workerView(ctx.state, w, view));
  return Promise.resolve(ok({ run: runView(ctx.state, run, view), workers }));
});

export const runList = defineOperation(RUN_LIST, (ctx, input) => {
  const view = viewOf(ctx);
  const runs = Object.values(ctx.state.runs)
    .filter((r) => input.includeEnded === true || r.status === "active")
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((r) => runView(ctx.state, r, view));
  return Promise.resolve(ok({ runs }));
});

export const runStop = defineOperation(RUN_STOP, (ctx, input) =>
  applyInput(
    ctx,
    { type: "run.stop", runId: input.runId, ...(input.reason ? { reason: input.reason } : {}) },
    () => ({ run: runView(ctx.state, ctx.state.runs[input.runId]!, viewOf(ctx)) }),
  ),
);

export const runPauseAll = defineOperation(RUN_PAUSE_ALL, (ctx, input) =>
  applyInputWith(ctx, { type: "run.pause_all", runId: input.runId }, RUN_PAUSE_ALL.output, (said) => said),
);

export const runResumeAll = defineOperation(RUN_RESUME_ALL, (ctx, input) =>
  applyInputWith(ctx, { type: "run.resume_all", runId: input.runId }, RUN_RESUME_ALL.output, (said) => said),
);

export const runContinuationSetDefault = defineOperation(RUN_CONTINUATION_SET_DEFAULT, (ctx, input) =>
  applyInput(ctx, { type: "run.set_default_policy", runId: input.runId, patch: input.patch }, () => ({
    defaultPolicy: ctx.state.runs[input.runId]!.defaultPolicy,
  })),
);

export const RUN_OPERATIONS = [
  runCreate,
  runGet,
  runList,
  runStop,
  runPauseAll,
  runResumeAll,
  runContinuationSetDefault,
];
