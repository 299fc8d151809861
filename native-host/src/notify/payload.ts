// The versioned payload of a notification (docs/operator-guide.md, "Notifications"), in the words the popup and the
// dashboard use (operations/views.ts): names, states and reasons only, never conversation text.
import { DEFAULT_CHROME_EXTENSION_ID } from "../../../shared/extension-ids.ts";
import { LIVENESS_REASONS } from "../../../shared/liveness.ts";
import type { NotificationPayload } from "../../../shared/notify-settings.ts";
import type { LivenessEnv } from "../core/liveness.ts";
import type { DomainState } from "../core/model.ts";
import { workerView } from "../operations/views.ts";
import type { Episode } from "./episodes.ts";
import { resolvedKey } from "./episodes.ts";

const DASHBOARD = `chrome-extension://${DEFAULT_CHROME_EXTENSION_ID}/extension/dashboard/dashboard.html`;

/** Opens the dashboard, at the worker's drill-down when there is one (Chromium's extension URL). */
export function dashboardLink(workerId?: string | null): string {
  return workerId ? `${DASHBOARD}#worker=${encodeURIComponent(workerId)}` : DASHBOARD;
}

const ENDED_TITLES = {
  run_completed: "Run completed",
  run_failed: "Run failed",
  worker_completed: "Worker completed",
  worker_failed: "Worker failed",
} as const;

/** The payload for an open episode; null when its run or worker is gone from the state. */
export function episodePayload(
  state: DomainState,
  episode: Episode,
  now: number,
  env: LivenessEnv,
): NotificationPayload | null {
  const run = state.runs[episode.runId];
  if (!run) return null;
  const base = { version: 1 as const, episode: episode.key, at: now, run: { id: run.id, name: run.name } };
  if (episode.workerId === null) {
    return {
      ...base,
      kind: episode.kind,
      title: `${ENDED_TITLES[episode.kind as keyof typeof ENDED_TITLES]}: ${run.name}`,
      worker: null,
      state: run.status === "completed" ? "Complete" : "Failed",
      reason: null,
      reasonText: null,
      remedy: null,
      since: episode.since,
      link: dashboardLink(),
    };
  }
  const w = state.workers[episode.workerId];
  if (!w) return null;
  const view = workerView(state, w, { now, env });
  const worker = { id: w.id, name: w.name, path: w.path };
  if (episode.kind !== "needs_you") {
    return {
      ...base,
      kind: episode.kind,
      title: `${ENDED_TITLES[episode.kind]}: ${w.path}`,
      worker,
      state: view.label,
      reason: null,
      reasonText: null,
      remedy: null,
      since: episode.since,
      link: dashboardLink(w.id),
    };
  }
  // The words of the episode's own reason (the view may have moved on in the moment since it was computed).
  const reason = episode.reason ?? view.liveness?.reason ?? null;
  const def = reason ? LIVENESS_REASONS[reason] : undefined;
  const reasonText = def?.text ?? null;
  return {
    ...base,
    kind: "needs_you",
    title: `${reason === "paused" ? "Paused" : "Needs you"}: ${w.path}${reasonText ? ` — ${reasonText}` : ""}`,
    worker,
    state: view.label,
    reason,
    reasonText,
    remedy: def?.remedyText ?? null,
    since: episode.since,
    link: dashboardLink(w.id),
  };
}

/** "Resolved" after a Needs-you episode that was notified: built from what was sent then. */
export function resolvedPayload(sent: NotificationPayload, now: number): NotificationPayload {
  const where = sent.worker?.path ?? sent.run?.name ?? "";
  return {
    ...sent,
    kind: "resolved",
    episode: resolvedKey(sent.episode),
    at: now,
    title: `Resolved: ${where}${sent.reasonText ? ` — ${sent.reasonText}` : ""}`,
    state: null,
    remedy: null,
  };
}

/** What "Send test" and `orchestrator notify test` send. */
export function testPayload(now: number): NotificationPayload {
  return {
    version: 1,
    kind: "test",
    episode: `test:${now}`,
    at: now,
    title: "Test from ChatGPT Orchestrator: notifications reach you",
    run: null,
    worker: null,
    state: null,
    reason: null,
    reasonText: null,
    remedy: null,
    since: null,
    link: dashboardLink(),
  };
}
