// Submitting a prompt exactly once (docs/adapter.md, "Submission, as implemented"): preconditions, insert, read back,
// ONE click, then the proof (submit-proof.ts): our marker in a new user turn, nothing less. A send the page visibly
// ignored is SEND_IGNORED; anything else uncertain after the click is AMBIGUOUS_SUBMISSION; nothing is ever resent.
import { guardedClick, refusalReason } from "./click-guard.ts";
import { sendReady } from "./composer-scan.ts";
import { clearEditor, focusEditor, insertMethods } from "./composer.ts";
import { isDisabled, labelOf } from "./dom.ts";
import { LIMIT_CODES } from "./errors.ts";
import { editorIsEmpty, editorText, normalizeText } from "./page-text.ts";
import type { ButtonKind, PageScan } from "./scan-types.ts";
import type { SelectorTable } from "./selectors.ts";
import { clearOurs, failed, type SubmitContext } from "./submit-context.ts";
import { preconditions } from "./submit-preconditions.ts";
import { acceptance, lookOf, type BeforeClick } from "./submit-proof.ts";
import type { SubmitOutcome, SubmitRequest } from "./types.ts";

/** The primary button before our text went in (its voice state), for the structural Send fallback. */
interface PrimaryBefore {
  kind: ButtonKind | "none";
  label: string;
}

/**
 * Localized labels we do not know: the primary button counts as Send by structure and state (docs/adapter.md,
 * "Selector table") when it is the form's primary slot, enabled, unclassified, not refused, and its label changed
 * when our text went in (voice → Send); it was not Stop or Send before.
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
