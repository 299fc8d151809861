// Rate-limit and usage-cap notices of the fake chatgpt.com: what a test asks for (shape, reset time, whether sends are
// refused while it shows) and the words the page shows, with the reset time written as the real page writes it.

/** A notice a test shows with `fake.showLimit(…)` or `turn.rateLimit(…)` (docs/e2e.md, "The fake chatgpt.com"). */
export interface LimitNotice {
  /**
   * `modal`: the "Too many requests" dialog over the page, with a "Got it" button (the adapter reads RATE_LIMITED);
   * `banner`: a notice above the composer, which stays usable (USAGE_CAP with the default words).
   */
  shape: "modal" | "banner";
  /** When the limit resets, written into the words in this machine's local time (the browser's too), to the minute. */
  resetAt?: Date | number;
  /** How the time is written: "12h" ("3:45 PM", the default) or "24h" ("15:45"). */
  clock?: "12h" | "24h";
  /** The words instead of the default ones; `{time}` stands for the written `resetAt`. */
  text?: string;
  /** While it shows, the server refuses new messages (HTTP 429, nothing stored) and the page shows it again. */
  refuseSends?: boolean;
}

/** What the page renders (in its config, its polls of `/__fake/control`, a turn's stream and a 429's body). */
export interface PageLimit {
  shape: "modal" | "banner";
  text: string;
}

/** The notice as the server holds it. */
export interface ShownLimit {
  readonly page: PageLimit;
  readonly refuseSends: boolean;
  readonly resetAt: number | undefined;
  /** A modal a person dismissed with Got it is not shown again on later page loads (sends stay refused). */
  dismissed: boolean;
}

/** "3:45 PM" or "15:45", in local time. */
export function formatClock(at: Date | number, clock: "12h" | "24h" = "12h"): string {
  const d = new Date(at);
  const mm = String(d.getMinutes()).padStart(2, "0");
  if (clock === "24h") return `${String(d.getHours()).padStart(2, "0")}:${mm}`;
  const h = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12;
  return `${h}:${mm} ${d.getHours() < 12 ? "AM" : "PM"}`;
}

/** The "Too many requests … Please wait a few minutes" modal, which states no time (docs/adapter.md). */
const WAIT_A_FEW_MINUTES =
  "You've been temporarily limited access to conversations because you're sending too many requests. " +
  "Please wait a few minutes and try again.";

export function shownLimit(notice: LimitNotice): ShownLimit {
  const time = notice.resetAt === undefined ? undefined : formatClock(notice.resetAt, notice.clock);
  const fallback =
    time !== undefined
      ? "You've hit your limit. Please try again after {time}."
      : notice.shape === "modal"
        ? WAIT_A_FEW_MINUTES
        : "You've hit your limit. Please try again later.";
  const text = (notice.text ?? fallback).replace("{time}", time ?? "");
  return {
    page: { shape: notice.shape, text },
    refuseSends: notice.refuseSends ?? false,
    resetAt: notice.resetAt === undefined ? undefined : new Date(notice.resetAt).getTime(),
    dismissed: false,
  };
}

/** Seconds until the reset, for the 429 body's `detail.clears_in`; unknown → 60. */
export function clearsIn(limit: ShownLimit, now: number): number {
  return limit.resetAt === undefined ? 60 : Math.max(0, Math.ceil((limit.resetAt - now) / 1000));
}
