// Reads for the operator UI (popup, dashboard, overlay, toolbar badge): one call each, in operator words.
// They are ordinary operations (MCP lists them too), so the UI and MCP see the same state (architecture §6).
import { z } from "zod";
import { fail, ok } from "./context.ts";
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
    const runs = Object.values(ctx.state.runs)
      .filter((r) => r.status === "active" && wanted(r.id))
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((r) => runView(ctx.state, r));
    const workers = Object.values(ctx.state.workers)
      .filter((w) => w.status === "active" && wanted(w.runId))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((w) => workerView(ctx.state, w));
    // `storage` is how the views learn that changes cannot be saved (a full disk): they show why and that it heals.
    return Promise.resolve(ok({ runs, workers, eventSeq: ctx.lastEventSeq(), storage: ctx.storeHealth() }));
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
        worker: workerView(ctx.state, w),
        attempts,
        events: recent.map((e) => ({ seq: e.seq, type: e.type, at: e.at, data: e.data })),
      }),
    );
  },
});

export const UI_OPERATIONS = [uiSummary, uiWorkerDetail];
