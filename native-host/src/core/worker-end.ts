// How a worker ends (complete, fail, stop, a run stopped, a block saying so) and what its end sets off: its scheduled
// turn withdrawn, dependants released, /root woken, the run completed once every worker has ended. Below the
// operations that end workers, so they all import it and nothing here imports them.
import type { Ctx, DraftWorker } from "./context.ts";
import { addWake, dropIntent } from "./intents.ts";
import type { LifecycleStatus } from "./model.ts";
import { releaseOnEnd } from "./worktrees.ts";

/**
 * Ends a worker (complete, fail, stop): cancels its pending turn and releases workers waiting on it. `cancelWhy` is
 * what a pending intent's cancellation says: the run's end when the whole run is stopped (as evaluation says it).
 */
export function endWorker(
  ctx: Ctx,
  w: DraftWorker,
  status: Exclude<LifecycleStatus, "active">,
  why: string,
  cancelWhy: "worker_ended" | "run_ended" = "worker_ended",
) {
  w.status = status;
  w.endedAt = ctx.now;
  w.wait = undefined;
  w.pause = undefined;
  w.keepaliveAt = undefined;
  dropIntent(ctx, w, cancelWhy);
  const current = w.current;
  if (current?.state === "scheduled") {
    // A pending submission is withdrawn; if the executor already sent it, its result is recorded.
    ctx.effects.push({ kind: "cancel_command", workerId: w.id, commandId: current.commandId });
  }
  const type =
    status === "completed" ? "worker.completed" : status === "failed" ? "worker.failed" : "worker.stopped";
  ctx.emit(type, w.runId, w.id, { why });
  releaseOnEnd(ctx, w, status);
  releaseDependents(ctx, w);
  wakeRootFor(ctx, w, `event:${type}`);
  completeRunIfDone(ctx, w.runId);
}

/**
 * Asks the executor to drop the worker's scheduled turn if it has not reached the page (as Stop does): Pause and Auto
 * Resume Off mean no new turn. If the executor already started submitting, its result is recorded as usual; if not,
 * it answers CANCELLED and the wish to continue is kept, held by the pause.
 */
export function withdrawScheduled(ctx: Ctx, w: DraftWorker): void {
  const current = w.current;
  if (current?.state === "scheduled") {
    ctx.effects.push({ kind: "cancel_command", workerId: w.id, commandId: current.commandId });
  }
}

function releaseDependents(ctx: Ctx, ended: DraftWorker): void {
  for (const w of ctx.findWorkers(
    (d) => d.wait?.kind === "dependency" && d.wait.onWorkerIds.includes(ended.id),
  )) {
    if (w.status !== "active" || w.wait?.kind !== "dependency" || !w.wait.onWorkerIds.includes(ended.id))
      continue;
    const allEnded = w.wait.onWorkerIds.every((id) => ctx.worker(id)?.status !== "active");
    if (allEnded) releaseWait(ctx, w, "dependency", "event:dependency_completed");
  }
}

export function releaseWait(
  ctx: Ctx,
  w: DraftWorker,
  kind: "human" | "dependency",
  reason: string,
  text?: string,
) {
  w.wait = undefined;
  ctx.emit("worker.resumed", w.runId, w.id, { released: kind, reason });
  const explicit = kind === "human";
  addWake(ctx, w, { reason, explicit, ...(text === undefined ? {} : { text }) });
}

/** A lane's progress, message or end is a wake for /root, subject to root's own floor. */
export function wakeRootFor(ctx: Ctx, w: DraftWorker, reason: string): void {
  if (w.path === "/root") return;
  const [root] = ctx.findWorkers((r) => r.runId === w.runId && r.path === "/root");
  if (root && root.status === "active")
    addWake(ctx, root, { reason: `${reason}:${w.path}`, allowSteer: true });
}

/** A run ends by itself once every worker has ended: failed if /root failed, completed otherwise. */
export function completeRunIfDone(ctx: Ctx, runId: string): void {
  const run = ctx.runForUpdate(runId);
  if (!run || run.status !== "active") return;
  const workers = ctx.findWorkers((w) => w.runId === runId);
  if (workers.length === 0 || workers.some((w) => w.status === "active")) return;
  const root = workers.find((w) => w.path === "/root");
  run.status = root?.status === "failed" ? "failed" : "completed";
  run.endedAt = ctx.now;
  ctx.emit(run.status === "failed" ? "run.failed" : "run.completed", runId, undefined, {});
}
