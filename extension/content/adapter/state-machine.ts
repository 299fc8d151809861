// Turns page snapshots into the reported conversation state: ready/generating/idle/error/closed. A turn ends only on
// the page's own finished-turn evidence, held for a short settle (docs/adapter.md, "States"), never on silence alone.
import { LIMIT_CODES } from "./errors.ts";
import { LimitTracker } from "./limit-notice.ts";
import type { ErrorFinding, LimitNotice, PageScan } from "./scan-types.ts";
import type { ConversationState, Layout, StateReport, Timing } from "./types.ts";

/**
 * What the adapter reads of the newest assistant answer at a turn's end (chatgpt-adapter.ts, `readTurn`): the parsed
 * continuation block, the handoff block's text if there is one, and the conversation's length. The text is not kept.
 */
export interface TurnReading {
  block: NonNullable<StateReport["block"]>;
  handoffBrief?: string;
  visibleChars?: number;
}

export interface MachineResult {
  /** Undefined until the first state is settled (the initial page needs evidence too). */
  report?: StateReport;
  /** Earliest future time at which the decision can change without any DOM change. */
  nextDeadline?: number;
}

/**
 * The page's own signs that no turn is running (docs/adapter.md, "States"), as one scan shows them: the newest assistant
 * turn's finished action bar, a "Response complete" announced since the turn began, Send enabled with text and no Stop.
 */
interface Evidence {
  actionBar: boolean;
  announced: boolean;
  sendable: boolean;
  /** A new-chat page without any turn (counts for the first state only: nothing there can be running). */
  emptyPage: boolean;
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
  private lastBusyAt = Number.NEGATIVE_INFINITY;
  private lastContentChangeAt = Number.NEGATIVE_INFINITY;
  private contentSig: string | undefined;
  /** Since when the scans have shown finished-turn evidence without a busy signal (unset while they do not). */
  private evidenceSince: number | undefined;
  /** Updates so far; the live status and the turn's start are ordered by it (times can be equal). */
  private seq = 0;
  /** The update that began the current turn (busy after a settled state, or our submission); 0: before start. */
  private turnStartSeq = 0;
  /** The live status regions' announcement as last seen, and the update that saw it change. */
  private liveSig: string | undefined;
  private liveChangedSeq = -1;
  private rawError: { code: string; since: number } | undefined;
  private errorAbsentSince: number | undefined;
  /**
   * The state an error interrupted, to return to when it goes: a turn paused by a tool approval goes on, a limit
   * notice ended the turn (no answer is coming), a page that had not settled yet still needs evidence.
   */
  private beforeError: ConversationState | undefined;
  private composerProblemSince: number | undefined;
  /** After our submission: the newest turn then (its action bar is the turn before ours, no evidence). */
  private awaitingAnswer: { since: number; sig: string; newest: Element | null } | undefined;
  private closed = false;
  private stableUrl: string | undefined;
  /** The conversation of the stable URL (undefined on other pages, such as a new chat). */
  private conversationId: string | undefined;
  private layout: Layout = "unknown";
  /** When the page's evidence for the current idle/ready state appeared (reported as `since`). */
  private endedAt: number | undefined;
  private status: { sig: string; value: TurnReading | undefined } | undefined;
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

  /**
   * `changedAt`: when the page last changed before this scan (the adapter's newest mutation record), so the settle is
   * counted from the change that showed the evidence, not from when a throttled tick got to it; `now` by default.
   */
  update(
    scan: PageScan,
    now: number,
    readTurn: () => TurnReading | undefined,
    changedAt: number = now,
  ): MachineResult {
    const t = this.timing;
    const changed = Math.min(changedAt, now);
    this.seq++;
    if (scan.layout !== "unknown") this.layout = scan.layout; // sticky: a remount must not flap the layout
    if (scan.url.kind !== "transient") {
      // Another conversation (or none) in the same page: it starts over like a loaded page, so the turn that ran in the
      // one left is not taken as ended there, nor the other's finished turn as one seen ending.
      if (this.conversationId !== undefined && scan.url.conversationId !== this.conversationId)
        this.restart();
      this.conversationId = scan.url.conversationId;
      this.stableUrl = scan.url.url;
    }
    this.stableUrl ??= `${new URL(scan.url.url).origin}/`; // transient before any stable URL: the new-chat page
    if (scan.composer.editor !== this.composerEl) {
      this.composerEl = scan.composer.editor;
      this.composerSince = now;
    }
    if (scan.contentSig !== this.contentSig) {
      this.contentSig = scan.contentSig;
      this.lastContentChangeAt = changed;
    }
    // The first sight of the live regions is no change: what they say at load is from an earlier turn.
    if (this.liveSig !== undefined && scan.liveStatus.sig !== this.liveSig) this.liveChangedSeq = this.seq;
    this.liveSig = scan.liveStatus.sig;
    if (this.closed) return { report: this.report("closed") };

    const busy = this.busyNow(scan, now);
    if (busy) {
      this.lastBusyAt = now;
      this.awaitingAnswer = undefined;
    }
    const waiting = this.awaitingAnswer;
    if (waiting && scan.turns.newestRole === "assistant") {
      // The answer turn of our submission exists: a newest turn other than the one when it was proven (synthetic scans
      // without elements compare the content).
      const newest = scan.turns.newest;
      if (newest !== waiting.newest || (newest === null && scan.contentSig !== waiting.sig)) {
        this.awaitingAnswer = undefined;
      }
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

    const evidence = this.evidenceOf(scan, now);
    const shown = evidence.actionBar || evidence.announced || evidence.sendable || evidence.emptyPage;
    if (busy || !shown) this.evidenceSince = undefined;
    else this.evidenceSince ??= changed;

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
      const limit = LIMIT_CODES.has(nextError);
      if (this.state !== "error") {
        // A limit notice after our prompt (not one it went past: those no longer count) means no answer is coming.
        this.beforeError = limit && this.state === "generating" ? "idle" : this.state;
      }
      // …so when the notice goes, the page is idle, not generating.
      if (limit) this.awaitingAnswer = undefined;
    } else if (busy) {
      // A new turn, unless it is the one an error paused going on.
      const paused = this.state === "error" && this.beforeError === "generating";
      if (this.state !== "generating" && !paused) this.turnStartSeq = this.seq;
      next = "generating";
      this.generationSeen = true;
    } else if (this.state === "generating") {
      if (this.turnOver(scan, now, evidence)) next = "idle";
    } else if (this.state === "error") {
      next = this.afterError(scan, now, evidence);
    } else if (this.state === undefined) {
      // The first state needs evidence too: a page loaded mid-turn shows neither Stop nor a finished turn at first.
      if (this.turnOver(scan, now, evidence)) next = "ready";
    }
    if (next === "idle") this.awaitingAnswer = undefined;
    if (next !== "error") {
      nextError = undefined;
      this.errorAbsentSince = undefined;
    }
    if ((next === "idle" || next === "ready") && next !== this.state) {
      // The page's own end of turn: when its evidence appeared (or, for the last resort, when the page went quiet).
      const quietSince = Math.max(this.lastBusyAt, this.lastContentChangeAt);
      this.endedAt = this.evidenceSince ?? (Number.isFinite(quietSince) ? quietSince : now);
    } else if (next !== "idle" && next !== "ready") {
      this.endedAt = undefined;
    }
    this.state = next;
    this.errorCode = nextError;

    const result: MachineResult = {};
    if (next !== undefined) {
      let status: TurnReading | undefined;
      if (next === "idle" || next === "ready") {
        // Read only from an assistant turn: a just-sent user turn (before Stop shows) keeps the last status.
        if (scan.turns.newestAssistant && this.status?.sig !== scan.contentSig) {
          this.status = { sig: scan.contentSig, value: readTurn() };
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
    this.lastBusyAt = now;
    this.turnStartSeq = this.seq; // what the live regions say now is from an earlier turn
    this.evidenceSince = undefined;
    this.rawError = undefined;
    // Normally the answer turn appears later; if it is already there (a short answer streamed before our proof
    // was seen), waiting for it would hold idle for the whole answer-wait fallback.
    this.awaitingAnswer = answered
      ? undefined
      : { since: now, sig: scan.contentSig, newest: scan.turns.newest };
    if (scan.url.kind !== "transient") this.stableUrl = scan.url.url;
    this.status = undefined;
    this.lastReport = this.report("generating");
    return this.lastReport;
  }

  /** No settled state any more: the page now shows another conversation (see `update`). */
  private restart(): void {
    if (this.closed) return;
    this.state = undefined;
    this.errorCode = undefined;
    this.beforeError = undefined;
    this.generationSeen = false;
    this.awaitingAnswer = undefined;
    this.evidenceSince = undefined;
    this.turnStartSeq = this.seq;
    this.status = undefined;
    this.lastReport = undefined;
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

  /** The finished-turn evidence of this scan (`Evidence`), as far as it counts now. */
  private evidenceOf(scan: PageScan, now: number): Evidence {
    // Right after our submission the newest assistant turn (and a composer that takes text) may still be the turn
    // before ours: no evidence until our answer turn shows, or the answer wait runs out.
    const before =
      this.awaitingAnswer !== undefined && now - this.awaitingAnswer.since < this.timing.answerWaitMs;
    return {
      actionBar: scan.actionBar && !before,
      announced: scan.liveStatus.complete && this.liveChangedSeq > this.turnStartSeq,
      sendable: scan.draftSendable && !before,
      emptyPage: this.unsettled && scan.url.kind === "page" && scan.turns.turns.length === 0,
    };
  }

  /** No state settled yet since the adapter started (none, or an error shown before any). */
  private get unsettled(): boolean {
    return this.state === undefined || (this.state === "error" && this.beforeError === undefined);
  }

  /** When the evidence has held, with no busy signal and no change to the newest turn, for the settle. */
  private settledAt(): number | undefined {
    if (this.evidenceSince === undefined) return undefined;
    return Math.max(this.evidenceSince, this.lastBusyAt, this.lastContentChangeAt) + this.timing.settleMs;
  }

  /** Whether no turn runs any more (nothing busy is seen now): settled evidence, or the last resort. */
  private turnOver(scan: PageScan, now: number, evidence: Evidence): boolean {
    // The composer is hidden (a modal over it) or gone: Stop cannot be seen, so nothing proves the turn is over.
    if (scan.composer.problem) return false;
    // The page's two own end-of-turn signals together are no flash: no settle (hidden tabs have no timer to wait with).
    if (evidence.actionBar && evidence.announced) return true;
    const settled = this.settledAt();
    if (settled !== undefined && now >= settled) return true;
    // Last resort for a page whose evidence cannot be read: a long silence (no thinking or tool pause is this long).
    return now - Math.max(this.lastBusyAt, this.lastContentChangeAt) >= this.timing.lastResortIdleMs;
  }

  /** The state once a confirmed error has gone (its absence confirmed too), from the state it interrupted. */
  private afterError(scan: PageScan, now: number, evidence: Evidence): ConversationState | undefined {
    // Gone after our submission went past it (the card of the turn before, a notice that no longer applies): the
    // answer is still on its way.
    if (this.awaitingAnswer) return "generating";
    const over = this.turnOver(scan, now, evidence);
    const before = this.beforeError;
    // A turn paused by the error (a tool approval a person answered) goes on unless it visibly ended; a page that had
    // not settled before the error still needs evidence (no report until then).
    if (before === "generating") return over ? "idle" : "generating";
    if (before === undefined) return over ? (this.generationSeen ? "idle" : "ready") : undefined;
    return before;
  }

  private nextDeadline(now: number): number | undefined {
    const t = this.timing;
    const settling = this.state !== "ready" && this.state !== "idle";
    const quietSince = Math.max(this.lastBusyAt, this.lastContentChangeAt);
    const candidates = [
      settling ? (this.settledAt() ?? Number.NaN) : Number.NaN,
      settling ? quietSince + t.lastResortIdleMs : Number.NaN,
      this.lastContentChangeAt + t.animatedStaleMs,
      this.rawError ? this.rawError.since + t.errorConfirmMs : Number.NaN,
      this.errorAbsentSince !== undefined ? this.errorAbsentSince + t.errorConfirmMs : Number.NaN,
      this.composerProblemSince !== undefined ? this.composerProblemSince + t.hostUiGraceMs : Number.NaN,
      this.awaitingAnswer ? this.awaitingAnswer.since + t.answerWaitMs : Number.NaN,
    ].filter((d) => Number.isFinite(d) && d > now);
    return candidates.length > 0 ? Math.min(...candidates) : undefined;
  }

  private report(state: ConversationState, errorCode?: string, reading?: TurnReading): StateReport {
    const block = reading?.block;
    const resetAt = LIMIT_CODES.has(errorCode ?? "") ? this.limits.resetAt(errorCode) : undefined;
    return {
      state,
      ...(errorCode !== undefined ? { errorCode } : {}),
      ...(resetAt !== undefined ? { resetAt } : {}),
      url: this.stableUrl ?? "",
      // The host counts its idle grace from the page's end of turn, not from when this report reaches it.
      ...((state === "idle" || state === "ready") && this.endedAt !== undefined
        ? { since: Math.floor(this.endedAt) }
        : {}),
      ...(block !== undefined && !("error" in block) ? { continuationStatus: block.status } : {}),
      ...(block !== undefined ? { block } : {}),
      ...(reading?.handoffBrief !== undefined ? { handoffBrief: reading.handoffBrief } : {}),
      ...(reading?.visibleChars !== undefined ? { visibleChars: reading.visibleChars } : {}),
      layout: this.layout,
    };
  }
}
