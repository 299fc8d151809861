// Error classification by text (docs/adapter.md, "Error classification"): which product condition a visible error
// card, dialog, toast or banner means. Scoping (newest turn only, visible, not sr-only) is the scanner's job; this file only reads text.
import type { PageErrorCode } from "../../../shared/error-codes.ts";
import { RATE_LIMIT_CODES } from "../../../shared/error-codes.ts";

/** Codes reported with `state: "error"`: the closed list is shared/error-codes.ts (PAGE_ERROR_CODES). */
export type { PageErrorCode };

/** A rate limit or usage cap: reported with the reset time its notice states, when it states one (reset-time.ts). */
export const LIMIT_CODES = RATE_LIMIT_CODES;

/** Error texts longer than this are page content, not an error card (real error cards are a sentence or two). */
export const MAX_ERROR_TEXT = 500;

/** An answer longer than this (squashed, without its Retry label) is an answer, not an error sentence. */
const MAX_ANSWER_ERROR = 300;

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase().replace(/[’]/g, "'");
}

/** A trailing run of Retry/Try again labels (the card's own button read along with its text). */
const RETRY_TAIL = /(\s*(retry|try again|regenerate( response)?))+\s*$/i;
/** The longest label in `RETRY_TAIL` ("regenerate response"), plus one. */
const LONGEST_LABEL = 20;
/** How much of a long text's end `surelyLonger` searches for Retry labels. */
const TAIL_WINDOW = 400;

/** Removes a trailing Retry/Try again label (the card's own button read along with its text). */
function withoutRetry(text: string): string {
  return text.replace(RETRY_TAIL, "").trim();
}

/**
 * Whether `raw` without its trailing Retry labels surely holds more than `limit` characters other than whitespace,
 * judged from its start and its last few hundred characters only: a long answer is not an error sentence, and the
 * whole-text regular expressions cost about 0.1 ms per thousand words on every scan. False when unsure.
 */
function surelyLonger(raw: string, limit: number): boolean {
  if (raw.length <= limit) return false;
  let end = raw.length;
  const from = Math.max(0, raw.length - TAIL_WINDOW);
  const labels = RETRY_TAIL.exec(from === 0 ? raw : raw.slice(from));
  if (labels) {
    // A run of labels that starts this close to the window's start may go on before it.
    if (from > 0 && labels.index < LONGEST_LABEL) return false;
    end = from + labels.index;
  }
  // Squashing keeps every character but whitespace. Only a bounded start is read: when even that is over the limit
  // the whole is; when it is not (short, or mostly whitespace), the answer is unsure and the caller reads it all.
  const head = raw.slice(0, Math.min(end, 2 * limit));
  return head.replace(/\s+/g, "").length > limit;
}

const DELIVERY_TIMEOUT = /message delivery timed out/;

/** Whole-string transport failures (the answer is only that text): an answer that merely mentions them is no error. */
const TRANSPORT_WHOLE: readonly RegExp[] = [
  /^connection interrupted\.? waiting for the complete answer\.?$/,
  /^(an )?unknown error occurred\.?$/,
  /^there was an error generating (a|the) response\.?$/,
  /^error in message stream\.?$/,
  /^(a )?network error( occurred)?\.?$/,
  /^something went wrong\.?( .{0,200})?$/,
  /^an error occurred while connecting to the websocket\.?$/,
  /^(the )?(service|model) is temporarily unavailable\.?( .{0,100})?$/,
  /^failed to generate( a)? response\.?( .{0,100})?$/,
];

const TOO_LONG = /conversation is too long|reached (the|its) maximum length|maximum conversation length/;
const THINKING_FAILED = /^thinking failed$/;

/**
 * Text of an element already known to be an error card in the newest turn (error classes, a Retry anchor,
 * a visible role=alert). Short texts only.
 */
export function classifyCardText(raw: string): PageErrorCode | undefined {
  const text = squash(withoutRetry(raw.trim()));
  if (text === "" || text.length > MAX_ERROR_TEXT) return undefined;
  if (DELIVERY_TIMEOUT.test(text)) return "MESSAGE_DELIVERY_TIMEOUT";
  if (THINKING_FAILED.test(text)) return "THINKING_FAILED";
  if (TOO_LONG.test(text)) return "CONVERSATION_TOO_LONG";
  const notice = classifyNoticeText(raw);
  if (notice) return notice;
  if (TRANSPORT_WHOLE.some((re) => re.test(text))) return "RESPONSE_FAILED";
  return undefined;
}

/**
 * Text rendered where an answer would be (inside `.markdown`): only an exact error sentence counts, so a
 * model writing about network errors is never taken for one.
 */
export function classifyAnswerText(raw: string): PageErrorCode | undefined {
  // Squashing keeps every character but whitespace; twice the limit stays over it even if lower-casing halved them.
  if (surelyLonger(raw, 2 * MAX_ANSWER_ERROR)) return undefined;
  const text = squash(withoutRetry(raw.trim()));
  if (text === "" || text.length > MAX_ANSWER_ERROR) return undefined;
  if (/^message delivery timed out\.?( please try again\.?)?$/.test(text)) return "MESSAGE_DELIVERY_TIMEOUT";
  if (TRANSPORT_WHOLE.some((re) => re.test(text))) return "RESPONSE_FAILED";
  return undefined;
}

const RATE_LIMIT =
  /too many requests|requests too quickly|too quickly|temporarily limited access|please wait a few minutes|rate limit|slow down|요청이 너무 많습니다/;
/** With "limit": the notice says when it ends ("…until 3:45 PM", "…resets after 14:05", "…try again after 4:10 PM"). */
const USAGE_CAP_WHEN = /reset|until|try again|available again/;
const HUMAN_CHECK =
  /verify you are (a )?human|unusual activity|cloudflare|complete the challenge|security check/;
const SIGNED_OUT =
  /^(log in|sign in)\b|login required|log in to (continue|chatgpt)|sign in to continue|session (has )?expired|you('ve| have) been logged out/;

/**
 * Page-level notices (dialogs, toasts, visible alerts, banners by the composer): rate limit, usage cap,
 * sign-in and challenge, the conversation's length limit, and a delivery timeout shown as a toast/alert.
 */
export function classifyNoticeText(raw: string): PageErrorCode | undefined {
  const text = squash(raw);
  if (text === "" || text.length > 800) return undefined;
  if (DELIVERY_TIMEOUT.test(text)) return "MESSAGE_DELIVERY_TIMEOUT";
  // The length-limit notice may stand in place of the composer rather than in the newest turn.
  if (TOO_LONG.test(text)) return "CONVERSATION_TOO_LONG";
  if (RATE_LIMIT.test(text)) return "RATE_LIMITED";
  if (/limit/.test(text) && USAGE_CAP_WHEN.test(text)) return "USAGE_CAP";
  if (HUMAN_CHECK.test(text)) return "HUMAN_VERIFICATION";
  if (SIGNED_OUT.test(text)) return "NOT_SIGNED_IN";
  return undefined;
}
