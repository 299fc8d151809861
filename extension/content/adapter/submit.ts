// Submitting a prompt exactly once (research §4, spec 12.4): preconditions, insert, read back, ONE click, and
// proof of acceptance: our marker in a new user turn, nothing less. A send the page visibly ignored is SEND_IGNORED;
// anything else uncertain after the click is AMBIGUOUS_SUBMISSION; nothing is ever resent (docs/adapter.md).
import { guardedClick, refusalReason } from "./click-guard.ts";
import { clearEditor, draftOwner, focusEditor, insertMethods } from "./composer.ts";
import type { StateMachine } from "./state-machine.ts";
import { LIMIT_CODES } from "./errors.ts";
import { editorIsEmpty, editorText, normalizeText } from "./page-text.ts";
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
  // A person's draft is refused as soon as it is seen, even mid-turn: someone is using the tab, and waiting for the
  // deadline would only hold the worker (their draft is never overwritten or cleared).
  const editor = scan.composer.editor;
  if (editor && !scan.composer.problem && draftOwner(editor, scan.composer.chips, req.marker) === "person") {
    return {
      kind: "fail",
      failure: failed(
        "DRAFT_IN_COMPOSER",
        "nothing was typed: the composer holds a draft that is not ours (text without our marker, or an " +
          "attachment); it is never overwritten or cleared",
      ),
    };
  }
  if (pageCode === "AWAITING_APPROVAL")
    return { kind: "wait", why: "a tool confirmation card (a person decides)" };
  if (midTurn || ctx.machine.state === undefined) return { kind: "wait", why: "the turn in progress to end" };
  if (ctx.machine.state === "error" && !SENDABLE_ERRORS.has(ctx.machine.errorCode ?? "")) {
    return { kind: "wait", why: `the error ${ctx.machine.errorCode ?? ""} to clear` };
  }
  if (!editor || scan.composer.problem) {
    return { kind: "wait", why: `the composer (${scan.composer.problem ?? "not found"})` };
  }
  if (now - ctx.machine.composerSince < ctx.timing.composerStableMs) {
    return { kind: "wait", why: "the composer to stop remounting (hydration)" };
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
        if (editorIsEmpty(verdict.editor)) {
          editor = verdict.editor;
          break;
        }
        // A leftover draft of ours (an earlier command's text the page never took) is replaced: cleared, then the
        // preconditions again, so the primary button is read for the empty composer (the structural Send fallback
        // compares its label before and after our text) and a person who starts typing meanwhile is seen.
        if (!clearEditor(verdict.editor, win, table)) {
          return failed("HOST_UI_CHANGED", "nothing was submitted: our earlier text could not be cleared");
        }
      }
      if (ctx.now() >= deadline) {
        const waited = ctx.now() - started;
        const why = verdict.kind === "wait" ? verdict.why : "our earlier text to stay cleared";
        return failed("DEADLINE_EXCEEDED", `nothing was submitted: waited ${waited} ms for ${why}`);
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

    const before: BeforeClick = { url: scan.url, limit: scan.error?.limit, look: lookOf(scan) };
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
  url: PageScan["url"];
  limit: LimitNotice | undefined;
  look: PageLook;
}

/**
 * What a page that takes a prompt visibly changes: the turns (a new one, or the newest growing), the URL, Stop or
 * another busy signal, the primary button (its element, label or disabled state), an attachment, an error, a dialog.
 */
interface PageLook {
  primary: Element | null;
  sig: string;
}

function lookOf(scan: PageScan): PageLook {
  const { composer } = scan;
  const p = composer.primary;
  const parts = [
    scan.contentSig,
    scan.url.kind,
    scan.url.url,
    composer.stopVisible,
    scan.busy ?? "",
    p ? labelOf(p) : "",
    p ? isDisabled(p) : "",
    composer.chips,
    scan.error?.code ?? "",
    scan.dialogOpen,
  ];
  return { primary: p, sig: parts.join("\u0000") };
}

/**
 * How long after the click a page that visibly did nothing at all counts as having ignored Send, before the whole
 * acceptance window has passed. chatgpt.com takes a prompt as it handles the click: Send's handler empties the
 * composer and shows the user turn before the request goes out; the slowest reaction the page is known for is Stop
 * up to 2 s after the click (docs/adapter.md, "Submission"). 5 s is 2.5 times that, and still at least four polls in
 * a hidden tab, whose timers wake once a second. It applies only while nothing in `PageLook` has changed since the
 * click: a page that shows any sign of working (a slow one, or the old turn streaming on) gets the whole window. A
 * page sends what its composer holds, and our text is cleared from it, so a page that acts late has nothing to send
 * (the resend after SEND_IGNORED is a new command with its own marker: it could not detect a late copy of this one).
 */
const IGNORED_WHEN_QUIET_MS = 5_000;

/**
 * After the ONE click, the only proof is a user turn carrying the marker (research §4). Stop appearing, the composer
 * emptied or navigation are no proof on their own: the old turn may stream on, a person may clear the composer.
 * Never resends.
 */
async function acceptance(
  ctx: SubmitContext,
  req: SubmitRequest,
  editor: Element,
  want: string,
  before: BeforeClick,
): Promise<SubmitOutcome> {
  const clickedAt = ctx.now();
  const windowMs = ctx.timing.acceptanceWindowMs;
  let stirred = false;
  for (;;) {
    await ctx.sleep(ctx.timing.submitPollMs);
    const { scan } = ctx.tick();
    // The marker among the newest turns only: the whole page was searched once before the click.
    if (recentUserTurnContains(scan.turns, ctx.table, req.marker))
      return await proven(ctx, req, scan, before);
    const holdsOurs = editor.isConnected && scan.composer.editor === editor && editorText(editor) === want;
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
    const look = lookOf(scan);
    stirred ||= look.primary !== before.look.primary || look.sig !== before.look.sig;
    const waited = ctx.now() - clickedAt;
    const ended = waited >= windowMs;
    if (!ended && (stirred || !holdsOurs || waited < Math.min(IGNORED_WHEN_QUIET_MS, windowMs))) continue;
    // Once, before any verdict: our turn may sit further back than the newest few (the page re-rendered the thread).
    if (ctx.hasMarker(req.marker)) return await proven(ctx, req, ctx.tick().scan, before);
    if (holdsOurs) return ignored(ctx, req, editor, waited);
    return failed(
      "AMBIGUOUS_SUBMISSION",
      `Send was clicked once; within ${windowMs} ms no user turn carried the marker, and the composer ` +
        `${composerAfter(scan, editor, req.marker)}. Stop, an emptied composer or navigation are no proof. Not ` +
        "resent: reconcile with hasMarker before any retry",
      "after-click",
    );
  }
}

/** Our user turn is there: the machine reports generating at once; on a new chat, the real URL is waited for. */
async function proven(
  ctx: SubmitContext,
  req: SubmitRequest,
  scan: PageScan,
  before: BeforeClick,
): Promise<SubmitOutcome> {
  ctx.noteSubmitted(scan, answerFollows(scan.turns, req.marker), before.limit);
  return { outcome: "submitted", url: await settledUrl(ctx, scan) };
}

/**
 * The same editor still holds exactly our text and no user turn carries the marker: the page ignored the click (seen
 * in a long pause of a turn still running). Not delivered, so our text is removed (a leftover would block the next
 * attempt or be sent late); the host sends again once the running turn ends.
 */
function ignored(ctx: SubmitContext, req: SubmitRequest, editor: Element, waited: number): Failure {
  clearOurs(ctx, editor, req.marker);
  return failed(
    "SEND_IGNORED",
    `Send was clicked once and the page ignored it: after ${waited} ms the composer still held exactly our text and ` +
      "no user turn carried the marker. Our text was removed from the composer; not resent",
    "after-click",
  );
}

/** What the composer shows after an unproven click, for the AMBIGUOUS_SUBMISSION detail (never its text). */
function composerAfter(scan: PageScan, editor: Element, marker: string): string {
  if (!editor.isConnected || scan.composer.editor !== editor) return "was replaced by another";
  if (editorIsEmpty(editor)) return "was emptied";
  return editorText(editor).includes(marker) ? "holds our text, changed" : "holds other text";
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
