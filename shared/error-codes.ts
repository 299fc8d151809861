// Every string error code that crosses a process boundary ({ code, message }, or an `errorCode` field), shared by
// host, extension and MCP: one closed list, with the subsets each reporter may use derived from it.
import { z } from "zod";

/** The durable store's faults; an operation that meets one answers with its code (a failing disk is not a bug). */
export const STORE_ERROR_CODES = [
  // A snapshot, journal or archive is damaged; nothing was changed on disk.
  "STORE_CORRUPT",
  // A file was written by a newer on-disk format than this code understands.
  "STORE_VERSION",
  // Another live process owns the data directory.
  "STORE_LOCKED",
  // Another owner took over the data directory, so this one stopped writing.
  "STORE_FENCED",
  // A write or fsync failed (a full disk): writes are refused until the disk takes data again.
  "STORE_IO",
  // It failed earlier (STORE_IO / STORE_FENCED) and refuses all work until reopened.
  "STORE_FAILED",
  "STORE_CLOSED",
  // A programming error (nested or async write, non-deterministic SQL, a bad parameter).
  "STORE_MISUSE",
  // A schema migration failed, or the database is newer than the migrations this code knows.
  "STORE_MIGRATION",
  "STORE_ARCHIVE_MISMATCH",
] as const;
export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

export const ERROR_CODES = [
  // Executor: the submission did not happen, or it is unknown whether it did.
  "AMBIGUOUS_SUBMISSION",
  "HOST_UI_CHANGED",
  "MESSAGE_DELIVERY_TIMEOUT",
  "STEERING_UNAVAILABLE",
  "TAB_CLOSED",
  "NOT_SIGNED_IN",
  "EXECUTOR_UNAVAILABLE",
  "DEADLINE_EXCEEDED",
  "RATE_LIMITED",
  "USAGE_CAP",
  // Executor: refused before typing, the page says the conversation is too long to take another message.
  "CONVERSATION_TOO_LONG",
  // Executor: Send was clicked once and the page ignored it (our text still in the composer, no new user turn): the
  // prompt was not delivered and goes out again once the running turn ends.
  "SEND_IGNORED",
  // Executor: refused before typing, a person's draft is in the composer (it is never overwritten or cleared).
  "DRAFT_IN_COMPOSER",
  // Executor: a command the host withdrew before its submission started; it was never sent.
  "CANCELLED",
  // Page (a conversation reported in state `error`): a tool-confirmation card waits for a person (never clicked).
  "AWAITING_APPROVAL",
  // Page: "verify you are human", unusual activity, a challenge: a person must act.
  "HUMAN_VERIFICATION",
  // Page: a transport or generation failure other than the delivery timeout ("Network error", "Something went wrong").
  "RESPONSE_FAILED",
  // Page: "Thinking failed" (not recoverable by waiting).
  "THINKING_FAILED",
  // Host: a page error reported without a code.
  "UNKNOWN",
  // Host: answers ended without a valid continuation-state block too often (the pause's code).
  "CONTINUATION_BLOCK_INVALID",
  // Host: requests refused.
  "INVALID_INPUT",
  "INVALID_POLICY",
  "NOT_FOUND",
  "CONFLICT",
  "RUN_TERMINAL",
  "WORKER_TERMINAL",
  "WORKER_PAUSED",
  "WORKER_AWAITING_HUMAN",
  "WORKER_AWAITING_DEPENDENCY",
  // Host: Continue now cannot make its one attempt: the conversation is not open, or the page needs a person first.
  "CONVERSATION_UNAVAILABLE",
  "CONVERSATION_BLOCKED",
  "NOT_AWAITING_HUMAN",
  "WORKTREE_OWNED",
  "NOT_OWNER",
  "AMBIGUOUS",
  "UNKNOWN_COMMAND",
  "PROTOCOL_VERSION_MISMATCH",
  "MESSAGE_TOO_LARGE",
  "MCP_UNAVAILABLE",
  // Host: the MCP token may be revealed or rotated only on the browser's own native port, not through a relay.
  // Extension: a view asked for an operation it may not call.
  "FORBIDDEN",
  // Host: a peer on the owner's IPC socket did not open with the secret from ipc.secret (it is refused and closed).
  "IPC_UNAUTHENTICATED",
  // Host: a bug (an operation threw something that is not a store fault).
  "INTERNAL",
  // Store (docs/store.md): its faults, each explained in STORE_ERROR_CODES above.
  ...STORE_ERROR_CODES,
  // Extension (views ↔ background): the native port is not open, or the host did not answer in time.
  "HOST_UNAVAILABLE",
  "TIMEOUT",
  // Extension: "Keep this conversation going" needs a saved chatgpt.com conversation (/c/<id>) in the tab.
  "NOT_A_CONVERSATION",
  // Extension: the background restarted under an open view, or the host's answer did not match its contract.
  "BACKGROUND_UNAVAILABLE",
  "UNEXPECTED_RESULT",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && KNOWN.has(code);
}

/** What the page adapter reports with a conversation in state `error`. */
export const PAGE_ERROR_CODES = [
  "MESSAGE_DELIVERY_TIMEOUT",
  "RATE_LIMITED",
  "USAGE_CAP",
  "NOT_SIGNED_IN",
  "HOST_UI_CHANGED",
  "AWAITING_APPROVAL",
  "HUMAN_VERIFICATION",
  "RESPONSE_FAILED",
  "THINKING_FAILED",
  "CONVERSATION_TOO_LONG",
] as const satisfies readonly ErrorCode[];
export type PageErrorCode = (typeof PAGE_ERROR_CODES)[number];

/** Why the page adapter did not (or may not have) submitted a turn. */
export const SUBMIT_ERROR_CODES = [
  "AMBIGUOUS_SUBMISSION",
  "HOST_UI_CHANGED",
  "STEERING_UNAVAILABLE",
  "NOT_SIGNED_IN",
  "RATE_LIMITED",
  "USAGE_CAP",
  "CONVERSATION_TOO_LONG",
  "DEADLINE_EXCEEDED",
  "MESSAGE_DELIVERY_TIMEOUT",
  "SEND_IGNORED",
  "DRAFT_IN_COMPOSER",
] as const satisfies readonly ErrorCode[];
export type SubmitErrorCode = (typeof SUBMIT_ERROR_CODES)[number];

/**
 * The page state the adapter reports (state `error` with this code) while a tool-confirmation card in the newest turn
 * waits for a person: ChatGPT holds the turn until someone approves or denies it there. Nothing is submitted meanwhile
 * and the card is never clicked; the operator sees the worker as Needs you.
 */
export const AWAITING_APPROVAL = "AWAITING_APPROVAL" satisfies ErrorCode;

/** ChatGPT's rate limit and usage cap: reported by the page (with a reset time when it states one) and as refusals. */
export const RATE_LIMIT_CODES: ReadonlySet<string> = new Set<ErrorCode>(["RATE_LIMITED", "USAGE_CAP"]);

/**
 * A code on the wire. The type is the closed list; a reader maps a code it does not know (sent by a newer peer of the
 * same protocol version) to INTERNAL and keeps the message, so one new code never makes a whole message unreadable.
 */
export const errorCodeSchema = z.enum(ERROR_CODES).catch("INTERNAL");

export const errorSchema = z.object({ code: errorCodeSchema, message: z.string() }).strict();
export type ErrorPayload = z.infer<typeof errorSchema>;
