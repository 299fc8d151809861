// Reads for the operator UI (popup, dashboard, overlay, toolbar badge; contracts in shared/operations/ui.ts): one call
// each, in operator words. They are ordinary operations (MCP lists them too), so the UI and MCP see the same state.
import type { AutoResume } from "../../../shared/operations/records.ts";
import { conversationChain } from "./conversation-chain.ts";
import { AUTO_RESUME_SET, UI_SUMMARY, UI_WORKER_DETAIL } from "../../../shared/operations/ui.ts";
import type { DomainState } from "../core/model.ts";
import { governingPolicy } from "../core/policy.ts";
import { fail, ok, viewOf } from "./context.ts";
import { defineOperation } from "./registry.ts";
import { attemptView, runView, workerView } from "./views.ts";

/** Events read per page while looking for a worker's most recent ones. */
const PAGE = 500;

export const uiSummary = defineOperation(UI_SUMMARY, (ctx, input) => {
  const wanted = (runId: string) => input.runId === undefined || runId === input.runId;
  const view = viewOf(ctx);
  const runs = Object.values(ctx.state.runs)
    .filter((r) => r.status === "active" && wanted(r.id))
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((r) => runView(ctx.state, r, view));
  const workers = Object.values(ctx.state.workers)
    .filter((w) => w.status === "active" && wanted(w.runId))
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((w) => workerView(ctx.state, w, view));
  // `storage` is how the views learn that changes cannot be saved (a full disk): they show why and that it heals.
  return Promise.resolve(
    ok({
      runs,
      workers,
      autoResume: autoResumeView(ctx.state),
      eventSeq: ctx.lastEventSeq(),
      storage: ctx.storeHealth(),
    }),
  );
});

export const uiWorkerDetail = defineOperation(UI_WORKER_DETAIL, (ctx, input) => {
  const w = ctx.state.workers[input.workerId];
  if (!w) return Promise.resolve(fail("NOT_FOUND", `no worker ${input.workerId}`));
  const keep = input.recentEvents ?? 20;
  // The store reads oldest first; page forward and keep the tail (a worker has at most a few thousand).
  let recent: ReturnType<typeof ctx.eventsAfter> = [];
  let cursor = 0;
  for (;;) {
    const page = ctx.eventsAfter(cursor, PAGE, { workerId: w.id });
    if (page.length === 0) break;
    recent = [...recent, ...page].slice(-keep);
    cursor = page.at(-1)!.seq;
    if (page.length < PAGE) break;
  }
  const attempts = ctx.attempts(w.id).map(attemptView);
  return Promise.resolve(
    ok({
      worker: workerView(ctx.state, w, viewOf(ctx)),
      attempts,
      events: recent.map((e) => ({ seq: e.seq, type: e.type, at: e.at, data: e.data })),
      conversations: conversationChain(w),
    }),
  );
});

/**
 * The popup's global Auto Resume switch: `on` is true only while the switch allows it and at least one unfinished
 * worker (adopted ones included) continues by itself, so the popup never shows Off while anything auto-resumes.
 */
export function autoResumeView(state: DomainState): AutoResume {
  let autoPolicy = 0;
  let automatic = 0;
  for (const w of Object.values(state.workers)) {
    const run = state.runs[w.runId];
    if (!run || run.status !== "active" || w.status !== "active") continue;
    if (governingPolicy(state, run, w).mode !== "auto") continue;
    autoPolicy += 1;
    // A paused worker keeps its Auto Resume policy (the switch stays On) but does not continue by itself now.
    if (w.pause === undefined) automatic += 1;
  }
  const enabled = state.autoResumeOff !== true;
  return { enabled, on: enabled && autoPolicy > 0, automatic };
}

export const autoResumeSet = defineOperation(AUTO_RESUME_SET, async (ctx, input) => {
  const result = await ctx.apply({ type: "auto_resume.set", enabled: input.enabled });
  if (result.error) return fail(result.error.code, result.error.message);
  if (input.enabled && autoResumeView(ctx.state).automatic === 0) {
    for (const run of Object.values(ctx.state.runs)) {
      if (run.status !== "active") continue;
      const changed = await ctx.apply({
        type: "run.set_default_policy",
        runId: run.id,
        patch: { mode: "auto" },
      });
      if (changed.error) return fail(changed.error.code, changed.error.message);
    }
  }
  return ok({ autoResume: autoResumeView(ctx.state) });
});

export const UI_OPERATIONS = [uiSummary, uiWorkerDetail, autoResumeSet];
