// Worktree ownership and provenance tools (spec 24): claim and release a work location, and the read-only
// provenance_get that answers who owns it, where it runs, which attempt is active and how it is doing.
import { z } from "zod";
import { fail, ok, viewOf } from "./context.ts";
import { byConversation, byWorker, byWorktree, type Lookup, provenanceOf } from "./provenance-view.ts";
import { applyInput, defineOperation, READ_ONLY } from "./registry.ts";
import { workerView } from "./views.ts";

const workerId = z.string().min(1).describe("Worker id, as returned by worker_spawn or worker_list");
const worktree = z
  .string()
  .min(1)
  .max(1_000)
  .describe("A git worktree path or branch name, e.g. 'impl/backend'");
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

export const workerClaimWorktree = defineOperation({
  name: "worker_claim_worktree",
  title: "Claim worktree",
  description:
    "Makes the worker the owner of a work location (git worktree path or branch). One owner per location per run: a location another worker owns is refused with WORKTREE_OWNED naming that owner. Ownership lasts until worker_release_worktree or the worker ends; resumes never change it.",
  input: { workerId, worktree },
  annotations: { ...WRITE, idempotentHint: true },
  run(ctx, input) {
    return applyInput(
      ctx,
      { type: "worker.claim_worktree", workerId: input.workerId, worktree: input.worktree },
      (reply) => {
        const w = ctx.state.workers[input.workerId];
        return { ...(reply ?? {}), worker: w ? workerView(ctx.state, w, viewOf(ctx)) : null };
      },
    );
  },
});

export const workerReleaseWorktree = defineOperation({
  name: "worker_release_worktree",
  title: "Release worktree",
  description:
    "Gives up the worker's ownership of a work location so another worker may claim it. Refused with NOT_OWNER if the worker does not own it.",
  input: { workerId, worktree },
  annotations: { ...WRITE, idempotentHint: true },
  run(ctx, input) {
    return applyInput(
      ctx,
      { type: "worker.release_worktree", workerId: input.workerId, worktree: input.worktree },
      (reply) => {
        const w = ctx.state.workers[input.workerId];
        return { ...(reply ?? {}), worker: w ? workerView(ctx.state, w, viewOf(ctx)) : null };
      },
    );
  },
});

export const provenanceGet = defineOperation({
  name: "provenance_get",
  title: "Get provenance",
  description:
    "Answers, for one worktree, worker or conversation (give exactly one): the owning worker and run, the hosting conversation URL, the active execution attempt, every attempt with its reason and executor, the number of automatic resumes, and the state in words (Working, Resuming, Needs you, Waiting, Paused, Complete…).",
  input: {
    worktree: worktree.optional(),
    workerId: workerId.optional(),
    conversation: z
      .string()
      .min(1)
      .max(2_000)
      .optional()
      .describe("Conversation URL (https://chatgpt.com/c/<id>) or its id"),
    runId: z.string().min(1).optional().describe("Narrows a worktree or conversation lookup to one run"),
  },
  annotations: READ_ONLY,
  run(ctx, input) {
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
    return Promise.resolve(
      ok({ by, provenance: provenanceOf(ctx.state, w, ctx.attempts(w.id), viewOf(ctx)) }),
    );
  },
});

export const PROVENANCE_OPERATIONS = [workerClaimWorktree, workerReleaseWorktree, provenanceGet];
