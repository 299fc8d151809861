// Zero-setup mode (issue 8): adopt the conversation open in the person's tab as a worker that keeps going
// on its continuation-state block, without any MCP connector. Release is worker_stop (history kept).
import { z } from "zod";
import { runView, workerView } from "./views.ts";
import { applyInput, defineOperation } from "./registry.ts";
import { ok, viewOf } from "./context.ts";
import { activeWorkerOf, conversationId } from "../core/adopt.ts";

export const conversationAdopt = defineOperation({
  name: "conversation_adopt",
  title: "Keep this conversation going",
  description:
    "Turns an existing ChatGPT conversation into a worker with Auto Resume on, ended or blocked by the continuation-state block at the end of each response (completionSignal 'output_block'). Joins runId, or creates a new run. No new chat is opened. A conversation an unfinished worker already keeps going is not adopted twice: the answer is that worker (existing: true; runId and objective are then ignored), so adopting again from another tab rebinds it. Release it with worker_stop.",
  input: {
    conversationUrl: z
      .string()
      .min(1)
      .max(2_000)
      .describe("The conversation's URL, https://chatgpt.com/c/<id> (also inside a project)"),
    runId: z.string().min(1).optional().describe("Join this run; omit to create a new run"),
    runName: z.string().min(1).max(200).optional().describe("Name of the new run (when runId is omitted)"),
    objective: z.string().min(1).max(20_000).optional().describe("What the conversation should achieve"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run(ctx, input) {
    // The worker belongs to the conversation: asking again (from a new tab, after the tab was closed) finds it.
    const id = conversationId(input.conversationUrl);
    const holder = id !== undefined ? activeWorkerOf(Object.values(ctx.state.workers), id) : undefined;
    if (holder) {
      const run = ctx.state.runs[holder.runId]!;
      return Promise.resolve(
        ok({
          worker: workerView(ctx.state, holder, viewOf(ctx)),
          run: runView(ctx.state, run, viewOf(ctx)),
          existing: true,
        }),
      );
    }
    const workerId = ctx.newId();
    const runId = input.runId ?? ctx.newId();
    return applyInput(
      ctx,
      {
        type: "worker.adopt",
        workerId,
        runId,
        conversationUrl: input.conversationUrl,
        ...(input.runId ? {} : { newRun: { name: input.runName ?? "Kept-going conversation" } }),
        ...(input.objective ? { objective: input.objective } : {}),
      },
      () => ({
        worker: workerView(ctx.state, ctx.state.workers[workerId]!, viewOf(ctx)),
        run: runView(ctx.state, ctx.state.runs[runId]!, viewOf(ctx)),
      }),
    );
  },
});

export const ADOPT_OPERATIONS = [conversationAdopt];
