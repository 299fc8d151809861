// Quiet hours (docs/operator-guide.md, "Notifications"): a daily span in the backend's local time during which
// decided notifications wait; a start later than the end spans midnight.
import type { NotifySettings } from "../../../shared/notify-settings.ts";

export type QuietHours = NotifySettings["quietHours"];

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** Whether `now` falls in the quiet hours (start inclusive, end exclusive; equal start and end: never). */
export function inQuietHours(now: number, quiet: QuietHours): boolean {
  if (!quiet) return false;
  const d = new Date(now);
  const at = d.getHours() * 60 + d.getMinutes();
  const start = minutes(quiet.start);
  const end = minutes(quiet.end);
  if (start === end) return false;
  return start < end ? at >= start && at < end : at >= start || at < end;
}

/** When the quiet hours that hold at `now` end (local time, so a daylight-saving change is counted right). */
export function quietHoursEnd(now: number, quiet: NonNullable<QuietHours>): number {
  const end = minutes(quiet.end);
  const d = new Date(now);
  d.setHours(Math.floor(end / 60), end % 60, 0, 0);
  if (d.getTime() <= now) d.setDate(d.getDate() + 1);
  return d.getTime();
}
