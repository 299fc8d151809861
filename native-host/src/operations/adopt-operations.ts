// Zero-setup mode (contract in shared/operations/adopt.ts): adopt the conversation open in the person's tab as a
// worker that keeps going on its continuation-state block, without any MCP connector. Release is worker_stop.
import { CONVERSATION_ADOPT } from "../../../shared/operations/adopt.ts";
import { activeWorkerOf, conversationId } from "../core/adopt.ts";
import { adoptedName } from "../core/adopted-name.ts";
import { ok, viewOf } from "./context.ts";
import { applyInput, defineOperation } from "./registry.ts";
import { runView, workerView } from "./views.ts";

export const conversationAdopt = defineOperation(CONVERSATION_ADOPT, (ctx, input) => {
  // The worker belongs to the conversation: asking again (from a new tab, after the tab was closed) finds it.
  const id = conversationId(input.conversationUrl);
  const holder = id !== undefined ? activeWorkerOf(Object.values(ctx.state.workers), id) : undefined;
  if (holder) {
    const existing = () => ({
      worker: workerView(ctx.state, ctx.state.workers[holder.id]!, viewOf(ctx)),
      run: runView(ctx.state, ctx.state.runs[holder.runId]!, viewOf(ctx)),
      existing: true as const,
    });
    // Asked from another browser's tab: that browser holds the conversation now, and its turns go there.
    if (ctx.executorId !== undefined && holder.conversation.executorId !== ctx.executorId) {
      const held = { type: "conversation.held", workerId: holder.id, executorId: ctx.executorId } as const;
      return applyInput(ctx, held, existing);
    }
    return Promise.resolve(ok(existing()));
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
      // A new run carries the worker's name too, so the dashboard's runs tell conversations apart.
      ...(input.runId
        ? {}
        : { newRun: { name: input.runName ?? adoptedName(input.title, input.objective, id ?? "") } }),
      ...(input.objective ? { objective: input.objective } : {}),
      ...(input.title ? { title: input.title } : {}),
      ...(ctx.executorId !== undefined ? { executorId: ctx.executorId } : {}),
    },
    () => ({
      worker: workerView(ctx.state, ctx.state.workers[workerId]!, viewOf(ctx)),
      run: runView(ctx.state, ctx.state.runs[runId]!, viewOf(ctx)),
    }),
  );
});

export const ADOPT_OPERATIONS = [conversationAdopt];
