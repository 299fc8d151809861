// Turns page snapshots into the reported conversation state: ready/generating/idle/error/closed, debounced so
// a late Stop, a thinking pause or a flashing action bar is not taken for idle (research §3), time injected.
import { LIMIT_CODES } from "./errors.ts";
import { LimitTracker } from "./limit-notice.ts";
import type { ErrorFinding, LimitNotice, PageScan } from "./page-scan.ts";
import type { ConversationState, Layout, StateReport, Timing } from "./types.ts";

type Observed = NonNullable<StateReport["block"]>;

export interface MachineResult {
  /** Undefined until the first state is settled (the initial page needs the same debounce). */
  report?: StateReport;
  /** Earliest future time at which the decision can change without any DOM change. */
  nextDeadline?: number;
}

export class StateMachine {
  state: ConversationState | undefined;
  errorCode: string | undefined;
  /** The editor element and since when it has been the same one (hydration remounts it). */
  composerEl: Element | null = null;
  composerSince = 0;
  /** The error of the last scan as counted here (a limit notice our submission went past is left out). */
  error: ErrorFinding | undefined;

  private generationSeen = false;
  private thinkingTurn = false;
  private lastBusyAt = Number.NEGATIVE_INFINITY;
  private lastContentChangeAt = Number.NEGATIVE_INFINITY;
  private contentSig: string | undefined;
  private rawError: { code: string; since: number } | undefined;
  private errorAbsentSince: number | undefined;
  private composerProblemSince: number | undefined;
  private awaitingAnswer: { since: number; sig: string } | undefined;
  private closed = false;
  private stableUrl: string | undefined;
  private layout: Layout = "unknown";
  private status: { sig: string; value: Observed | undefined } | undefined;
  private lastReport: StateReport | undefined;
  private readonly limits = new LimitTracker();

  constructor(private readonly timing: Timing) {}

  /** Busy right now, including an animated answer whose content is still changing. */
  busyNow(scan: PageScan, now: number): boolean {
    return (
      scan.busy !== undefined ||
      (scan.animated && now - this.lastContentChangeAt < this.timing.animatedStaleMs)
    );
  }

  update(scan: PageScan, now: number, statusOf: () => Observed | undefined): MachineResult {
    const t = this.timing;
    if (scan.layout !== "unknown") this.layout = scan.layout; // sticky: a remount must not flap the layout
    if (scan.url.kind !== "transient") this.stableUrl = scan.url.url;
    this.stableUrl ??= `${new URL(scan.url.url).origin}/`; // transient before any stable URL: the new-chat page
    if (scan.composer.editor !== this.composerEl) {
      this.composerEl = scan.composer.editor;
      this.composerSince = now;
    }
    if (scan.contentSig !== this.contentSig) {
      this.contentSig = scan.contentSig;
      this.lastContentChangeAt = now;
    }
    if (this.closed) return { report: this.report("closed") };

    const busy = this.busyNow(scan, now);
    if (busy) {
      this.lastBusyAt = now;
      this.awaitingAnswer = undefined;
    }
    if (
      this.awaitingAnswer &&
      scan.turns.newestRole === "assistant" &&
      scan.contentSig !== this.awaitingAnswer.sig
    ) {
      this.awaitingAnswer = undefined; // the answer turn of our submission exists
    }

    // Raw error: page/turn findings at once; a missing composer only after the hydration/navigation grace.
    this.error = this.limits.observe(scan, now);
    let code: string | undefined = this.error?.code;
    if (!code && scan.composer.problem && !scan.dialogOpen) {
      this.composerProblemSince ??= now;
      if (now - this.composerProblemSince >= t.hostUiGraceMs) code = "HOST_UI_CHANGED";
    } else if (!scan.composer.problem) {
      this.composerProblemSince = undefined;
    }
    if (code) {
      if (this.rawError?.code !== code) this.rawError = { code, since: now };
      this.errorAbsentSince = undefined;
    } else {
      this.rawError = undefined;
      if (this.state === "error") this.errorAbsentSince ??= now;
    }
    const errorConfirmed =
      this.rawError !== undefined &&
      (this.rawError.code === "HOST_UI_CHANGED" || now - this.rawError.since >= t.errorConfirmMs);

    let next = this.state;
    let nextError = this.errorCode;
    // An error showing but not yet confirmed (it may be a flash), or one that only just vanished: the whole
    // report is held as it was, so a flash causes no report at all.
    const hold =
      !errorConfirmed &&
      (this.rawError !== undefined ||
        (this.state === "error" && now - (this.errorAbsentSince ?? now) < t.errorConfirmMs));
    if (hold) {
      const deadline = this.nextDeadline(now);
      return {
        ...(this.lastReport ? { report: this.lastReport } : {}),
        ...(deadline !== undefined ? { nextDeadline: deadline } : {}),
      };
    }
    if (errorConfirmed) {
      next = "error";
      nextError = this.rawError!.code;
      // A limit notice after our prompt (not one it went past: those no longer count) means no answer is coming: when
      // the notice goes, the page is idle, not generating.
      if (LIMIT_CODES.has(nextError)) this.awaitingAnswer = undefined;
    } else if (busy) {
      if (this.state !== "generating") this.thinkingTurn = false;
      next = "generating";
      this.generationSeen = true;
    } else if (this.state === "generating") {
      if (this.turnEnded(scan, now)) {
        next = "idle";
        this.thinkingTurn = false;
        this.awaitingAnswer = undefined;
      }
    } else if (this.state === "error") {
      // Gone after our submission went past it (the card of the turn before, a notice that no longer applies): the
      // answer is still on its way, so it is not idle yet.
      next = this.awaitingAnswer ? "generating" : this.generationSeen ? "idle" : "ready";
    } else if (this.state === undefined) {
      // The first state needs the same quiet period: a page can load mid-turn with a late Stop.
      const quiet = now - Math.max(this.lastBusyAt, this.lastContentChangeAt) >= t.idleDebounceMs;
      if (quiet && !scan.composer.problem) next = "ready";
    }
    if (busy && scan.thinking) this.thinkingTurn = true;
    if (next !== "error") {
      nextError = undefined;
      this.errorAbsentSince = undefined;
    }
    this.state = next;
    this.errorCode = nextError;

    const result: MachineResult = {};
    if (next !== undefined) {
      let status: Observed | undefined;
      if (next === "idle" || next === "ready") {
        // Read only from an assistant turn: a just-sent user turn (before Stop shows) keeps the last status.
        if (scan.turns.newestAssistant && this.status?.sig !== scan.contentSig) {
          this.status = { sig: scan.contentSig, value: statusOf() };
        }
        status = this.status?.value;
      } else if (next === "generating") {
        this.status = undefined; // a new answer is on its way; the old block no longer describes it
      }
      result.report = this.report(next, nextError, status);
      this.lastReport = result.report;
    }
    const deadline = this.nextDeadline(now);
    if (deadline !== undefined) result.nextDeadline = deadline;
    return result;
  }

  /**
   * Our submission was proven: the turn is in progress even before Stop shows (it can take 2 s). `wentPast`: the limit
   * notice shown when we clicked, which the page took our prompt past; it no longer counts while it stays.
   */
  noteSubmitted(scan: PageScan, now: number, answered = false, wentPast?: LimitNotice): StateReport {
    this.limits.wentPast(wentPast);
    this.error = this.limits.observe(scan, now);
    this.state = "generating";
    this.errorCode = undefined;
    this.generationSeen = true;
    this.thinkingTurn = false;
    this.lastBusyAt = now;
    this.rawError = undefined;
    // Normally the answer turn appears later; if it is already there (a short answer streamed before our proof
    // was seen), waiting for it would hold idle for the whole answer-wait fallback.
    this.awaitingAnswer = answered ? undefined : { since: now, sig: scan.contentSig };
    if (scan.url.kind !== "transient") this.stableUrl = scan.url.url;
    this.status = undefined;
    this.lastReport = this.report("generating");
    return this.lastReport;
  }

  markClosed(): StateReport {
    this.closed = true;
    this.state = "closed";
    this.errorCode = undefined;
    this.lastReport = this.report("closed");
    return this.lastReport;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get url(): string | undefined {
    return this.stableUrl;
  }

  get currentLayout(): Layout {
    return this.layout;
  }

  private turnEnded(scan: PageScan, now: number): boolean {
    const t = this.timing;
    const quiet =
      now - this.lastBusyAt >= t.idleDebounceMs && now - this.lastContentChangeAt >= t.idleDebounceMs;
    if (!quiet) return false;
    // The composer is hidden (a modal over it) or gone: Stop cannot be seen, so absence of Stop proves nothing.
    if (scan.composer.problem) return false;
    // Thinking/Pro turns: finalize on positive completion proof (S1), or after a long silence.
    if (this.thinkingTurn && !scan.actionBar && now - this.lastBusyAt < t.thinkingIdleFallbackMs)
      return false;
    // Right after our submission nothing may show for a while: no answer turn yet is not idle.
    if (this.awaitingAnswer && now - this.awaitingAnswer.since < t.answerWaitMs) return false;
    return true;
  }

  private nextDeadline(now: number): number | undefined {
    const t = this.timing;
    const candidates = [
      this.lastBusyAt + t.idleDebounceMs,
      this.lastContentChangeAt + t.idleDebounceMs,
      this.lastBusyAt + t.thinkingIdleFallbackMs,
      this.lastContentChangeAt + t.animatedStaleMs,
      this.rawError ? this.rawError.since + t.errorConfirmMs : Number.NaN,
      this.errorAbsentSince !== undefined ? this.errorAbsentSince + t.errorConfirmMs : Number.NaN,
      this.composerProblemSince !== undefined ? this.composerProblemSince + t.hostUiGraceMs : Number.NaN,
      this.awaitingAnswer ? this.awaitingAnswer.since + t.answerWaitMs : Number.NaN,
    ].filter((d) => Number.isFinite(d) && d > now);
    return candidates.length > 0 ? Math.min(...candidates) : undefined;
  }

  private report(state: ConversationState, errorCode?: string, block?: Observed): StateReport {
    const resetAt = LIMIT_CODES.has(errorCode ?? "") ? this.limits.resetAt(errorCode) : undefined;
    return {
      state,
      ...(errorCode !== undefined ? { errorCode } : {}),
      ...(resetAt !== undefined ? { resetAt } : {}),
      url: this.stableUrl ?? "",
      ...(block !== undefined && !("error" in block) ? { continuationStatus: block.status } : {}),
      ...(block !== undefined ? { block } : {}),
      layout: this.layout,
    };
  }
}
