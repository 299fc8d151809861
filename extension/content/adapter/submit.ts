// Submitting a prompt exactly once (research §4, spec 12.4): preconditions, insert, read back, ONE click,
// proof of acceptance. Anything uncertain after the click is AMBIGUOUS_SUBMISSION; nothing is ever resent.
import { guardedClick, refusalReason } from "./click-guard.ts";
import { clearEditor, focusEditor, insertMethods } from "./composer.ts";
import type { StateMachine } from "./state-machine.ts";
import { LIMIT_CODES } from "./errors.ts";
import { editorText, normalizeText } from "./page-text.ts";
import { isDisabled, labelOf } from "./dom.ts";
import {
  answerFollows,
  recentUserTurnContains,
  sendReady,
  type ButtonKind,
  type ErrorFinding,
  type LimitNotice,
  type PageScan,
} from "./page-scan.ts";
import type { SelectorTable } from "./selectors.ts";
import type {
  PageWindow,
  StateReport,
  SubmitErrorCode,
  SubmitOutcome,
  SubmitRequest,
  Timing,
} from "./types.ts";

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

type Failure = Extract<SubmitOutcome, { outcome: "failed" }>;

function failed(
  errorCode: SubmitErrorCode,
  detail: string,
  phase: Failure["phase"] = "before-submit",
): Failure {
  return { outcome: "failed", errorCode, detail, phase };
}

/**
 * Page conditions that refuse a submission at once, before anything is typed: a person or the product must act first,
 * or there is no usable composer. A limit notice refuses only as a modal dialog (`refusalOf`).
 */
const PAGE_REFUSALS: Readonly<Record<string, SubmitErrorCode>> = {
  NOT_SIGNED_IN: "NOT_SIGNED_IN",
  HUMAN_VERIFICATION: "NOT_SIGNED_IN",
  CONVERSATION_TOO_LONG: "CONVERSATION_TOO_LONG",
  HOST_UI_CHANGED: "HOST_UI_CHANGED",
};

/**
 * Errors a submission may go into while the composer is there and usable (docs/adapter.md, "Submission"): the newest
 * turn's failure, which a fresh prompt answers (docs/continuation-core.md, or an operator's Continue now), and a limit notice beside
 * the composer (its reset time is the host's to wait for). Retry is never clicked for any of them.
 */
const SENDABLE_ERRORS: ReadonlySet<string> = new Set([
  "MESSAGE_DELIVERY_TIMEOUT",
  "RESPONSE_FAILED",
  "THINKING_FAILED",
  ...LIMIT_CODES,
]);

/** The refusal for the page's error `code` (`error`: the finding on the page now, if it is still shown). */
function refusalOf(code: string, error: ErrorFinding | undefined): SubmitErrorCode | undefined {
  // A rate-limit or usage-cap dialog covers the page; a notice beside the composer, or one already gone, does not.
  if (LIMIT_CODES.has(code)) return error?.limit?.modal ? (code as SubmitErrorCode) : undefined;
  return PAGE_REFUSALS[code];
}

type Verdict =
  { kind: "ready"; editor: Element } | { kind: "wait"; why: string } | { kind: "fail"; failure: Failure };

/** Research §4 preconditions, checked on one snapshot. */
function preconditions(ctx: SubmitContext, req: SubmitRequest, scan: PageScan, report: StateReport): Verdict {
  const now = ctx.now();
  // The machine's view of this scan: a limit notice our own submission already went past no longer counts.
  const error = ctx.machine.error;
  const pageCode = error?.code ?? (report.state === "error" ? report.errorCode : undefined);
  const refusal = pageCode ? refusalOf(pageCode, error) : undefined;
  if (refusal) {
    const why = error?.detail ?? "the composer could not be found reliably";
    return { kind: "fail", failure: failed(refusal, `${pageCode}: ${why}`) };
  }
  if (scan.composer.workMode) {
    return { kind: "fail", failure: failed("HOST_UI_CHANGED", "the composer is in Work mode, not Chat") };
  }
  if (req.expectUrl !== undefined) {
    if (scan.url.kind === "transient") return { kind: "wait", why: "the conversation URL to settle" };
    if (scan.url.url !== req.expectUrl) {
      return {
        kind: "fail",
        failure: failed("HOST_UI_CHANGED", `the tab shows ${scan.url.url}, not ${req.expectUrl}`),
      };
    }
  }
  const midTurn =
    ctx.machine.busyNow(scan, now) || report.state === "generating" || pageCode === "AWAITING_APPROVAL";
  if (req.mode === "steer" && midTurn) {
    return {
      kind: "fail",
      failure: failed(
        "STEERING_UNAVAILABLE",
        "ChatGPT offers no safe way to submit while a turn is in progress (research §7); Stop is never clicked",
      ),
    };
  }
  if (pageCode === "AWAITING_APPROVAL")
    return { kind: "wait", why: "a tool confirmation card (a person decides)" };
  if (midTurn || ctx.machine.state === undefined) return { kind: "wait", why: "the turn in progress to end" };
  if (ctx.machine.state === "error" && !SENDABLE_ERRORS.has(ctx.machine.errorCode ?? "")) {
    return { kind: "wait", why: `the error ${ctx.machine.errorCode ?? ""} to clear` };
  }
  const editor = scan.composer.editor;
  if (!editor || scan.composer.problem) {
    return { kind: "wait", why: `the composer (${scan.composer.problem ?? "not found"})` };
  }
  if (now - ctx.machine.composerSince < ctx.timing.composerStableMs) {
    return { kind: "wait", why: "the composer to stop remounting (hydration)" };
  }
  const draft = editorText(editor);
  if ((draft.trim() !== "" && !draft.includes(req.marker)) || scan.composer.chips > 0) {
    return { kind: "wait", why: "a draft that is not ours to be sent or cleared (it is never overwritten)" };
  }
  return { kind: "ready", editor };
}

/** The primary button before our text went in (its voice state), for the structural Send fallback. */
interface PrimaryBefore {
  kind: ButtonKind | "none";
  label: string;
}

/**
 * Localized labels we do not know: the primary button counts as Send by structure and state (research §10)
 * when it is the form's primary slot, enabled, unclassified, not refused, and its label changed when our
 * text went in (voice → Send); it was not Stop or Send before.
 */
function structuralSend(scan: PageScan, before: PrimaryBefore, table: SelectorTable): Element | null {
  const p = scan.composer.primary;
  if (!p || scan.composer.primaryKind !== "unknown" || isDisabled(p)) return null;
  if (before.kind === "stop" || before.kind === "send" || labelOf(p) === before.label) return null;
  return refusalReason(p, table) ? null : p;
}

type SendWait =
  | { kind: "send"; send: Element }
  | { kind: "remounted" }
  | { kind: "chip" }
  | { kind: "problem"; problem: string };

/**
 * After an insert, Send stays disabled for a few hundred ms. If it never enables, the editor's own state
 * did not take our text (a DOM-only change), and the caller tries the next method.
 */
async function awaitSend(
  ctx: SubmitContext,
  editor: Element,
  want: string,
  chipsBefore: number,
  before: PrimaryBefore,
  how: string,
): Promise<SendWait> {
  const until = ctx.now() + ctx.timing.sendEnableWaitMs;
  for (;;) {
    const { scan } = ctx.tick();
    if (scan.composer.editor !== editor || !editor.isConnected) return { kind: "remounted" };
    if (scan.composer.chips > chipsBefore) return { kind: "chip" };
    if (editorText(editor) !== want) {
      return { kind: "problem", problem: `the editor dropped the text inserted by ${how}` };
    }
    const send = sendReady(scan.composer, ctx.table) ?? structuralSend(scan, before, ctx.table);
    if (send) return { kind: "send", send };
    if (ctx.now() >= until) {
      const primary = scan.composer.primary;
      const seen = primary ? `${scan.composer.primaryKind} "${labelOf(primary)}"` : "none";
      return {
        kind: "problem",
        problem: scan.composer.send
          ? `Send stayed disabled after ${how}`
          : `no Send control appeared after ${how} (primary button: ${seen})`,
      };
    }
    await ctx.sleep(ctx.timing.submitPollMs);
  }
}

/** Clears the editor only if what it holds is ours (a person may have started typing meanwhile). */
function clearOurs(ctx: SubmitContext, editor: Element, marker: string): void {
  if (editorText(editor).includes(marker)) clearEditor(editor, ctx.win, ctx.table);
}

export async function submit(ctx: SubmitContext, req: SubmitRequest): Promise<SubmitOutcome> {
  if (req.marker === "" || !req.text.includes(req.marker)) {
    throw new Error("submit: the text must contain the marker (it proves later whether the turn landed)");
  }
  const { timing, table, win } = ctx;
  // A redelivered command whose turn already landed: nothing to do, and nothing must be clicked.
  if (ctx.hasMarker(req.marker)) return { outcome: "submitted", url: ctx.tick().report.url };

  const started = ctx.now();
  const deadline = Math.min(req.deadlineAt ?? Number.POSITIVE_INFINITY, started + timing.preconditionWaitMs);
  const want = normalizeText(req.text);
  let lastProblem = "no insert method worked";

  // A remount during insertion sends us back to the preconditions; a few rounds at most.
  let dismissed = false;
  for (let round = 0; round < 3; round++) {
    let editor: Element;
    for (;;) {
      const { scan, report } = ctx.tick();
      const verdict = preconditions(ctx, req, scan, report);
      if (verdict.kind === "fail") {
        // The host waited out the limit (or a person asked): ChatGPT's "Too many requests … Got it" dialog only says
        // so and covers the composer. Its one button is clicked once; if the notice stays, the refusal stands.
        if (!dismissed && dismissLimitDialog(ctx)) {
          dismissed = true;
          await ctx.sleep(timing.submitPollMs);
          continue;
        }
        return verdict.failure;
      }
      if (verdict.kind === "ready") {
        editor = verdict.editor;
        break;
      }
      if (ctx.now() >= deadline) {
        const waited = ctx.now() - started;
        return failed("DEADLINE_EXCEEDED", `nothing was submitted: waited ${waited} ms for ${verdict.why}`);
      }
      await ctx.sleep(timing.submitPollMs);
    }

    const { scan: beforeInsert } = ctx.tick();
    const chipsBefore = beforeInsert.composer.chips;
    const primaryBefore: PrimaryBefore = {
      kind: beforeInsert.composer.primaryKind,
      label: beforeInsert.composer.primary ? labelOf(beforeInsert.composer.primary) : "",
    };
    let wait: SendWait = { kind: "problem", problem: lastProblem };
    for (const method of insertMethods(editor, win)) {
      if (!clearEditor(editor, win, table)) {
        wait = { kind: "problem", problem: "the composer could not be cleared" };
        break;
      }
      focusEditor(editor, win, table);
      if (!method.insert(editor, req.text)) continue;
      if (editorText(editor) !== want) {
        wait = { kind: "problem", problem: `read-back mismatch after ${method.name}` };
        continue;
      }
      wait = await awaitSend(ctx, editor, want, chipsBefore, primaryBefore, method.name);
      if (wait.kind !== "problem") break;
    }
    if (wait.kind === "remounted") {
      lastProblem = "the composer was remounted while inserting";
      continue;
    }
    if (wait.kind === "chip") {
      return failed("HOST_UI_CHANGED", "the text became a Pasted-text attachment; a person must remove it");
    }
    if (wait.kind === "problem") {
      clearOurs(ctx, editor, req.marker);
      return failed("HOST_UI_CHANGED", `nothing was submitted: ${wait.problem}`);
    }
    const send = wait.send;

    // Synchronously before the click: the same editor still holds exactly our text, nothing changed.
    const { scan, report } = ctx.tick();
    const verdict = preconditions(ctx, req, scan, report);
    const refusal =
      verdict.kind === "fail"
        ? verdict.failure
        : verdict.kind === "wait"
          ? failed(
              "HOST_UI_CHANGED",
              `nothing was submitted: the page changed before the click (${verdict.why})`,
            )
          : verdict.editor !== editor || editorText(editor) !== want
            ? failed("HOST_UI_CHANGED", "nothing was submitted: the composer changed before the click")
            : (sendReady(scan.composer, table) ?? structuralSend(scan, primaryBefore, table)) !== send
              ? failed("HOST_UI_CHANGED", "nothing was submitted: the Send control changed before the click")
              : ctx.now() > (req.deadlineAt ?? Number.POSITIVE_INFINITY)
                ? failed("DEADLINE_EXCEEDED", "nothing was submitted: the deadline passed before the click")
                : undefined;
    if (refusal) {
      clearOurs(ctx, editor, req.marker);
      return refusal;
    }
    if (ctx.hasMarker(req.marker)) {
      clearOurs(ctx, editor, req.marker);
      return { outcome: "submitted", url: report.url };
    }

    const before: BeforeClick = {
      stop: scan.composer.stopVisible,
      url: scan.url,
      limit: scan.error?.limit,
    };
    const clicked = guardedClick(send, "send", win, table);
    if (!clicked.clicked) {
      clearOurs(ctx, editor, req.marker);
      return failed("HOST_UI_CHANGED", `nothing was submitted: ${clicked.reason}`);
    }
    return await acceptance(ctx, req, editor, want, before);
  }
  return failed("HOST_UI_CHANGED", `nothing was submitted: ${lastProblem}`);
}

/** Clicks the single acknowledgement button of a rate-limit or usage-cap dialog shown now; false if there is none. */
function dismissLimitDialog(ctx: SubmitContext): boolean {
  const limit = ctx.machine.error?.limit;
  if (!limit?.modal || !LIMIT_CODES.has(ctx.machine.error?.code ?? "")) return false;
  const dialog = limit.element.closest('[role="dialog"], [role="alertdialog"], dialog');
  const button = dialog?.querySelector("button, [role=button]");
  return button ? guardedClick(button, "dismiss-notice", ctx.win, ctx.table).clicked : false;
}

/** The page just before the click: what the proof compares with, and the limit notice the prompt goes past. */
interface BeforeClick {
  stop: boolean;
  url: PageScan["url"];
  limit: LimitNotice | undefined;
}

/** After the ONE click: accept any one proof (research §4); navigation alone is not proof; never resend. */
async function acceptance(
  ctx: SubmitContext,
  req: SubmitRequest,
  editor: Element,
  want: string,
  before: BeforeClick,
): Promise<SubmitOutcome> {
  const clickedAt = ctx.now();
  for (;;) {
    await ctx.sleep(ctx.timing.submitPollMs);
    const { scan } = ctx.tick();
    // The marker among the newest turns only: the whole page was searched once before the click.
    const proven =
      recentUserTurnContains(scan.turns, ctx.table, req.marker) ||
      (editor.isConnected && scan.composer.editor === editor && editorText(editor).trim() === "") ||
      (scan.composer.stopVisible && !before.stop);
    if (proven) {
      ctx.noteSubmitted(scan, answerFollows(scan.turns, req.marker), before.limit);
      return { outcome: "submitted", url: await settledUrl(ctx, scan) };
    }
    // On a chat that never got an id, the delivery-timeout banner proves non-delivery (S3 PR #274).
    if (
      scan.error?.code === "MESSAGE_DELIVERY_TIMEOUT" &&
      before.url.kind !== "conversation" &&
      scan.url.kind !== "conversation" &&
      editorText(editor) === want
    ) {
      clearOurs(ctx, editor, req.marker);
      return failed(
        "MESSAGE_DELIVERY_TIMEOUT",
        "message delivery timed out on a chat that never got an id, so it was not accepted; Retry was not clicked",
        "after-click",
      );
    }
    if (ctx.now() - clickedAt >= ctx.timing.acceptanceWindowMs) {
      return failed(
        "AMBIGUOUS_SUBMISSION",
        `Send was clicked once; within ${ctx.timing.acceptanceWindowMs} ms no user turn with the marker, no ` +
          "cleared composer and no Stop appeared. Not resent: reconcile with hasMarker before any retry",
        "after-click",
      );
    }
  }
}

/** On a new chat the real `/c/<uuid>` appears shortly after the first send; wait for it a little. */
async function settledUrl(ctx: SubmitContext, scan: PageScan): Promise<string> {
  if (scan.url.kind === "conversation") return scan.url.url;
  const until = ctx.now() + ctx.timing.urlSettleMs;
  while (ctx.now() < until) {
    await ctx.sleep(ctx.timing.submitPollMs);
    const { scan: now, report } = ctx.tick();
    if (now.url.kind === "conversation") return report.url;
  }
  return ctx.tick().report.url;
}
