// Run operations: create, get, list, stop, pause all, resume all, and the run's default continuation policy.
import { z } from "zod";
import { continuationPolicySchema, policyPatchSchema } from "../continuation-policy.ts";
import { READ_ONLY, write } from "./annotations.ts";
import { defineContract } from "./contract.ts";
import { runViewSchema, workerViewSchema } from "./views.ts";

const runId = z.string().min(1).describe("Run id, as returned by run_create or run_list");
const runAnswer = z.object({ run: runViewSchema });

export const RUN_CREATE = defineContract({
  name: "run_create",
  title: "Create run",
  description:
    "Creates a run: a named objective whose workers share a default continuation policy. Set policy.mode to 'auto' to turn Auto Resume on for its workers.",
  input: {
    name: z.string().min(1).max(200),
    objective: z.string().max(20_000).optional(),
    policy: policyPatchSchema.optional().describe("Default continuation policy fields for the run's workers"),
  },
  output: runAnswer,
  annotations: write({ destructive: false, idempotent: false }),
  ui: "none",
});

export const RUN_GET = defineContract({
  name: "run_get",
  title: "Get run",
  description: "Returns a run with its workers and their continuation state.",
  input: { runId },
  output: z.object({ run: runViewSchema, workers: z.array(workerViewSchema) }),
  annotations: READ_ONLY,
  ui: "pages",
});

export const RUN_LIST = defineContract({
  name: "run_list",
  title: "List runs",
  description: "Lists runs, newest first; by default only active ones.",
  input: { includeEnded: z.boolean().optional() },
  output: z.object({ runs: z.array(runViewSchema) }),
  annotations: READ_ONLY,
  ui: "pages",
});

export const RUN_STOP = defineContract({
  name: "run_stop",
  title: "Stop run",
  description:
    "Stops a run: every unfinished worker is stopped and no further turn is started. Cannot be undone.",
  input: { runId, reason: z.string().max(2_000).optional() },
  output: runAnswer,
  annotations: write({ destructive: true, idempotent: true }),
  ui: "pages",
});

export const RUN_PAUSE_ALL = defineContract({
  name: "run_pause_all",
  title: "Pause all after current turns",
  description: "Pauses every unfinished worker of the run; current turns may finish, no new turn starts.",
  input: { runId },
  output: z.object({ paused: z.number().int().nonnegative() }),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages",
});

export const RUN_RESUME_ALL = defineContract({
  name: "run_resume_all",
  title: "Resume all unfinished",
  description:
    "Clears operator and run pauses of the run's workers. Stall and error pauses stay until a person looks at each worker.",
  input: { runId },
  output: z.object({ resumed: z.number().int().nonnegative() }),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages",
});

export const RUN_CONTINUATION_SET_DEFAULT = defineContract({
  name: "run_continuation_set_default",
  title: "Set run continuation default",
  description:
    "Changes the run's default continuation policy (e.g. mode 'auto' = Auto Resume on). Workers inherit it unless they override a field.",
  input: { runId, patch: policyPatchSchema },
  output: z.object({ defaultPolicy: continuationPolicySchema }),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages",
});

export const RUN_CONTRACTS = [
  RUN_CREATE,
  RUN_GET,
  RUN_LIST,
  RUN_STOP,
  RUN_PAUSE_ALL,
  RUN_RESUME_ALL,
  RUN_CONTINUATION_SET_DEFAULT,
] as const;
