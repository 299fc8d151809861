// The rate-limit or usage-cap notice on screen, followed from scan to scan: its reset time is read once, when its words
// first show, and a notice a submission of ours went past no longer counts (docs/adapter.md, "Rate limits").
import type { ErrorFinding, LimitNotice, PageScan } from "./scan-types.ts";
import { parseResetTime } from "./reset-time.ts";

export class LimitTracker {
  /** The notice's code and words, and the reset time they state as of when they first showed. */
  private seen: { code: string; text: string; resetAt: number | undefined } | undefined;
  /** The notice (that element with those words) a proven submission of ours went past. */
  private passed: { element: Element; text: string } | undefined;

  /**
   * The scan's error as the state machine counts it, noting the reset time of a notice that just showed: a notice
   * the page took one of our prompts past is left out (the error shown besides it counts instead), until it goes.
   */
  observe(scan: PageScan, now: number): ErrorFinding | undefined {
    const error = scan.error;
    const limit = error?.limit;
    if (!error || !limit) {
      this.seen = undefined;
      this.passed = undefined;
      return error;
    }
    // Read once: "in 20 minutes" counts from when it showed, and "until 3:45 PM" must not become tomorrow's at 3:46.
    if (this.seen?.code !== error.code || this.seen.text !== limit.text) {
      this.seen = { code: error.code, text: limit.text, resetAt: parseResetTime(limit.text, new Date(now)) };
    }
    if (this.passed?.element === limit.element && this.passed.text === limit.text) return scan.behindLimit;
    this.passed = undefined;
    return error;
  }

  /**
   * Our submission was proven, made while `notice` showed (nothing when none did): the page took a prompt past it.
   * The notice as it was before the click, so one the page shows in answer to our prompt still counts.
   */
  wentPast(notice: LimitNotice | undefined): void {
    this.passed = notice ? { element: notice.element, text: notice.text } : undefined;
  }

  /** The reset time the current notice with this code states (epoch ms), when it states one. */
  resetAt(code: string | undefined): number | undefined {
    return code !== undefined && this.seen?.code === code ? this.seen.resetAt : undefined;
  }
}
