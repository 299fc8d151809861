// Whether a submission may go ahead on one snapshot of the page: refused at once (a person or the product must
// act first, Work mode, another conversation, a person's draft), waited for (the turn, an approval, the composer),
// or ready.
import { draftOwner } from "./composer.ts";
import { LIMIT_CODES } from "./errors.ts";
import type { ErrorFinding, PageScan } from "./scan-types.ts";
import { failed, type Failure, type SubmitContext } from "./submit-context.ts";
import type { StateReport, SubmitErrorCode, SubmitRequest } from "./types.ts";

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

export type Verdict =
  { kind: "ready"; editor: Element } | { kind: "wait"; why: string } | { kind: "fail"; failure: Failure };

/** The preconditions (docs/adapter.md, "Submission, as implemented", step 2), checked on one snapshot. */
export function preconditions(
  ctx: SubmitContext,
  req: SubmitRequest,
  scan: PageScan,
  report: StateReport,
): Verdict {
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
        "ChatGPT offers no safe way to submit while a turn is in progress; Stop is never clicked",
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
