// Zero-setup mode: adopt the conversation open in the person's tab as a worker that keeps going on its
// continuation-state block, without any MCP connector. Release is worker_stop (history kept).
import { z } from "zod";
import { write } from "./annotations.ts";
import { defineContract } from "./contract.ts";
import { runViewSchema, workerViewSchema } from "./views.ts";

export const CONVERSATION_ADOPT = defineContract({
  name: "conversation_adopt",
  title: "Keep this conversation going",
  description:
    "Turns an existing ChatGPT conversation into a worker with Auto Resume on, named after the conversation's title, ended or blocked by the continuation-state block at the end of each response (completionSignal 'output_block'). Joins runId, or creates a new run. No new chat is opened. A conversation an unfinished worker already keeps going is not adopted twice: the answer is that worker (existing: true; runId and objective are then ignored), so adopting again from another tab rebinds it. Release it with worker_stop.",
  input: {
    conversationUrl: z
      .string()
      .min(1)
      .max(2_000)
      .describe("The conversation's URL, https://chatgpt.com/c/<id> (also inside a project)"),
    runId: z.string().min(1).optional().describe("Join this run; omit to create a new run"),
    runName: z.string().min(1).max(200).optional().describe("Name of the new run (when runId is omitted)"),
    objective: z.string().min(1).max(20_000).optional().describe("What the conversation should achieve"),
    // A name, never transcript text: the page's title of the conversation, kept as the worker's name (cut to 80).
    title: z
      .string()
      .max(200)
      .optional()
      .describe(
        "The conversation's title as ChatGPT shows it: the worker (and a new run) is named after it, cut to 80 characters; without one, after the objective's first words",
      ),
  },
  output: z.object({
    worker: workerViewSchema,
    run: runViewSchema,
    /** The conversation was already kept going: this is the worker that does it. */
    existing: z.literal(true).optional(),
  }),
  annotations: write({ destructive: false, idempotent: false }),
  // The background names the conversation (the tab's URL), never the view.
  ui: "via-background",
});

export const ADOPT_CONTRACTS = [CONVERSATION_ADOPT] as const;
