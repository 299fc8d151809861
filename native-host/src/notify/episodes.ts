// What is worth a notification right now (docs/operator-guide.md, "Notifications"), as episodes with stable keys:
// a worker held where a person is needed, a run that ended, optionally each worker that ended. Pure: the same state,
// time and browser facts give the same keys, so the outbox can deduplicate on them across restarts.
import type { NotifyKinds } from "../../../shared/notify-settings.ts";
import type { LivenessReason } from "../../../shared/liveness.ts";
import { type LivenessEnv, workerLiveness } from "../core/liveness.ts";
import type { DomainState } from "../core/model.ts";

export type EpisodeKind = "needs_you" | "run_completed" | "run_failed" | "worker_completed" | "worker_failed";

/** Which switch of `kinds` lets an episode be sent. */
export type EpisodeToggle = "needsYou" | "operatorPause" | "runEnded" | "workerEnded";

export interface Episode {
  /** `held:<workerId>:<reason>:<since>`, `run:<runId>:<status>` or `worker:<workerId>:<status>`. */
  readonly key: string;
  readonly kind: EpisodeKind;
  readonly toggle: EpisodeToggle;
  readonly runId: string;
  readonly workerId: string | null;
  readonly reason: LivenessReason | null;
  /** Since when it holds (the liveness's since, or when the run or worker ended). */
  readonly since: number;
}

/**
 * A run or worker that ended longer ago than this is history, not news: enabling notifications (or adding a channel)
 * must not announce every run that ever finished. The host decides at once when something ends, so this only needs
 * to cover a restart soon after.
 */
export const ENDED_WINDOW_MS = 60 * 60_000;

/**
 * Held reasons that also show for a moment whenever the host starts or the browser restarts: they become an episode
 * only once they have lasted this long, so a host restart does not page anyone.
 */
export const SETTLE_MS: Partial<Readonly<Record<LivenessReason, number>>> = {
  browser_not_connected: 60_000,
};

/** Every kind switched on: which episodes are open at all, whatever the person chose to receive. */
export const ALL_KINDS: NotifyKinds = {
  needsYou: true,
  runEnded: true,
  workerEnded: true,
  resolved: true,
  operatorPause: true,
};

export function heldKey(workerId: string, reason: string, since: number): string {
  return `held:${workerId}:${reason}:${since}`;
}

export function resolvedKey(key: string): string {
  return `resolved:${key}`;
}

/**
 * The episodes open now that `kinds` lets through: workers of active runs held where a person is needed (and the
 * operator's own Pause only when `kinds.operatorPause`), runs that completed or failed (a Stop is the operator's own
 * doing), and with `kinds.workerEnded` each worker that completed or failed. Sorted by key.
 */
export function openEpisodes(
  state: DomainState,
  now: number,
  env: LivenessEnv,
  kinds: NotifyKinds,
): Episode[] {
  const out: Episode[] = [];
  for (const run of Object.values(state.runs)) {
    if (
      kinds.runEnded &&
      (run.status === "completed" || run.status === "failed") &&
      recent(run.endedAt, now)
    ) {
      out.push({
        key: `run:${run.id}:${run.status}`,
        kind: run.status === "completed" ? "run_completed" : "run_failed",
        toggle: "runEnded",
        runId: run.id,
        workerId: null,
        reason: null,
        since: run.endedAt ?? now,
      });
    }
  }
  for (const w of Object.values(state.workers)) {
    const run = state.runs[w.runId];
    if (!run) continue;
    if (w.status === "completed" || w.status === "failed") {
      if (kinds.workerEnded && recent(w.endedAt, now)) {
        out.push({
          key: `worker:${w.id}:${w.status}`,
          kind: w.status === "completed" ? "worker_completed" : "worker_failed",
          toggle: "workerEnded",
          runId: w.runId,
          workerId: w.id,
          reason: null,
          since: w.endedAt ?? now,
        });
      }
      continue;
    }
    if (w.status !== "active" || run.status !== "active") continue;
    const liveness = workerLiveness(state, w, now, env);
    if (!liveness || liveness.state !== "held") continue;
    const operatorPause = liveness.reason === "paused";
    if (operatorPause ? !kinds.operatorPause : !(liveness.needsYou && kinds.needsYou)) continue;
    if (now - liveness.since < (SETTLE_MS[liveness.reason] ?? 0)) continue;
    out.push({
      key: heldKey(w.id, liveness.reason, liveness.since),
      kind: "needs_you",
      toggle: operatorPause ? "operatorPause" : "needsYou",
      runId: w.runId,
      workerId: w.id,
      reason: liveness.reason,
      since: liveness.since,
    });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function recent(endedAt: number | undefined, now: number): boolean {
  return endedAt !== undefined && now - endedAt <= ENDED_WINDOW_MS;
}

/** The Needs-you episodes that were notified and are no longer open: each gets `resolved:<key>`. */
export function resolvedEpisodes(notified: Iterable<string>, open: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const key of notified) if (key.startsWith("held:") && !open.has(key)) out.add(resolvedKey(key));
  return [...out].sort();
}
