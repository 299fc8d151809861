// A worker's liveness in one line of operator words (docs/operator-guide.md, "What each worker state means"): the
// host's text plus its details (page error code, workers waited for, tab-slot place) and, when due, the time it is
// due in the browser's local time with a countdown. Pure: the views pass the clock.
import type { Liveness } from "../../shared/liveness.ts";

/** A time of day in the browser's locale and time zone, to the minute ("14:05", or "02:05 PM"). */
export function clockShort(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/**
 * What is left until a deadline: seconds under a minute, minutes and seconds under ten minutes (so a countdown
 * visibly moves), whole minutes under an hour, then hours and minutes.
 */
export function remaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  if (m < 60) return `${Math.round(s / 60)} min`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

/** "in 3 s" close by, "at 14:05 (in 12 min)" further off, "now" once it has passed. */
export function dueWhen(until: number, now: number): string {
  const left = until - now;
  if (left <= 0) return "now";
  if (left < 60_000) return `in ${remaining(left)}`;
  return `at ${clockShort(until)} (in ${remaining(left)})`;
}

/** Whether the line changes with the clock alone (a countdown), so the view ticks while it is shown. */
export function hasCountdown(l: Liveness | null | undefined): boolean {
  return l?.state === "due" && l.until !== undefined;
}

/** Where a queued turn stands: position 1 is next. */
export function slotPlace(position: number): string {
  return position <= 1 ? "next in line" : `${position - 1} ahead`;
}

/** The code the page showed, unless it only repeats the words ("Rate limited (RATE_LIMITED)"). */
function codeSuffix(l: Liveness): string {
  const code = l.detail?.code;
  if (code === undefined || (l.reason === "rate_limited" && code === "RATE_LIMITED")) return "";
  return ` (${code})`;
}

/** The liveness in one line: "Rate limited — resumes at 14:05 (in 12 min)", "Waiting for workers: /root/b", … */
export function livenessLine(l: Liveness, now: number): string {
  const code = codeSuffix(l);
  const d = l.detail;
  if (l.state === "due" && l.until !== undefined) {
    const when = dueWhen(l.until, now);
    if (l.reason === "idle_grace") return `Resuming ${when}`;
    if (l.reason === "rate_limited") return `${l.text}${code} — resumes ${when}`;
    if (l.reason === "submitting")
      return when === "now"
        ? `${l.text} — the browser's answer is due now`
        : `${l.text} — answer due ${when}`;
    return `${l.text}${code} — ${when}`;
  }
  if (l.reason === "waiting_for_workers") {
    const who = d?.workerPaths?.length ? `: ${d.workerPaths.join(", ")}` : "";
    return `${l.text}${who}${d?.condition ? ` (${d.condition})` : ""}`;
  }
  if (l.reason === "waiting_for_dependency") return d?.condition ? `${l.text}: ${d.condition}` : l.text;
  if (l.reason === "tab_slot" && d?.position !== undefined) return `${l.text} (${slotPlace(d.position)})`;
  return `${l.text}${code}`;
}

/** Whether to show the remedy's words: always when held, when due only if a person can do something. */
export function showsRemedyText(l: Liveness): boolean {
  return l.state === "held" || (l.state === "due" && l.remedy.action !== "none");
}
