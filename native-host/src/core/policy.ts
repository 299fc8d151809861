// Policy and disposition views of a worker: the effective continuation policy and its disposition
// (docs/continuation-core.md).
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import type { Ctx } from "./context.ts";
import type { Disposition, DomainState, Run, Worker } from "./model.ts";

/** The run default with the worker's overrides on top (a worker inherits its run's default, field by field). */
export function effectivePolicy(run: Run, worker: Worker): ContinuationPolicy {
  // Most workers override nothing: skip the copy, which is hot (every worker, every input).
  for (const _ in worker.policyOverride) return { ...run.defaultPolicy, ...worker.policyOverride };
  return run.defaultPolicy;
}

/** The effective policy of a worker inside a transition; its run must exist. */
export function policyOf(ctx: Ctx, w: Worker): ContinuationPolicy {
  const run = ctx.run(w.runId);
  if (!run) throw new Error(`worker ${w.id} refers to missing run ${w.runId}`);
  return effectivePolicy(run, w);
}

export function dispositionOf(worker: Worker): Disposition {
  if (worker.status !== "active") return worker.status;
  if (worker.wait?.kind === "human") return "awaiting_human";
  if (worker.wait?.kind === "dependency") return "awaiting_dependency";
  if (worker.pause) return "paused";
  const attempt = worker.current;
  const busy =
    worker.conversation.state === "generating" ||
    attempt?.state === "scheduled" ||
    attempt?.state === "submitted" ||
    attempt?.state === "generating";
  return busy ? "running" : "awaiting_execution";
}

/**
 * The policy that governs continuation now: the worker's own, except that the popup's global Auto Resume switch
 * turned Off makes every worker manual (only explicit turns go out) without touching anyone's policy, so On
 * restores each worker's own.
 */
export function governingPolicy(state: DomainState, run: Run, worker: Worker): ContinuationPolicy {
  const policy = effectivePolicy(run, worker);
  return state.autoResumeOff === true && policy.mode === "auto" ? { ...policy, mode: "manual" } : policy;
}
