// The tabs generating now, counted for the health next to the limit (docs/extension.md): a worker counts from the
// start of its submission until its page reports it idle (or the hold runs out), and so does a generation the person
// started. Only counted here: the host keeps the limit. In memory only; no table.
import type { StateReport } from "../lib/content-protocol.ts";
import type { Logger } from "../lib/logger.ts";
import type { Timers } from "./native-connection.ts";
import { GeneratingTabs } from "./queue.ts";

export interface GeneratingSlotsDeps {
  readonly timers: Timers;
  readonly log: Logger;
  /** A tab stops counting as generating at the latest after this long without an idle report. */
  readonly holdMs: number;
}

export class GeneratingSlots {
  private readonly tabs = new GeneratingTabs();
  /** Workers with a submission into their tab under way (a report racing it says nothing about the new turn). */
  private readonly submitting = new Set<string>();
  private readonly observedGenerating = new Set<string>();
  private readonly holdTimers = new Map<string, unknown>();

  constructor(private readonly deps: GeneratingSlotsDeps) {}

  get size(): number {
    return this.tabs.size;
  }

  /** A command for the worker is about to open or reach its tab: counted from here. */
  occupy(workerId: string): void {
    this.tabs.occupy(workerId);
  }

  /** A submission into the worker's tab has started (a reload now would cut it). */
  submissionStarted(workerId: string): void {
    this.submitting.add(workerId);
  }

  isSubmitting(workerId: string): boolean {
    return this.submitting.has(workerId);
  }

  /**
   * The worker's command ended. A counted one (not a steer) keeps its slot for the hold time once submitted, until
   * the page reports idle; one that submitted nothing gives it back unless the page itself reports generating.
   */
  commandEnded(workerId: string, counted: boolean, submitted: boolean): void {
    this.submitting.delete(workerId);
    if (!counted) return;
    if (submitted) this.hold(workerId);
    else if (!this.observedGenerating.has(workerId)) this.release(workerId);
  }

  /** The worker's page reported `state` (a `closed` page is no report: it is never passed here). */
  reported(workerId: string, state: StateReport["state"]): void {
    if (state === "generating") {
      this.observedGenerating.add(workerId);
      this.tabs.occupy(workerId);
    } else {
      this.observedGenerating.delete(workerId);
      // A report racing our own submission says nothing about the turn we are starting: keep the slot.
      if (!this.submitting.has(workerId)) this.release(workerId);
    }
  }

  /** The worker's tab went away: it no longer counts as generating here. */
  tabGone(workerId: string): void {
    this.observedGenerating.delete(workerId);
    if (!this.submitting.has(workerId)) this.release(workerId);
  }

  stop(): void {
    for (const timer of this.holdTimers.values()) this.deps.timers.clearTimeout(timer);
    this.holdTimers.clear();
  }

  private hold(workerId: string): void {
    const old = this.holdTimers.get(workerId);
    if (old !== undefined) this.deps.timers.clearTimeout(old);
    this.holdTimers.set(
      workerId,
      this.deps.timers.setTimeout(() => {
        this.holdTimers.delete(workerId);
        this.deps.log.warn(
          `${workerId}: no idle report within the hold time; no longer counted as generating`,
        );
        this.observedGenerating.delete(workerId);
        this.tabs.release(workerId);
      }, this.deps.holdMs),
    );
  }

  private release(workerId: string): void {
    const timer = this.holdTimers.get(workerId);
    if (timer !== undefined) this.deps.timers.clearTimeout(timer);
    this.holdTimers.delete(workerId);
    this.tabs.release(workerId);
  }
}
