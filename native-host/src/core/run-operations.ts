// Run-level operations: create, stop, pause all, resume all, default policy, the Auto Resume switch.
import { applyPolicyPatch, DEFAULT_CONTINUATION_POLICY } from "../../../shared/continuation-policy.ts";
import { type Ctx, type DraftRun, type Rejection, reject } from "./context.ts";
import type { Input } from "./inputs.ts";
import { endWorker, withdrawScheduled } from "./worker-end.ts";

type Of<T extends Input["type"]> = Extract<Input, { type: T }>;

export function createRun(ctx: Ctx, input: Of<"run.create">): Rejection | void {
  if (ctx.run(input.runId)) return reject("CONFLICT", `run ${input.runId} already exists`);
  const merged = applyPolicyPatch(DEFAULT_CONTINUATION_POLICY, input.policy ?? {});
  if (!merged.ok) return reject("INVALID_POLICY", merged.message);
  ctx.state.runs[input.runId] = {
    id: input.runId,
    name: input.name,
    objective: input.objective ?? "",
    status: "active",
    createdAt: ctx.now,
    defaultPolicy: merged.policy,
  };
  ctx.emit("run.created", input.runId, undefined, { name: input.name, policy: merged.policy });
}

function activeRun(ctx: Ctx, runId: string): DraftRun | Rejection {
  const run = ctx.runForUpdate(runId);
  if (!run) return reject("NOT_FOUND", `no run ${runId}`);
  if (run.status !== "active") return reject("RUN_TERMINAL", `run ${runId} is ${run.status}`);
  return run;
}

function workersOf(ctx: Ctx, runId: string) {
  return ctx.findWorkers((w) => w.runId === runId);
}

export function stopRun(ctx: Ctx, input: Of<"run.stop">): Rejection | void {
  const run = activeRun(ctx, input.runId);
  if ("code" in run) return run;
  const reason = input.reason ?? "run stopped";
  // Ended first, so the last worker's end does not also record the run as completed.
  run.status = "cancelled";
  run.endedAt = ctx.now;
  for (const w of workersOf(ctx, run.id)) {
    if (w.status === "active") endWorker(ctx, w, "cancelled", reason, "run_ended");
  }
  ctx.emit("run.stopped", run.id, undefined, { reason });
}

export function pauseAll(ctx: Ctx, input: Of<"run.pause_all">): Rejection | void {
  const run = activeRun(ctx, input.runId);
  if ("code" in run) return run;
  let paused = 0;
  for (const w of workersOf(ctx, run.id)) {
    if (w.status !== "active" || w.pause) continue;
    w.pause = { source: "run", reason: "paused all after current turns", at: ctx.now };
    ctx.emit("execution.paused", w.runId, w.id, { source: "run" });
    withdrawScheduled(ctx, w);
    paused += 1;
  }
  ctx.emit("run.paused_all", run.id, undefined, { paused });
  ctx.reply = { paused };
}

export function resumeAll(ctx: Ctx, input: Of<"run.resume_all">): Rejection | void {
  const run = activeRun(ctx, input.runId);
  if ("code" in run) return run;
  let resumed = 0;
  for (const w of workersOf(ctx, run.id)) {
    // Stall and error pauses need a look at the worker itself (Continue anyway), not a bulk resume.
    if (w.status !== "active" || (w.pause?.source !== "run" && w.pause?.source !== "operator")) continue;
    w.pause = undefined;
    ctx.emit("worker.resumed", w.runId, w.id, { by: "run" });
    resumed += 1;
  }
  ctx.emit("run.resumed_all", run.id, undefined, { resumed });
  ctx.reply = { resumed };
}

export function setRunDefaultPolicy(ctx: Ctx, input: Of<"run.set_default_policy">): Rejection | void {
  const run = activeRun(ctx, input.runId);
  if ("code" in run) return run;
  const merged = applyPolicyPatch(run.defaultPolicy, input.patch);
  if (!merged.ok) return reject("INVALID_POLICY", merged.message);
  run.defaultPolicy = merged.policy;
  ctx.emit("continuation.policy_changed", run.id, undefined, {
    scope: "run",
    patch: input.patch,
    policy: merged.policy,
  });
}

/**
 * The store lost acknowledged transactions and the operator opened it anyway: every active run says so in its event
 * trail, since any of its workers may now be behind what its conversation already did.
 */
export function recordStoreLoss(ctx: Ctx, input: Of<"store.loss_accepted">): void {
  for (const run of Object.values(ctx.base.runs)) {
    if (run.status !== "active") continue;
    ctx.emit("store.loss_accepted", run.id, undefined, {
      acknowledgedSeq: input.acknowledgedSeq,
      keptSeq: input.keptSeq,
      detail: input.detail,
    });
  }
}

/**
 * The popup's global Auto Resume switch. Off: no automatic continuation for any worker, adopted ones included, and
 * scheduled turns an automatic wake asked for are withdrawn if they have not reached the page. On: every worker's own
 * policy governs again. Each active run records the switch.
 */
export function setAutoResume(ctx: Ctx, input: Of<"auto_resume.set">): Rejection | void {
  const off = !input.enabled;
  if ((ctx.state.autoResumeOff ?? false) === off) return;
  if (off) ctx.state.autoResumeOff = true;
  else delete ctx.state.autoResumeOff;
  for (const run of Object.values(ctx.base.runs)) {
    if (run.status !== "active") continue;
    ctx.touchedRuns.add(run.id);
    ctx.emit("auto_resume.switched", run.id, undefined, { enabled: input.enabled });
    if (!off) continue;
    for (const w of workersOf(ctx, run.id)) {
      if (w.status === "active" && w.current?.state === "scheduled" && !w.current.intent?.explicit) {
        withdrawScheduled(ctx, w);
      }
    }
  }
}

/** A browser connected: commands refused because none was there (or none answered in time) are tried at once. */
export function executorConnected(ctx: Ctx, _input: Of<"executor.connected">): Rejection | void {
  for (const w of ctx.findWorkers((x) => x.status === "active" && x.intent?.retry !== undefined)) {
    if (w.intent) delete w.intent.retry;
  }
}
