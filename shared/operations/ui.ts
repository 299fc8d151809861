// Reads for the operator UI (popup, dashboard, overlay, toolbar badge): one call each, in operator words, and the
// global Auto Resume switch. They are ordinary operations (MCP lists them too), so the UI and MCP see the same state.
import { z } from "zod";
import { READ_ONLY, write } from "./annotations.ts";
import { defineContract } from "./contract.ts";
import { attemptViewSchema, autoResumeSchema, eventViewSchema, storageSchema } from "./records.ts";
import { conversationLinkSchema, runViewSchema, workerViewSchema } from "./views.ts";

export const UI_SUMMARY = defineContract({
  name: "ui_summary",
  title: "Operator summary",
  description:
    "Active runs with their Auto Resume default and state counts, and every unfinished worker in operator words (the popup and toolbar badge view); optionally of one run.",
  input: { runId: z.string().min(1).optional() },
  output: z.object({
    runs: z.array(runViewSchema),
    workers: z.array(workerViewSchema),
    autoResume: autoResumeSchema,
    /** The host's event cursor: views compare it with `ui.changed` pushes. */
    eventSeq: z.number(),
    /** How the views learn that changes cannot be saved (a full disk). Absent from hosts older than that handling. */
    storage: storageSchema.optional(),
  }),
  annotations: READ_ONLY,
  ui: "pages",
});

export const UI_WORKER_DETAIL = defineContract({
  name: "ui_worker_detail",
  title: "Worker drill-down",
  description:
    "A worker with its execution attempts (reason, times, outcome, prompt) and its most recent durable events, newest last.",
  input: {
    workerId: z.string().min(1),
    recentEvents: z.number().int().min(1).max(200).optional(),
  },
  output: z.object({
    worker: workerViewSchema,
    attempts: z.array(attemptViewSchema),
    events: z.array(eventViewSchema.pick({ seq: true, type: true, at: true, data: true })),
    /** The worker's conversations, oldest first, the current one last (docs/operator-guide.md, "Rollover"). */
    conversations: z.array(conversationLinkSchema).optional(),
  }),
  annotations: READ_ONLY,
  ui: "pages-and-overlay",
});

export const AUTO_RESUME_SET = defineContract({
  name: "auto_resume_set",
  title: "Auto Resume on or off, everywhere",
  description:
    "The global Auto Resume switch. enabled=false stops every automatic continuation at once (turns scheduled but not yet on the page are withdrawn; explicit requests still go); enabled=true lets each worker's own policy govern again, and when no unfinished worker has Auto Resume on, turns it on as the default of every active run.",
  input: { enabled: z.boolean() },
  output: z.object({ autoResume: autoResumeSchema }),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "pages",
});

export const UI_CONTRACTS = [UI_SUMMARY, UI_WORKER_DETAIL, AUTO_RESUME_SET] as const;
