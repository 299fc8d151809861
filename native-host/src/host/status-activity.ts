// The runs and workers that status.json summarises for `orchestrator status`: active runs with their workers, each
// worker in the same operator words (state labels) the popup and the MCP views use, built by operations/views.ts.
import type { LivenessEnv } from "../core/liveness.ts";
import type { DomainState } from "../core/model.ts";
import { runView, type StateLabel, workerView } from "../operations/views.ts";

export interface RunSummary {
  readonly id: string;
  readonly name: string;
  /** active, completed, failed or cancelled. */
  readonly status: string;
  /** The run's workers by state label, labels with no worker left out. */
  readonly counts: Partial<Record<StateLabel, number>>;
}

export interface WorkerSummary {
  readonly id: string;
  readonly runId: string;
  readonly path: string;
  readonly name: string;
  /** The state label the popup shows (Working, Needs you, Paused, Complete…). */
  readonly label: StateLabel;
}

export interface ActivitySummary {
  readonly runs: RunSummary[];
  readonly workers: WorkerSummary[];
}

/**
 * Active runs and all their workers (ended ones too, so a finished worker reads Complete). Finished runs are left out:
 * the backend archives them, and the status file stays small however long the history.
 */
export function activitySummary(state: DomainState, now: number, env: LivenessEnv): ActivitySummary {
  const view = { now, env };
  const runs = Object.values(state.runs)
    .filter((r) => r.status === "active")
    .sort((a, b) => a.createdAt - b.createdAt);
  const order = new Map(runs.map((r, i) => [r.id, i]));
  return {
    runs: runs.map((run) => {
      const { counts } = runView(state, run, view);
      return {
        id: run.id,
        name: run.name,
        status: run.status,
        counts: Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0)),
      };
    }),
    workers: Object.values(state.workers)
      .filter((w) => order.has(w.runId))
      .sort((a, b) => (order.get(a.runId) ?? 0) - (order.get(b.runId) ?? 0) || a.path.localeCompare(b.path))
      .map((w) => ({
        id: w.id,
        runId: w.runId,
        path: w.path,
        name: w.name,
        label: workerView(state, w, view).label,
      })),
  };
}
