// Worktree ownership and provenance operations: claim and release a work location, and the read-only provenance_get
// that answers who owns it, where it runs, which attempt is active and how it is doing.
import { z } from "zod";
import { READ_ONLY, write } from "./annotations.ts";
import { defineContract } from "./contract.ts";
import { attemptViewSchema } from "./records.ts";
import { conversationLinkSchema, stateLabelSchema, workerViewSchema } from "./views.ts";

const workerId = z.string().min(1).describe("Worker id, as returned by worker_spawn or worker_list");
const worktree = z
  .string()
  .min(1)
  .max(1_000)
  .describe("A git worktree path or branch name, e.g. 'impl/backend'");

export const worktreeProvenanceSchema = z.object({
  worktree: z.string(),
  /** True while this worker owns it; false once released or ended with the worker. */
  owned: z.boolean(),
  claimedAt: z.number(),
  releasedAt: z.number().nullable(),
  releaseReason: z.string().nullable(),
});

export const provenanceSchema = z.object({
  worker: z.object({ id: z.string(), path: z.string(), name: z.string() }),
  run: z.object({ id: z.string(), name: z.string(), status: z.string() }),
  worktrees: z.array(worktreeProvenanceSchema),
  conversation: z.object({ url: z.string().nullable(), state: z.string(), binding: z.string() }),
  /** Every conversation the worker lived in, oldest first, the current one last (docs/operator-guide.md, "Rollover"). */
  conversations: z.array(conversationLinkSchema).optional(),
  /** The attempt scheduled, submitted or generating now; null between turns and after the end. */
  activeAttempt: attemptViewSchema.nullable(),
  /** Every attempt, oldest first, with the reason it was started. */
  attempts: z.array(attemptViewSchema),
  autoResumes: z.number(),
  /** The worker's state in operator words: Working, Resuming, Needs you, Waiting, Paused, Complete… */
  state: stateLabelSchema,
  disposition: z.string(),
});
export type Provenance = z.infer<typeof provenanceSchema>;

/** Whether the worker owned the location already (a repeated claim changes nothing), and the location as stored. */
export const claimReply = z.object({ alreadyOwned: z.boolean(), worktree: z.string() });
export const releaseReply = z.object({ worktree: z.string() });
const ownerAnswer = z.object({ worker: workerViewSchema.nullable() });

export const WORKER_CLAIM_WORKTREE = defineContract({
  name: "worker_claim_worktree",
  title: "Claim worktree",
  description:
    "Makes the worker the owner of a work location (git worktree path or branch). One owner per location per run: a location another worker owns is refused with WORKTREE_OWNED naming that owner. Ownership lasts until worker_release_worktree or the worker ends; resumes never change it.",
  input: { workerId, worktree },
  output: ownerAnswer.extend(claimReply.shape),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "none",
});

export const WORKER_RELEASE_WORKTREE = defineContract({
  name: "worker_release_worktree",
  title: "Release worktree",
  description:
    "Gives up the worker's ownership of a work location so another worker may claim it. Refused with NOT_OWNER if the worker does not own it.",
  input: { workerId, worktree },
  output: ownerAnswer.extend(releaseReply.shape),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "none",
});

export const PROVENANCE_GET = defineContract({
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
  output: z.object({ by: z.enum(["worktree", "workerId", "conversation"]), provenance: provenanceSchema }),
  annotations: READ_ONLY,
  ui: "none",
});

export const PROVENANCE_CONTRACTS = [WORKER_CLAIM_WORKTREE, WORKER_RELEASE_WORKTREE, PROVENANCE_GET] as const;
