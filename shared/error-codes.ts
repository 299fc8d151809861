// String error codes that cross a process boundary ({ code, message }), shared by host, extension and MCP.
import { z } from "zod";

/** Executor failures (architecture §7) and the host's own refusals. */
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
  // Executor: a command the host withdrew (spec 21.3) before its submission started; it was never sent.
  "CANCELLED",
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
  "FORBIDDEN",
  // Host: a peer on the owner's IPC socket did not open with the secret from ipc.secret (it is refused and closed).
  "IPC_UNAUTHENTICATED",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The page state the adapter reports (state `error` with this code) while a tool-confirmation card in the newest turn
 * waits for a person: ChatGPT holds the turn until someone approves or denies it there (research §7). Nothing is
 * submitted meanwhile and the card is never clicked; the operator sees the worker as Needs you.
 */
export const AWAITING_APPROVAL = "AWAITING_APPROVAL";

/** ChatGPT's rate limit and usage cap: reported by the page (with a reset time when it states one) and as refusals. */
export const RATE_LIMIT_CODES: ReadonlySet<string> = new Set(["RATE_LIMITED", "USAGE_CAP"]);

export const errorSchema = z.object({ code: z.string().min(1), message: z.string() }).strict();
export type ErrorPayload = z.infer<typeof errorSchema>;
