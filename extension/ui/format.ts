// Words and numbers for the views: state icons (always beside the word, never colour alone), times and durations.
import type { StateLabel, WorkerView } from "../../shared/operations/views.ts";
import { rolloverEventWords } from "./rollover-words.ts";

/** The collapsed forms of the state words; the icon is decoration, the word carries the meaning. */
export const STATE_ICON: Record<StateLabel, string> = {
  Working: "●",
  Resuming: "↻",
  "Needs you": "!",
  Waiting: "…",
  Paused: "⏸",
  Stalled: "⚠",
  Idle: "○",
  Complete: "✓",
  Failed: "✕",
  Stopped: "■",
};

/** Shown words: a stall pause is "Paused for stall", otherwise the label as the host sends it. */
export function stateWords(w: Pick<WorkerView, "label">): string {
  return w.label === "Stalled" ? "Paused for stall" : w.label;
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function ago(at: number | null, now: number): string {
  return at === null ? "never" : `${duration(now - at)} ago`;
}

export function clock(at: number | null): string {
  if (at === null) return "—";
  return new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/**
 * "Attempt 4 · 2 auto resumes": numbered by the turns actually submitted (`turns`), so a keepalive steer the page
 * refused or a command that never reached ChatGPT does not count as an attempt the person could see.
 */
export function attemptLine(w: Pick<WorkerView, "turns" | "autoResumes">): string {
  const parts: string[] = [];
  if (w.turns > 0) parts.push(`Attempt ${w.turns}`);
  if (w.autoResumes > 0) parts.push(`${w.autoResumes} auto resume${w.autoResumes === 1 ? "" : "s"}`);
  return parts.join(" · ") || "No attempt yet";
}

/** A worker's display name: its own name, else the last path segment. */
export function workerName(w: Pick<WorkerView, "name" | "path">): string {
  return w.name || w.path.split("/").at(-1) || w.path;
}

/** Unfinished and able to take Pause / Continue now (not terminal). */
export function isUnfinished(w: Pick<WorkerView, "status">): boolean {
  return w.status === "active";
}

/** Human-readable event types for the trail (the durable event names, in operator words). */
export function eventWords(type: string): string {
  return type.replace(/[._]/g, " ");
}

/** One event of the timeline: the type in words, or for a move to a new conversation why and with which brief. */
export function eventLine(e: {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}): string {
  return rolloverEventWords(e.type, e.data) ?? eventWords(e.type);
}

/** Counts the popup shows: unfinished workers by what they are doing. */
export function countsOf(workers: readonly Pick<WorkerView, "label">[]): {
  active: number;
  working: number;
  resuming: number;
  needsYou: number;
  stalled: number;
} {
  const count = (label: StateLabel) => workers.filter((w) => w.label === label).length;
  return {
    active: workers.length,
    working: count("Working"),
    resuming: count("Resuming"),
    needsYou: count("Needs you"),
    stalled: count("Stalled"),
  };
}
