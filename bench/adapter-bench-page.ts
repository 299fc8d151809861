// Browser side of bench:adapter, bundled with the real adapter and run inside the fake chatgpt.com page: it starts
// the unmodified adapter with its scheduler and MutationObserver wrapped for timing, and submits each turn.
import { createChatGptAdapter } from "../extension/content/adapter/index.ts";
import type { ConversationState, StateReport } from "../extension/content/adapter/index.ts";

export interface BenchConfig {
  settleMs: number;
  submitPollMs: number;
}

export interface BenchReport {
  state: ConversationState;
  url: string;
  errorCode?: string;
  continuationStatus?: string;
  /** Turns submitted when the report came (0 = before the first). */
  turn: number;
}

export interface BenchResults {
  /** Each adapter MutationObserver callback (the per-batch handler itself), ms. */
  observerMs: number[];
  /** Each tick scheduled by a MutationObserver callback (the scan + state update the batch causes), ms. */
  mutationTickMs: number[];
  /** The turn in progress when each mutation tick ran (to show how cost grows with the thread). */
  mutationTickTurn: number[];
  /** Every other adapter timer callback: polls, settle deadlines, submit's own waits, ms. */
  otherTimerMs: number[];
  reports: BenchReport[];
  domElements: number;
  crossOriginIsolated: boolean;
}

export interface PageBench {
  /** Waits for the settled state (ready/idle) after the last submission, then submits `text` once. */
  turn(text: string, marker: string): Promise<string>;
  /** Waits until the adapter reports ready/idle with no submission pending. */
  settled(timeoutMs: number): Promise<void>;
  results(): BenchResults;
  /**
   * `hasMarker` for a marker that is nowhere in the page, `times` times: what submit pays twice per submission (the
   * whole page is searched before the click), in ms per call.
   */
  markerSearchMs(times: number): number[];
  stop(): void;
}

/**
 * How the cost is measured, without any hook in the adapter: the adapter gets its timers and the page's
 * MutationObserver from outside (the scheduler is injected, the observer is built from `window`), so both are
 * wrapped here with performance.now() around the adapter's own callbacks. A timer or frame asked for while one of
 * the adapter's observer callbacks runs starts the tick of that mutation batch: a timer (the throttle held it back)
 * only asks for the next frame; the frame's callback sets a 0 ms timer for the tick itself. The chain's callbacks
 * are summed: their duration is the work the batch costs (a fresh page scan plus the state machine). Anything else the
 * chain schedules (the tick arming a settle deadline) is not the batch's. Polls and deadlines are counted apart.
 */
export function startBench(config: BenchConfig): PageBench {
  const observerMs: number[] = [];
  const mutationTickMs: number[] = [];
  const mutationTickTurn: number[] = [];
  const otherTimerMs: number[] = [];
  const reports: BenchReport[] = [];
  const waiters = new Set<() => void>();
  let inObserver = false;
  /** The batch chain whose callback is running, and which step of it (see above); undefined outside chains. */
  interface Chain {
    ms: number;
    turn: number;
  }
  let running: { chain: Chain; step: "throttle" | "frame" | "tick"; continued: boolean } | undefined;
  /** Runs one callback of a chain; the chain's figure is recorded when a step schedules no next one. */
  const runStep = (chain: Chain, step: "throttle" | "frame" | "tick", fn: () => void) => {
    const outer = running;
    running = { chain, step, continued: false };
    const t0 = performance.now();
    try {
      fn();
    } finally {
      chain.ms += performance.now() - t0;
      const continued = running.continued;
      running = outer;
      if (!continued) {
        mutationTickMs.push(chain.ms);
        mutationTickTurn.push(chain.turn);
      }
    }
  };
  let turns = 0;
  let pending = false;

  const Native = window.MutationObserver;
  class TimedObserver extends Native {
    constructor(callback: MutationCallback) {
      super((records, observer) => {
        const t0 = performance.now();
        inObserver = true;
        try {
          callback(records, observer);
        } finally {
          inObserver = false;
          observerMs.push(performance.now() - t0);
        }
      });
    }
  }

  const adapter = createChatGptAdapter(window, {
    now: () => Date.now(),
    setTimeout: (fn, ms) => {
      if (inObserver) {
        const chain: Chain = { ms: 0, turn: turns };
        return window.setTimeout(() => runStep(chain, "throttle", fn), ms);
      }
      if (running?.step === "frame") {
        running.continued = true;
        const chain = running.chain;
        return window.setTimeout(() => runStep(chain, "tick", fn), ms);
      }
      return window.setTimeout(() => {
        const t0 = performance.now();
        try {
          fn();
        } finally {
          otherTimerMs.push(performance.now() - t0);
        }
      }, ms);
    },
    clearTimeout: (handle) => window.clearTimeout(handle as number),
    requestAnimationFrame: (fn) => {
      let chain: Chain;
      // Asked for in the observer's callback (no throttle wait), or by the throttle's timer.
      if (inObserver) chain = { ms: 0, turn: turns };
      else if (running?.step === "throttle") {
        running.continued = true;
        chain = running.chain;
      } else throw new Error("bench: the adapter asked for a frame outside a mutation tick");
      return window.requestAnimationFrame(() => runStep(chain, "frame", fn));
    },
    cancelAnimationFrame: (handle) => window.cancelAnimationFrame(handle as number),
    onReport: (report: StateReport) => {
      reports.push({
        state: report.state,
        url: report.url,
        ...(report.errorCode !== undefined ? { errorCode: report.errorCode } : {}),
        ...(report.continuationStatus !== undefined ? { continuationStatus: report.continuationStatus } : {}),
        turn: turns,
      });
      for (const wake of [...waiters]) wake();
    },
    timing: { settleMs: config.settleMs, submitPollMs: config.submitPollMs },
  });
  // The adapter builds its one observer synchronously in start() (on its first scan).
  window.MutationObserver = TimedObserver;
  try {
    adapter.start();
  } finally {
    window.MutationObserver = Native;
  }

  const isSettled = () => {
    const last = reports[reports.length - 1];
    return !pending && (last?.state === "ready" || last?.state === "idle");
  };

  /** Resolves on the report that settles the turn; a deadline, not a sleep, bounds the wait. */
  const settled = (timeoutMs: number): Promise<void> =>
    new Promise((resolve, reject) => {
      if (isSettled()) {
        resolve();
        return;
      }
      const timer = window.setTimeout(() => {
        waiters.delete(check);
        const last = reports[reports.length - 1];
        reject(new Error(`no ready/idle report within ${timeoutMs} ms (last: ${JSON.stringify(last)})`));
      }, timeoutMs);
      const check = () => {
        if (!isSettled()) return;
        waiters.delete(check);
        window.clearTimeout(timer);
        resolve();
      };
      waiters.add(check);
    });

  return {
    async turn(text, marker) {
      await settled(20_000);
      turns++;
      pending = true;
      try {
        const outcome = await adapter.submit({ text, marker, mode: "send" });
        if (outcome.outcome !== "submitted") {
          throw new Error(`turn ${turns}: ${outcome.errorCode} (${outcome.phase}): ${outcome.detail}`);
        }
        return outcome.url;
      } finally {
        pending = false;
      }
    },
    settled,
    results: () => ({
      observerMs,
      mutationTickMs,
      mutationTickTurn,
      otherTimerMs,
      reports,
      domElements: document.getElementsByTagName("*").length,
      crossOriginIsolated: window.crossOriginIsolated,
    }),
    markerSearchMs: (times) =>
      Array.from({ length: times }, (_, i) => {
        const t0 = performance.now();
        if (adapter.hasMarker(`orc-absent${i}`)) throw new Error("bench: an absent marker was found");
        return performance.now() - t0;
      }),
    stop: () => adapter.stop(),
  };
}
