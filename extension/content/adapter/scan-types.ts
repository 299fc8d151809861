// What one scan of the page reports (page-scan.ts builds it): the composer, the turns, the error found, and the whole
// snapshot the state machine and the submission read. Types only.
import type { PageErrorCode } from "./errors.ts";
import type { Layout } from "./types.ts";
import type { PageUrl } from "./url.ts";

export type ButtonKind = "send" | "stop" | "voice" | "unknown";
export type Role = "user" | "assistant" | "unknown";

export interface ComposerScan {
  form: Element | null;
  editor: Element | null;
  /** Set when no single usable composer was found (the reason is shown in HOST_UI_CHANGED details). */
  problem?: string;
  primary: Element | null;
  primaryKind: ButtonKind | "none";
  /** The visible send control of the form (enabled or not). */
  send: Element | null;
  stopVisible: boolean;
  chips: number;
  workMode: boolean;
}

export interface TurnScan {
  turns: readonly Element[];
  /** Message nodes inside the newest turn (a later one supersedes an error card before it). */
  newestMessages: Element[];
  newest: Element | null;
  newestRole: Role | null;
  /** The newest turn when it is an assistant turn. */
  newestAssistant: Element | null;
}

export interface ErrorFinding {
  code: PageErrorCode;
  detail: string;
  /** Set for a rate-limit or usage-cap notice (RATE_LIMITED, USAGE_CAP). */
  limit?: LimitNotice;
}

/** A rate-limit or usage-cap notice: the state machine reads its reset time and decides when it no longer applies. */
export interface LimitNotice {
  /** The notice (dialog, toast, alert, or the banner's block by the composer). */
  element: Element;
  /** Its visible words, whitespace collapsed: what the reset time is read from (reset-time.ts). */
  text: string;
  /** Inside a dialog: it covers the page, and a submission is refused while it shows (docs/adapter.md). */
  modal: boolean;
}

export interface PageScan {
  url: PageUrl;
  layout: Layout;
  composer: ComposerScan;
  turns: TurnScan;
  /** A strong busy signal (Stop, streaming marker, thinking label, "Answer now"), with its name. */
  busy?: string;
  /** `data-markdown-animated` on the newest answer: busy only while its content changes (machine decides). */
  animated: boolean;
  /** A thinking/Pro signal ("Answer now", a thinking label); it is busy too (`busy` names it). */
  thinking: boolean;
  /** The newest turn is an assistant turn showing its finished action bar (finished-turn evidence). */
  actionBar: boolean;
  /** The page's live status regions that announce "Response complete" (finished-turn evidence once it changes). */
  liveStatus: LiveStatus;
  /** Send is enabled and no Stop shows while the composer holds text (finished-turn evidence). */
  draftSendable: boolean;
  /** Changes whenever the newest turn's content or the number of turns changes. */
  contentSig: string;
  error?: ErrorFinding;
  /**
   * When `error` is a limit notice: what the page shows besides it (another notice, a tool approval, a turn error), the
   * error once that notice is left out (the state machine leaves out a notice a submission of ours went past).
   */
  behindLimit?: ErrorFinding;
  dialogOpen: boolean;
}

/**
 * The `[role=status]` regions saying "Response complete". `sig` names them and their child nodes, so it changes when
 * the page announces it again (it writes the words anew, or clears them first); "" when none says it.
 */
export interface LiveStatus {
  sig: string;
  complete: boolean;
}
