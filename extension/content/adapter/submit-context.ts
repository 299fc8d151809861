// What a submission works with (the adapter supplies it: the page, the machine, ticks and sleeps), and the helpers
// every step of it shares: a failure result, and removing our own text from the composer.
import { clearEditor } from "./composer.ts";
import { editorText } from "./page-text.ts";
import type { LimitNotice, PageScan } from "./scan-types.ts";
import type { SelectorTable } from "./selectors.ts";
import type { StateMachine } from "./state-machine.ts";
import type { PageWindow, StateReport, SubmitErrorCode, SubmitOutcome, Timing } from "./types.ts";

export interface SubmitContext {
  win: PageWindow;
  table: SelectorTable;
  timing: Timing;
  machine: StateMachine;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Scans the page and updates the state machine (reporting a transition if the adapter is started). */
  tick(): { scan: PageScan; report: StateReport };
  hasMarker(marker: string): boolean;
  /**
   * Our submission was proven (`answered`: its answer turn is already there): the machine reports generating.
   * `wentPast`: the limit notice shown when Send was clicked (it no longer counts while it stays).
   */
  noteSubmitted(scan: PageScan, answered: boolean, wentPast: LimitNotice | undefined): void;
}

export type Failure = Extract<SubmitOutcome, { outcome: "failed" }>;

export function failed(
  errorCode: SubmitErrorCode,
  detail: string,
  phase: Failure["phase"] = "before-submit",
): Failure {
  return { outcome: "failed", errorCode, detail, phase };
}

/** Clears the editor only if what it holds is ours (a person may have started typing meanwhile). */
export function clearOurs(ctx: SubmitContext, editor: Element, marker: string): void {
  if (editorText(editor).includes(marker)) clearEditor(editor, ctx.win, ctx.table);
}
