// Reads for the operator UI (popup, dashboard, overlay, toolbar badge): one call each, in operator words.
// They are ordinary operations (MCP lists them too), so the UI and MCP see the same state (architecture §6).
import { z } from "zod";
import type { DomainState } from "../core/model.ts";
import { governingPolicy } from "../core/policy.ts";
import { fail, ok, viewOf } from "./context.ts";
import { defineOperation, READ_ONLY } from "./registry.ts";
import { runView, workerView } from "./views.ts";

/** Events read per page while looking for a worker's most recent ones. */
const PAGE = 500;

export const uiSummary = defineOperation({
  name: "ui_summary",
  title: "Operator summary",
  description:
    "Active runs with their Auto Resume default and state counts, and every unfinished worker in operator words (the popup and toolbar badge view); optionally of one run.",
  input: { runId: z.string().min(1).optional() },
  annotations: READ_ONLY,
  run(ctx, input) {
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
  },
});

export const uiWorkerDetail = defineOperation({
  name: "ui_worker_detail",
  title: "Worker drill-down",
  description:
    "A worker with its execution attempts (reason, times, outcome, prompt) and its most recent durable events, newest last.",
  input: {
    workerId: z.string().min(1),
    recentEvents: z.number().int().min(1).max(200).optional(),
  },
  annotations: READ_ONLY,
  run(ctx, input) {
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
    const attempts = ctx.attempts(w.id).map((a) => ({
      seq: a.seq,
      reason: a.reason,
      state: a.state,
      promptKind: a.promptKind,
      promptId: a.promptId,
      wakeReasons: a.wakeReasons,
      scheduledAt: a.scheduledAt,
      submittedAt: a.submittedAt ?? null,
      terminalAt: a.terminalAt ?? null,
      outcome: a.outcome ?? null,
      errorCode: a.errorCode ?? null,
      /** Which browser profile ran it (spec 24): attempts on two browsers of one backend stay apart. */
      executorId: a.executorId ?? null,
    }));
    return Promise.resolve(
      ok({
        worker: workerView(ctx.state, w, viewOf(ctx)),
        attempts,
        events: recent.map((e) => ({ seq: e.seq, type: e.type, at: e.at, data: e.data })),
      }),
    );
  },
});

/**
 * The popup's global Auto Resume switch: `on` is true only while the switch allows it and at least one unfinished
 * worker (adopted ones included) continues by itself, so the popup never shows Off while anything auto-resumes.
 */
export function autoResumeView(state: DomainState): { enabled: boolean; on: boolean; automatic: number } {
  let automatic = 0;
  for (const w of Object.values(state.workers)) {
    const run = state.runs[w.runId];
    if (!run || run.status !== "active" || w.status !== "active") continue;
    if (governingPolicy(state, run, w).mode === "auto") automatic += 1;
  }
  const enabled = state.autoResumeOff !== true;
  return { enabled, on: enabled && automatic > 0, automatic };
}

export const autoResumeSet = defineOperation({
  name: "auto_resume_set",
  title: "Auto Resume on or off, everywhere",
  description:
    "The global Auto Resume switch. enabled=false stops every automatic continuation at once (turns scheduled but not yet on the page are withdrawn; explicit requests still go); enabled=true lets each worker's own policy govern again, and when no unfinished worker has Auto Resume on, turns it on as the default of every active run.",
  input: { enabled: z.boolean() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(ctx, input) {
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
  },
});

export const UI_OPERATIONS = [uiSummary, uiWorkerDetail, autoResumeSet];
