// One snapshot of the page: composer, turns, busy signals, the finished-turn evidence and the current error, put
// together from the files that find each (composer-scan, turn-scan, turn-signals, turn-errors, page-notices), with
// what the last full scan found outside a streaming answer reused. Pure reading; the state machine adds time.
import { queryAll } from "./dom.ts";
import { scanComposer } from "./composer-scan.ts";
import { approvalIn, noticeError } from "./page-notices.ts";
import type { ScanMemory } from "./scan-memory.ts";
import { holdsPageWide, ScanScope, type ScopeKept } from "./scan-scope.ts";
import type { ComposerScan, ErrorFinding, LiveStatus, PageScan, TurnScan } from "./scan-types.ts";
import type { SelectorTable } from "./selectors.ts";
import { turnError, type RegionErrors } from "./turn-errors.ts";
import { scanTurns } from "./turn-scan.ts";
import { answerNowIn, draftSendable, liveStatusOf, thinkingLabel } from "./turn-signals.ts";
import type { TurnTracker } from "./turn-tracker.ts";
import type { Layout, PageWindow } from "./types.ts";
import { isLoginPath } from "./url.ts";

/** Which DOM layout the page is: the composer form tells; without one, any marker of a layout in the document. */
function layoutOf(doc: Document, composer: ComposerScan): Layout {
  const form = composer.form;
  if (form?.matches("form[data-chatgpt-composer]")) return "composer-2026";
  if (form?.matches('form[data-type="unified-composer"]') || composer.editor?.id === "prompt-textarea") {
    return "classic";
  }
  if (doc.querySelector("form[data-chatgpt-composer], [data-turn-key]")) return "composer-2026";
  if (doc.querySelector('#prompt-textarea, [data-testid^="conversation-turn-"]')) return "classic";
  return "unknown";
}

/**
 * What a scan found outside the newest turn: the composer, the layout, dialogs, the page-level error (login page or
 * control, notices, banners) and the error cards after the newest turn. The next scan reuses them instead of looking
 * again when the turn tracker saw only changes inside this same newest (assistant) turn since (see `scanPage`).
 */
export interface OutsideParts {
  /** The newest turn they were found around (an assistant turn when reusable). */
  readonly newest: Element | null;
  readonly composer: ComposerScan;
  readonly layout: Layout;
  /** A visible "Answer now" in the composer form. */
  readonly formAnswerNow: boolean;
  /** The live status regions' announcement (`PageScan.liveStatus`). */
  readonly liveStatus: LiveStatus;
  /** `PageScan.draftSendable`. */
  readonly draftSendable: boolean;
  readonly dialogs: readonly Element[];
  readonly pageError: ErrorFinding | undefined;
  /** When `pageError` is a limit notice: another notice shown besides it (`PageScan.behindLimit`). */
  readonly pageBehindLimit: ErrorFinding | undefined;
  /** Whether a dialog holds a tool approval (looked at once, when first needed). */
  dialogApproval: boolean | undefined;
  /** The error cards after the newest turn (found once, when first needed). */
  after: RegionErrors | undefined;
}

/** What the adapter keeps from scan to scan, each fed by its mutation records (all optional: tests scan afresh). */
export interface ScanKept extends ScopeKept {
  tracker?: TurnTracker;
  /** Outside parts of an earlier scan, young enough and on the same URL. */
  reuse?: OutsideParts;
  /** The location's href, when the caller has just read it (each read of it builds a new string). */
  href?: string;
}

export interface ScanResult {
  scan: PageScan;
  /** What the next scan may reuse; undefined when this page's state outside the newest turn cannot be reused. */
  outside: OutsideParts | undefined;
  /** Whether this scan reused `OutsideParts` of an earlier one. */
  reused: boolean;
}

/** The full lookups outside the newest turn; `reusable` says whether a later scan may rely on them. */
function scanOutside(
  win: PageWindow,
  scope: ScanScope,
  turns: TurnScan,
  memory: ScanMemory,
): { parts: Omit<OutsideParts, "newest">; reusable: boolean } {
  const composer = scanComposer(scope);
  const page = scope.pageWide();
  const dialogs = scope.visibleOf(page.dialog);
  let pageError: ErrorFinding | undefined;
  if (isLoginPath(win.location.pathname)) {
    pageError = { code: "NOT_SIGNED_IN", detail: "the login page is shown" };
  } else if (scope.firstVisible(page.loginControl)) {
    pageError = { code: "NOT_SIGNED_IN", detail: "a Log in control is shown" };
  }
  pageError ??= noticeError(scope, turns, composer.editor);
  const pageBehindLimit = pageError?.limit ? noticeError(scope, turns, composer.editor, true) : undefined;
  // Reusable only around an assistant turn that holds nothing a page-wide lookup found (a Log in link or an alert
  // quoted in the answer), with a composer form (else the layout is guessed from the whole document).
  const newest = turns.newestAssistant;
  const reusable =
    newest !== null &&
    composer.form !== null &&
    !Object.entries(page).some(
      ([key, hits]: [string, Element[]]) => key !== "liveStatus" && hits.some((el) => newest.contains(el)),
    );
  return {
    parts: {
      composer,
      layout: layoutOf(scope.doc, composer),
      formAnswerNow: composer.form !== null && answerNowIn(composer.form, scope),
      liveStatus: liveStatusOf(scope, memory, page.liveStatus),
      draftSendable: draftSendable(composer, scope.table),
      dialogs,
      pageError,
      pageBehindLimit,
      dialogApproval: undefined,
      after: undefined,
    },
    reusable,
  };
}

/**
 * One snapshot of the page. `reuse`: the outside parts of an earlier scan (the caller passes them only while they are
 * young and the URL is the same); they are taken instead of looking again when the tracker's records since were all
 * inside the same newest assistant turn (streaming text) and that turn holds nothing page-wide lookups look for. A
 * change outside the turn (Stop in the form, a dialog, a notice, an error card after the turn, a new turn) makes
 * records there, so the next scan is a full one. What can change outside without records (style through `:has()` or a
 * media query) waits for the next full scan, at most the caller's reuse age: the same bound the adapter already has
 * for changes that make no records at all (its poll).
 */
export function scanPage(
  win: PageWindow,
  table: SelectorTable,
  memory: ScanMemory,
  kept: ScanKept = {},
): ScanResult {
  const { tracker, reuse, subtrees, markup, regions, href } = kept;
  const doc = win.document;
  const turns = scanTurns(doc, table, tracker);
  const scope = new ScanScope(doc, win, table, turns.turns, { subtrees, markup, regions });
  const url = memory.urlOf(win.location, href);
  const newest = turns.newest;
  const newestAssistant = turns.newestAssistant;

  let parts: OutsideParts;
  let keep: boolean;
  const reused =
    reuse !== undefined &&
    tracker?.insideNewest === true &&
    newestAssistant !== null &&
    reuse.newest === newestAssistant &&
    !holdsPageWide(newestAssistant, table);
  if (reused) {
    parts = reuse;
    keep = true;
  } else {
    const fresh = scanOutside(win, scope, turns, memory);
    parts = { newest: newestAssistant, ...fresh.parts };
    keep = fresh.reusable;
  }

  const composer = parts.composer;
  let busy: string | undefined = composer.stopVisible ? "stop button" : undefined;
  let thinking = false;
  let animated = false;
  let actionBar = false;
  if (parts.formAnswerNow || (newest !== null && answerNowIn(newest, scope))) {
    thinking = true;
    busy ??= '"Answer now" (Pro thinking)';
  }
  if (newestAssistant) {
    if (queryAll(newestAssistant, table.streaming).some((el) => !scope.inHidden(el)))
      busy ??= "streaming marker";
    animated = queryAll(newestAssistant, table.markdownAnimated).length > 0;
    if (thinkingLabel(newestAssistant, scope)) {
      thinking = true;
      busy ??= "thinking label";
    }
    actionBar = queryAll(newestAssistant, table.actionBar).length > 0;
  }

  const contentSig = newest
    ? `${turns.turns.length}:${memory.idOf(newest)}:${(newest.textContent ?? "").length}:${animated ? 1 : 0}`
    : `${turns.turns.length}`;

  // Below the page-level errors: a tool approval (in the newest turn or a dialog), then the current region's errors.
  const belowPage = (): ErrorFinding | undefined => {
    const approval = {
      code: "AWAITING_APPROVAL",
      detail: "a tool confirmation card waits for a person",
    } as const;
    if (newest && approvalIn(newest, scope)) return approval;
    parts.dialogApproval ??= parts.dialogs.some((root) => approvalIn(root, scope));
    if (parts.dialogApproval) return approval;
    const found = turnError(scope, turns, parts.after);
    if (found.after?.reusable) parts.after = found.after;
    else if (found.after) keep = false;
    return found.error;
  };
  let error = parts.pageError;
  let behindLimit: ErrorFinding | undefined;
  if (!error) error = belowPage();
  else if (error.limit) behindLimit = parts.pageBehindLimit ?? belowPage();

  const scan: PageScan = {
    url,
    layout: parts.layout,
    composer,
    turns,
    ...(busy !== undefined ? { busy } : {}),
    animated,
    thinking,
    actionBar,
    liveStatus: parts.liveStatus,
    draftSendable: parts.draftSendable,
    contentSig,
    ...(error ? { error } : {}),
    ...(behindLimit ? { behindLimit } : {}),
    dialogOpen: parts.dialogs.length > 0,
  };
  return { scan, outside: keep ? parts : undefined, reused };
}
