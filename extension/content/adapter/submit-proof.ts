// After the ONE click: proof of acceptance (our marker in a new user turn, nothing less), a send the page visibly
// ignored (SEND_IGNORED), or AMBIGUOUS_SUBMISSION; and on a new chat, the real conversation URL. Never resends.
import { editorIsEmpty, editorText } from "./page-text.ts";
import { isDisabled, labelOf } from "./dom.ts";
import type { LimitNotice, PageScan } from "./scan-types.ts";
import { clearOurs, failed, type Failure, type SubmitContext } from "./submit-context.ts";
import { answerFollows, recentUserTurnContains } from "./turn-scan.ts";
import type { SubmitOutcome, SubmitRequest } from "./types.ts";

/** The page just before the click: what the proof compares with, and the limit notice the prompt goes past. */
export interface BeforeClick {
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

export function lookOf(scan: PageScan): PageLook {
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
 * After the ONE click, the only proof is a user turn carrying the marker (docs/adapter.md, "Submission, as
 * implemented", step 8). Stop appearing, the composer emptied or navigation are no proof on their own: the old turn
 * may stream on, a person may clear the composer. Never resends.
 */
export async function acceptance(
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
    // On a chat that never got an id, the page shows the delivery-timeout banner and keeps our text in the composer
    // when it did not deliver it: proof of non-delivery (docs/adapter.md, "Submission, as implemented", step 10).
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
