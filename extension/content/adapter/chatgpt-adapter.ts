// The ChatGPT page adapter: observes chatgpt.com (both DOM generations) and reports coalesced conversation
// states, submits prompts exactly once, and answers reconciliation questions. Pure DOM; no transcript leaves it.
import { parseContinuationBlock } from "../../../shared/continuation-block.ts";
import { parseHandoffBlock } from "../../../shared/handoff-block.ts";
import { observePage } from "./observed-scan.ts";
import { renderedText } from "./page-text.ts";
import type { PageScan } from "./scan-types.ts";
import { selectorTable } from "./selectors.ts";
import { conversationTitle } from "./conversation-title.ts";
import { selfTestOf } from "./self-test.ts";
import { StateMachine, type TurnReading } from "./state-machine.ts";
import { submit as submitOnce } from "./submit.ts";
import { resolveTiming } from "./timing.ts";
import { answerRoot, conversationTextLength, userTurnContains } from "./turn-scan.ts";
import type {
  AdapterOptions,
  ChatGptAdapter,
  PageWindow,
  StateReport,
  SubmitOutcome,
  SubmitRequest,
} from "./types.ts";

/**
 * Attributes whose changes can flip a busy/idle signal (docs/adapter.md, "States") or the visibility rule (hidden,
 * inert and aria-hidden on any ancestor; class and style): a change of one of these, or any childList or text change,
 * schedules a tick; any other attribute only marks the last scan stale.
 */
const TICK_ATTRIBUTES = new Set([
  "disabled",
  "aria-disabled",
  "data-testid",
  "aria-label",
  "aria-busy",
  "data-state",
  "hidden",
  "inert",
  "aria-hidden",
  "data-markdown-animated",
  "class",
  "style",
  "contenteditable",
]);

/** Whether a batch of records holds a change that schedules a tick (see `TICK_ATTRIBUTES`). */
function schedulesTick(records: readonly MutationRecord[]): boolean {
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if (r.type !== "attributes" || TICK_ATTRIBUTES.has(r.attributeName ?? "")) return true;
  }
  return false;
}

/**
 * Blocks compare by content: a finished turn that changes later (a sources row, "Thought for 12s") is parsed
 * again into a new but equal block, which is no transition. The parser's objects are flat, keys in fixed order.
 */
function sameBlock(a: StateReport["block"], b: StateReport["block"]): boolean {
  return a === b || (a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));
}

/** A state no turn runs in: the poll backs off while the page stays in it. */
function settledState(report: StateReport): boolean {
  return report.state === "idle" || report.state === "ready" || report.state === "error";
}

function sameReport(a: StateReport | undefined, b: StateReport): boolean {
  return (
    a !== undefined &&
    a.state === b.state &&
    a.errorCode === b.errorCode &&
    a.resetAt === b.resetAt &&
    a.url === b.url &&
    a.continuationStatus === b.continuationStatus &&
    sameBlock(a.block, b.block) &&
    a.handoffBrief === b.handoffBrief &&
    a.layout === b.layout
  );
}

export function createChatGptAdapter(page: Window, opts: AdapterOptions): ChatGptAdapter {
  const win = page as PageWindow;
  const timing = resolveTiming(opts);
  const table = selectorTable(opts.selectors);
  let machine = new StateMachine(timing);

  let started = false;
  /** Started before: a later start watches the page afresh, like a loaded page (see `start`). */
  let startedBefore = false;
  let lastEmitted: StateReport | undefined;
  let throttleHandle: unknown;
  /** A throttled tick waiting for the next frame (see `scheduleTick`). */
  let frameHandle: unknown;
  /** When the last tick a mutation scheduled ran (the throttle counts from it). */
  let lastScheduledAt = Number.NEGATIVE_INFINITY;
  /** Submit's sleeps waiting now: each ends at its timer or at the page's next mutation, whichever comes first. */
  const sleepers = new Set<() => void>();
  let pollHandle: unknown;
  /** The poll's interval now: `pollMs`, doubled after each poll that finds the page settled (see `poll`). */
  let pollDelay = timing.pollMs;
  let deadlineHandle: unknown;
  /** The moment `deadlineHandle` fires for (a tick that asks for the same one keeps the armed timer). */
  let deadlineAt: number | undefined;
  let inflight: Promise<unknown> = Promise.resolve();
  /** A submission is running (from its first look at the page to its verdict). */
  let submitting = false;

  const emit = (report: StateReport): void => {
    if (!started || sameReport(lastEmitted, report)) return;
    // While our submission runs, the page's idle or ready is no end of a turn: the prompt may be in and its turn about
    // to show (the new chat's URL can change before our user turn is proven). It is reported after the verdict.
    if (submitting && (report.state === "idle" || report.state === "ready")) return;
    lastEmitted = report;
    if (!settledState(report)) pollSoon();
    try {
      opts.onReport(report);
    } catch (err) {
      console.error("chatgpt adapter: onReport threw", err);
    }
  };

  /**
   * The newest answer as the machine reads it when a turn has ended (and again only if that turn changes): its parsed
   * continuation block and handoff block, and the conversation's length. The answer text is read and dropped here.
   */
  const readTurn = (scan: PageScan) => (): TurnReading | undefined => {
    const turn = scan.turns.newestAssistant;
    if (!turn) return undefined;
    const root = answerRoot(turn, table) ?? turn;
    const text = renderedText(root, table.visuallyHidden);
    const handoffBrief = parseHandoffBlock(text);
    return {
      block: parseContinuationBlock(text),
      ...(handoffBrief !== undefined ? { handoffBrief } : {}),
      visibleChars: conversationTextLength(scan.turns),
    };
  };

  /** What submit reads when the machine has no settled state yet: the page right now, unsettled (never reported). */
  const rawReport = (scan: PageScan): StateReport => {
    const state = machine.isClosed
      ? "closed"
      : scan.error
        ? "error"
        : machine.busyNow(scan, opts.now())
          ? "generating"
          : "ready";
    return {
      state,
      ...(state === "error" && scan.error ? { errorCode: scan.error.code } : {}),
      url: machine.url ?? scan.url.url,
      layout: machine.currentLayout,
    };
  };

  // The page, read through one observer of the whole document (observed-scan.ts): once started, a childList or text
  // change or a `TICK_ATTRIBUTES` change schedules a tick, and any mutation ends submit's sleeps.
  const observed = observePage(
    win,
    table,
    timing.pollMs,
    () => opts.now(),
    (records) => {
      if (schedulesTick(records)) scheduleTick();
      if (sleepers.size > 0) for (const wake of [...sleepers]) wake();
    },
  );

  /** `settled`: the machine's state (undefined before the first one); `report`: that, or the page right now. */
  const tick = (): { scan: PageScan; report: StateReport; settled: StateReport | undefined } => {
    const scan = observed.scan();
    const result = machine.update(scan, opts.now(), readTurn(scan), observed.lastMutationAt);
    if (result.report) emit(result.report);
    if (started) armDeadline(result.nextDeadline);
    return { scan, report: result.report ?? rawReport(scan), settled: result.report };
  };

  const safeTick = (): void => {
    try {
      tick();
    } catch (err) {
      console.error("chatgpt adapter: tick failed", err);
    }
  };

  function armDeadline(at: number | undefined): void {
    // Most ticks ask for the deadline already armed: re-arming it costs two timer calls per tick for nothing.
    if (at === deadlineAt && (at === undefined || deadlineHandle !== undefined)) return;
    if (deadlineHandle !== undefined) opts.clearTimeout(deadlineHandle);
    deadlineHandle = undefined;
    deadlineAt = at;
    if (at === undefined) return;
    deadlineHandle = opts.setTimeout(
      () => {
        deadlineHandle = undefined;
        deadlineAt = undefined;
        safeTick();
      },
      Math.max(0, at - opts.now()),
    );
  }

  const hidden = (): boolean => win.document.visibilityState !== "visible";

  /**
   * The Navigation API (Chromium) tells of the app's pushState and replaceState, which make no mutation record (a
   * new chat's draft route becoming `/c/<id>`, a project's route): the URL is read at once instead of at the next poll.
   * Where there is none (Firefox ESR), the poll finds it.
   */
  const navigation = (win as { navigation?: EventTarget }).navigation;

  /** A tick that a mutation (or navigation, or the tab's visibility) asked for. */
  const scheduledTick = (): void => {
    lastScheduledAt = opts.now();
    safeTick();
  };

  /** Drops a throttled tick that has not run yet (a frame that a hidden tab will never render included). */
  const cancelScheduled = (): void => {
    if (throttleHandle !== undefined) opts.clearTimeout(throttleHandle);
    if (frameHandle !== undefined) opts.cancelAnimationFrame?.(frameHandle);
    throttleHandle = frameHandle = undefined;
  };

  /**
   * Mutations only schedule a tick. In a hidden tab it runs at once, in the observer's callback: page timers there wake
   * at most once a second (once a minute after a few minutes) and frames never come, while observer callbacks run
   * promptly, so nothing waits for a timer (scans of a streaming answer reuse everything outside it, which keeps a
   * tick per batch cheap). In a visible tab at most one tick runs per throttle interval however much the DOM churns;
   * the first change after a quiet interval is not held back (the page's end of a turn is usually one). The tick then
   * waits for the next frame and runs just after it: a scan reads style (visibility), and right after the page's own
   * rendering update there is none left to force, where in the middle of the page's work the scan would do that work
   * synchronously (about a millisecond on a long conversation). On a settled page the frame is asked for in the
   * observer's callback when no throttle holds the tick back: the page's change has already asked for that frame, so
   * an idle page's occasional change (a live region rewritten) costs no frame of its own. While a turn may run, a 0 ms
   * timer comes first, as the page renders frames anyway: the page's follow-up changes of the same moment (the
   * announcement after the action bar at a turn's end) land in the same scan.
   */
  const scheduleTick = (): void => {
    if (!started) return;
    if (hidden()) {
      cancelScheduled();
      scheduledTick();
      return;
    }
    if (throttleHandle !== undefined || frameHandle !== undefined) return;
    const wait = Math.max(0, lastScheduledAt + timing.throttleMs - opts.now());
    if (wait === 0 && opts.requestAnimationFrame && settledNow()) {
      tickAfterFrame();
      return;
    }
    throttleHandle = opts.setTimeout(() => {
      throttleHandle = undefined;
      tickAfterFrame();
    }, wait);
  };

  /** The page is settled and no submission of ours runs (the poll backs off; a tick's frame is asked for at once). */
  const settledNow = (): boolean => !submitting && lastEmitted !== undefined && settledState(lastEmitted);

  /** The tick, just after the next frame (at once where no frame will come). */
  const tickAfterFrame = (): void => {
    if (!opts.requestAnimationFrame || hidden()) {
      scheduledTick();
      return;
    }
    frameHandle = opts.requestAnimationFrame(() => {
      frameHandle = undefined;
      throttleHandle = opts.setTimeout(() => {
        throttleHandle = undefined;
        scheduledTick();
      }, 0);
    });
  };

  /** A tab that goes hidden renders no frame for a tick that waits for one: it runs now instead. */
  const onVisibility = (): void => {
    if (!started) return;
    if (hidden()) {
      cancelScheduled();
      scheduledTick();
    } else scheduleTick();
  };

  /** Submit's wait: `ms`, or less if the page changes first (then submit looks again, at event speed when hidden). */
  const sleep = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const wake = (): void => {
        sleepers.delete(wake);
        opts.clearTimeout(handle);
        resolve();
      };
      const handle = opts.setTimeout(wake, ms);
      sleepers.add(wake);
    });

  /**
   * The slow poll, for what makes no mutation record. While a turn may run it looks every `pollMs`; once the page has
   * settled (idle, ready or an error, and no submission waiting) each poll that finds it so doubles the interval, up
   * to `idlePollMaxMs`: an idle conversation is watched by its mutations, and a report of anything else (generating,
   * our submission) brings the poll back to `pollMs` at once (`pollSoon`).
   */
  const poll = (): void => {
    pollHandle = opts.setTimeout(() => {
      pollHandle = undefined;
      safeTick();
      pollDelay = settledNow() ? Math.min(pollDelay * 2, timing.idlePollMaxMs) : timing.pollMs;
      if (started) poll();
    }, pollDelay);
  };

  /** The poll at `pollMs` again, from now, if it had backed off. */
  const pollSoon = (): void => {
    if (pollDelay === timing.pollMs) return;
    pollDelay = timing.pollMs;
    if (pollHandle === undefined) return;
    opts.clearTimeout(pollHandle);
    poll();
  };

  const onPageHide = (): void => {
    emit(machine.markClosed());
  };

  const hasMarker = (marker: string): boolean => userTurnContains(win.document, table, marker);

  return {
    start() {
      if (started) return;
      // Watched again after a stop: what was seen before the pause proves nothing now (a turn may have ended
      // unseen), so the page is read afresh, as on load, and its state is reported again.
      if (startedBefore) machine = new StateMachine(timing);
      startedBefore = started = true;
      lastEmitted = undefined;
      pollDelay = timing.pollMs;
      win.addEventListener("pagehide", onPageHide);
      win.addEventListener("popstate", scheduleTick);
      navigation?.addEventListener("currententrychange", scheduleTick);
      win.document.addEventListener("visibilitychange", onVisibility);
      poll();
      safeTick();
    },

    stop() {
      if (!started) return;
      started = false;
      win.removeEventListener("pagehide", onPageHide);
      win.removeEventListener("popstate", scheduleTick);
      navigation?.removeEventListener("currententrychange", scheduleTick);
      win.document.removeEventListener("visibilitychange", onVisibility);
      cancelScheduled();
      for (const handle of [pollHandle, deadlineHandle]) {
        if (handle !== undefined) opts.clearTimeout(handle);
      }
      pollHandle = deadlineHandle = deadlineAt = undefined;
      observed.detach();
    },

    current() {
      return tick().settled;
    },

    submit(req: SubmitRequest): Promise<SubmitOutcome> {
      // One submission at a time: a second waits for the first (and then finds its marker if it landed).
      const run = inflight.then(async () => {
        submitting = true;
        try {
          return await submitOnce(
            {
              win,
              table,
              timing,
              machine,
              now: () => opts.now(),
              sleep,
              tick,
              hasMarker,
              noteSubmitted: (scan, answered, wentPast) =>
                emit(machine.noteSubmitted(scan, opts.now(), answered, wentPast)),
            },
            req,
          );
        } finally {
          submitting = false;
          if (started) safeTick(); // what was held back meanwhile
        }
      });
      inflight = run.catch(() => undefined);
      return run;
    },

    hasMarker,

    conversationTitle: () => conversationTitle(win.document, win.location.href),

    selfTest() {
      const { scan } = tick();
      const layout = machine.currentLayout !== "unknown" ? machine.currentLayout : scan.layout;
      return selfTestOf(win.document, table, scan, layout);
    },
  };
}
