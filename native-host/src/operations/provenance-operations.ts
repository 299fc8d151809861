// Worktree ownership and provenance operations (contracts in shared/operations/provenance.ts): claim and release a
// work location, and provenance_get: who owns it, where it runs, which attempt is active and how it is doing.
import {
  claimReply,
  PROVENANCE_GET,
  releaseReply,
  WORKER_CLAIM_WORKTREE,
  WORKER_RELEASE_WORKTREE,
} from "../../../shared/operations/provenance.ts";
import type { z } from "zod";
import type { Input } from "../core/inputs.ts";
import { fail, ok, type OperationsContext, viewOf } from "./context.ts";
import { byConversation, byWorker, byWorktree, type Lookup, provenanceOf } from "./provenance-view.ts";
import { applyInputWith, defineOperation } from "./registry.ts";
import { workerView } from "./views.ts";

/** Applies a claim or release and answers with what the core said and the worker as it is now. */
function ownership<R extends z.ZodObject>(ctx: OperationsContext, input: Input, id: string, reply: R) {
  return applyInputWith(ctx, input, reply, (said) => {
    const w = ctx.state.workers[id];
    return { ...said, worker: w ? workerView(ctx.state, w, viewOf(ctx)) : null };
  });
}

export const workerClaimWorktree = defineOperation(WORKER_CLAIM_WORKTREE, (ctx, input) =>
  ownership(
    ctx,
    { type: "worker.claim_worktree", workerId: input.workerId, worktree: input.worktree },
    input.workerId,
    claimReply,
  ),
);

export const workerReleaseWorktree = defineOperation(WORKER_RELEASE_WORKTREE, (ctx, input) =>
  ownership(
    ctx,
    { type: "worker.release_worktree", workerId: input.workerId, worktree: input.worktree },
    input.workerId,
    releaseReply,
  ),
);

export const provenanceGet = defineOperation(PROVENANCE_GET, (ctx, input) => {
  const given = (["worktree", "workerId", "conversation"] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1) {
    return Promise.resolve(
      fail(
        "INVALID_INPUT",
        `provenance_get: give exactly one of worktree, workerId, conversation (got ${given.length === 0 ? "none" : given.join(", ")})`,
      ),
    );
  }
  const by = given[0]!;
  let found: Lookup;
  if (by === "worktree") found = byWorktree(ctx.state, input.worktree!, input.runId);
  else if (by === "conversation") found = byConversation(ctx.state, input.conversation!, input.runId);
  else found = byWorker(ctx.state, input.workerId!);
  if (!("worker" in found)) return Promise.resolve(fail(found.code, found.message));
  const w = found.worker;
  return Promise.resolve(ok({ by, provenance: provenanceOf(ctx.state, w, ctx.attempts(w.id), viewOf(ctx)) }));
});

export const PROVENANCE_OPERATIONS = [workerClaimWorktree, workerReleaseWorktree, provenanceGet];
