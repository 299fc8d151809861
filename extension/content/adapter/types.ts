// Public types of the ChatGPT page adapter: what it reports, what it needs injected, what submission returns.
// Kept apart from the implementation so the content-script entry and the background can import them cheaply.
import type { SubmitErrorCode } from "../../../shared/error-codes.ts";
import type { ContinuationStatus } from "../../../shared/continuation-block.ts";
import type { ConversationState } from "../../../shared/executor-states.ts";
import type { ContinuationBlock, ContinuationBlockError } from "../../../shared/continuation-block.ts";
import type { SelectorTable } from "./selectors.ts";

export type { ConversationState };

export type Layout = "classic" | "composer-2026" | "unknown";

export interface StateReport {
  state: ConversationState;
  /** Set only with `state: "error"` (see docs/adapter.md for the codes). */
  errorCode?: string;
  /**
   * With RATE_LIMITED / USAGE_CAP: when the notice says the limit resets (epoch ms, read in the browser's time zone
   * when the notice first showed); absent when it states no time.
   */
  resetAt?: number;
  /**
   * With idle/ready: when the page's finished-turn evidence appeared (epoch ms; the start of the settle, not the end),
   * so the host's idle grace counts from the page's own end of turn.
   */
  since?: number;
  /** The conversation URL, never a transient `local-chatgpt:`/`WEB:` route (the last stable URL is kept). */
  url: string;
  /** `status:` of the continuation-state block ending the newest assistant turn, when not generating. */
  continuationStatus?: ContinuationStatus;
  /**
   * The parsed block (or why there is none) of the newest assistant turn, with `continuationStatus`. It never
   * leaves the page as text: the content bridge turns it into a hashed report (shared/continuation-block-report).
   */
  block?: ContinuationBlock | ContinuationBlockError;
  /**
   * With idle/ready, like `block`: the text of the handoff block in the newest assistant answer (shared/handoff-block),
   * when it has one. It leaves the page only with the idle report that ends that turn, and nothing stores it.
   */
  handoffBrief?: string;
  /** With idle/ready: the conversation's text length, all turns, measured when the newest answer was read (a size). */
  visibleChars?: number;
  layout: Layout;
}

/** Timers are injected so tests drive the adapter with fake timers and the content script with window's. */
export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** The page's frame callback; without it mutation ticks do not wait for the next frame (tests, other hosts). */
  requestAnimationFrame?(fn: () => void): unknown;
  cancelAnimationFrame?(handle: unknown): void;
}

/** Every wait of the adapter, in milliseconds. Defaults in `DEFAULT_TIMING` (timing.ts). */
export interface Timing {
  /**
   * The page's finished-turn evidence (docs/adapter.md, "States") must hold this long with no busy signal and no change
   * to the newest turn before it ends the turn: the action bar can flash in a thinking pause.
   */
  settleMs: number;
  /**
   * Last resort for a page whose evidence cannot be read at all: no busy signal and no change to the newest turn for
   * this long ends the turn (and settles a page loaded without evidence), so a worker never waits forever.
   */
  lastResortIdleMs: number;
  /** Slow poll; hidden tabs throttle DOM updates, so the observer alone is not enough. */
  pollMs: number;
  /** The longest the poll waits while the page stays settled (it doubles from `pollMs` up to this). */
  idlePollMaxMs: number;
  /** At most one tick per this interval while the DOM churns (visible tabs; hidden tabs tick on each batch). */
  throttleMs: number;
  /** An error condition must persist this long before it is reported (and before it clears). */
  errorConfirmMs: number;
  /** No reliable composer for this long → HOST_UI_CHANGED (hydration and navigation are shorter). */
  hostUiGraceMs: number;
  /** The composer must be the same element this long before text is inserted (hydration remount). */
  composerStableMs: number;
  /**
   * After our submission, the turn before it is no evidence: an answer turn for ours must show first, or this long
   * must pass (the page took the prompt but shows no answer).
   */
  answerWaitMs: number;
  /** `data-markdown-animated` whose content has not changed for this long no longer counts as busy. */
  animatedStaleMs: number;
  /** After inserting, Send is briefly disabled; how long to wait for it to enable. */
  sendEnableWaitMs: number;
  /** How long after the click to look for proof that the message was accepted. */
  acceptanceWindowMs: number;
  /** How long submit waits for its preconditions when the caller gives no deadline. */
  preconditionWaitMs: number;
  /** After proof on a new chat, how long to wait for the real `/c/<uuid>` URL before answering. */
  urlSettleMs: number;
  /** Interval of submit's own checks while it waits (each wait also ends at the page's next DOM change). */
  submitPollMs: number;
}

export interface AdapterOptions extends Scheduler {
  now(): number;
  onReport(report: StateReport): void;
  /** The older name of `timing.settleMs`, still accepted from callers that pass it. */
  idleDebounceMs?: number;
  pollMs?: number;
  /** Any other wait (see `Timing`); `idleDebounceMs`/`pollMs` above win over the same keys here. */
  timing?: Partial<Timing>;
  /** Remote update of selector chains: a key given here replaces that chain of the built-in table. */
  selectors?: Partial<SelectorTable>;
}

export interface SubmitRequest {
  /** The whole prompt; it must contain `marker`. */
  text: string;
  /** Unique per logical submission, embedded in `text` by the caller; `hasMarker` finds it later. */
  marker: string;
  mode: "send" | "steer";
  /** Epoch ms (same clock as `now`) after which nothing is clicked: DEADLINE_EXCEEDED instead. */
  deadlineAt?: number;
  /** When given, the page must be on this conversation (its stable URL) or nothing is submitted. */
  expectUrl?: string;
}

export type { SubmitErrorCode };

export type SubmitOutcome =
  | { outcome: "submitted"; url: string }
  | {
      outcome: "failed";
      errorCode: SubmitErrorCode;
      detail: string;
      phase: "before-submit" | "after-click";
    };

export interface ChatGptAdapter {
  start(): void;
  stop(): void;
  /**
   * The state right now (a fresh scan through the same rules the reports use); undefined while the page has not
   * settled into a first state (loaded mid-turn, no finished-turn evidence and no busy signal yet).
   */
  current(): StateReport | undefined;
  submit(req: SubmitRequest): Promise<SubmitOutcome>;
  /** Reconciliation: is there a user turn containing this marker? */
  hasMarker(marker: string): boolean;
  selfTest(): { layout: string; found: Record<string, boolean> };
  /** The conversation's title as the page shows it (a short name, never transcript text), if it names one. */
  conversationTitle(): string | undefined;
}

/** A window with its own constructors (events, observers): the content script's, or a test's jsdom window. */
export type PageWindow = Window & typeof globalThis;
