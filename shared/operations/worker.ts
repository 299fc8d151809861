// Worker operations: spawn, read, the worker's explicit outcomes and waits, and the operator's controls.
import { z } from "zod";
import { continuationPolicySchema, policyPatchSchema } from "../continuation-policy.ts";
import { READ_ONLY, write } from "./annotations.ts";
import { defineContract } from "./contract.ts";
import { attemptViewSchema } from "./records.ts";
import { workerViewSchema } from "./views.ts";
import { MAX_HANDOFF_BRIEF_CHARS } from "../handoff-block.ts";

const workerId = z.string().min(1).describe("Worker id, as returned by worker_spawn or worker_list");
const text = (max: number) => z.string().min(1).max(max);

/** Most worker writes answer with the worker as it is after the write (null if it does not exist). */
export const workerAnswer = z.object({ worker: workerViewSchema.nullable() });

export const WORKER_SPAWN = defineContract({
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
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: false }),
  ui: "none",
});

export const WORKER_GET = defineContract({
  name: "worker_get",
  title: "Get worker",
  description:
    "Returns a worker: assignment, state in words, current attempt, resumes, waits, policy and the execution-attempt history.",
  input: { workerId },
  output: z.object({ worker: workerViewSchema, attempts: z.array(attemptViewSchema) }),
  annotations: READ_ONLY,
  ui: "pages",
});

export const WORKER_LIST = defineContract({
  name: "worker_list",
  title: "List workers",
  description: "Lists workers, optionally of one run and only unfinished ones.",
  input: { runId: z.string().optional(), unfinishedOnly: z.boolean().optional() },
  output: z.object({ workers: z.array(workerViewSchema) }),
  annotations: READ_ONLY,
  ui: "pages",
});

export const WORKER_PROGRESS = defineContract({
  name: "worker_progress",
  title: "Report progress",
  description:
    "Records durable progress (a checkpoint, commit, milestone). Resets the stall guard and wakes /root. Call it whenever meaningful work is done. The summary (first 2,000 characters) is kept with the worker's newest 50 and shown in the dashboard's timeline.",
  input: { workerId, summary: text(5_000).optional() },
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: false }),
  ui: "none",
});

export const WORKER_COMPLETE = defineContract({
  name: "worker_complete",
  title: "Complete worker",
  description:
    "Declares the whole assignment finished with its acceptance criteria met. No further turn will be started.",
  input: {
    workerId,
    summary: text(10_000).optional().describe("Terminal handoff: what was done, where, how verified"),
  },
  output: workerAnswer,
  annotations: write({ destructive: true, idempotent: true }),
  ui: "none",
});

export const WORKER_FAIL = defineContract({
  name: "worker_fail",
  title: "Fail worker",
  description: "Declares the assignment irrecoverably failed. No further turn will be started.",
  input: { workerId, reason: text(10_000) },
  output: workerAnswer,
  annotations: write({ destructive: true, idempotent: true }),
  ui: "none",
});

export const WORKER_AWAIT_HUMAN = defineContract({
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
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: false }),
  ui: "none",
});

export const WORKER_AWAIT_DEPENDENCY = defineContract({
  name: "worker_await_dependency",
  title: "Wait for a dependency",
  description:
    "Stops automatic continuation until a dependency changes: released automatically when every listed worker has ended, or explicitly by worker_resume.",
  input: { workerId, condition: text(2_000), onWorkerIds: z.array(z.string().min(1)).max(50).optional() },
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: false }),
  ui: "none",
});

export const WORKER_PAUSE = defineContract({
  name: "worker_pause",
  title: "Pause after current turn",
  description: "The current turn may finish; no further turn starts until resumed. Nothing is cancelled.",
  input: { workerId, reason: z.string().max(2_000).optional() },
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages-and-overlay",
});

export const WORKER_RESUME = defineContract({
  name: "worker_resume",
  title: "Resume worker",
  description:
    "Clears a pause (a stall pause is acknowledged: Continue anyway) and releases a dependency wait. Under Auto Resume an idle worker then gets its next turn.",
  input: { workerId },
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages-and-overlay",
});

/** What Continue now did: joined a turn already asked for, or queued one for after the current turn. */
export const continueNowReply = z.object({ coalesced: z.boolean(), afterCurrentTurn: z.boolean() });

export const WORKER_CONTINUE_NOW = defineContract({
  name: "worker_continue_now",
  title: "Continue now",
  description:
    "Starts one manual-resume turn now if the conversation is idle, or right after the current turn. Fails for finished workers; set overrideWait to clear a human/dependency wait and clearPause to clear a pause.",
  input: { workerId, overrideWait: z.boolean().optional(), clearPause: z.boolean().optional() },
  output: workerAnswer.extend(continueNowReply.shape),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages-and-overlay",
});

/** What a rollover request did: started one, gave a pending one its brief, or found one under way already. */
export const rolloverReply = z.object({
  rollover: z.enum(["started", "brief_received", "already_under_way"]),
});

export const WORKER_ROLLOVER = defineContract({
  name: "worker_rollover",
  title: "Continue in a new conversation (agent)",
  description:
    "Moves the worker to a fresh ChatGPT conversation before this one gets too long or slow: the new conversation is opened where this one was (same GPT or project), its first prompt carries your workerId, the contract and your brief. Keeps the worker's id, run, path, inbox, worktrees and history. The brief is your handoff: done, next steps, decisions, open questions, files touched (at most 8,000 characters); it is not stored, only its size.",
  input: {
    workerId,
    brief: text(MAX_HANDOFF_BRIEF_CHARS).describe(
      "Handoff for your successor: done, next steps, decisions, open questions, files touched",
    ),
    reason: z.string().max(200).optional().describe("Why, in a few words (shown on the timeline)"),
  },
  output: workerAnswer.extend(rolloverReply.shape),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "none",
});

export const WORKER_NEW_CONVERSATION = defineContract({
  name: "worker_new_conversation",
  title: "Continue in a new conversation",
  description:
    "The operator's rollover: asks the worker once for a handoff brief (or composes one from its record when the conversation cannot answer), opens a new conversation where the old one was and continues there; the old conversation stays open, no longer managed.",
  input: { workerId, reason: z.string().max(200).optional() },
  output: workerAnswer.extend(rolloverReply.shape),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages-and-overlay",
});

export const WORKER_STOP = defineContract({
  name: "worker_stop",
  title: "Stop worker",
  description:
    "Ends the worker for good (cancelled); no further turn. Use worker_pause to stop only automatic turns.",
  input: { workerId, reason: z.string().max(2_000).optional() },
  output: workerAnswer,
  annotations: write({ destructive: true, idempotent: true }),
  ui: "pages-and-overlay",
});

export const WORKER_FOLLOWUP = defineContract({
  name: "worker_followup",
  title: "Send follow-up",
  description:
    "Delivers a follow-up instruction to the worker's conversation as its next turn (after the current one).",
  input: { workerId, text: text(20_000) },
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: false }),
  ui: "none",
});

/** Whether an identical correction (same key) had been delivered already and this one was dropped. */
export const steerReply = z.object({ deduplicated: z.boolean() });

export const WORKER_STEER = defineContract({
  name: "worker_steer",
  title: "Corrective steering",
  description:
    "For /root: delivers a material correction at once, even mid-turn and inside the 15-minute spacing. Identical corrections (same key) are dropped.",
  input: { workerId, text: text(20_000), key: z.string().max(200).optional() },
  output: workerAnswer.extend(steerReply.shape),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "none",
});

export const WORKER_CONTINUATION_GET = defineContract({
  name: "worker_continuation_get",
  title: "Get continuation policy",
  description: "Returns the worker's effective continuation policy, its own overrides and the run default.",
  input: { workerId },
  output: z.object({
    policy: continuationPolicySchema,
    override: policyPatchSchema,
    runDefault: continuationPolicySchema,
  }),
  annotations: READ_ONLY,
  ui: "pages",
});

export const WORKER_CONTINUATION_SET = defineContract({
  name: "worker_continuation_set",
  title: "Set continuation policy",
  description:
    "Overrides continuation policy fields for one worker (e.g. mode 'auto' or 'manual'); `reset` lists fields that return to the run default.",
  input: {
    workerId,
    patch: policyPatchSchema,
    reset: z.array(policyPatchSchema.keyof()).optional(),
  },
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages",
});

export const HUMAN_RESOLVE = defineContract({
  name: "human_resolve",
  title: "Answer a Needs-you",
  description:
    "Resolves a worker's wait for a person; the answer, if any, is delivered as the worker's next turn.",
  input: { workerId, answer: z.string().max(20_000).optional() },
  output: workerAnswer,
  annotations: write({ destructive: false, idempotent: false }),
  ui: "pages",
});

export const WORKER_CONTRACTS = [
  WORKER_SPAWN,
  WORKER_GET,
  WORKER_LIST,
  WORKER_PROGRESS,
  WORKER_COMPLETE,
  WORKER_FAIL,
  WORKER_AWAIT_HUMAN,
  WORKER_AWAIT_DEPENDENCY,
  WORKER_PAUSE,
  WORKER_RESUME,
  WORKER_CONTINUE_NOW,
  WORKER_ROLLOVER,
  WORKER_NEW_CONVERSATION,
  WORKER_STOP,
  WORKER_FOLLOWUP,
  WORKER_STEER,
  WORKER_CONTINUATION_GET,
  WORKER_CONTINUATION_SET,
  HUMAN_RESOLVE,
] as const;
