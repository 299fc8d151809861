// The command journal (docs/extension.md, "Journal phases and recovery"): one record per command the host sent,
// advanced through its phases by a pure state machine. It is the executor's memory across restarts: what the host
// has not been told yet is told in the next `hello`. Stored by the command runner (command-runner.ts).
import type { JournalPhase } from "../../shared/executor-states.ts";
import type { CommandMessage } from "../../shared/native-messages.ts";

/**
 * received → submission-started → submitted → completed, or → failed from the first two.
 * - `received`: stored (with the prompt) and acknowledged; nothing typed yet.
 * - `submission-started`: the content script was asked to submit; delivery is unknown until it answers.
 * - `submitted`: the page accepted the prompt; the host has not been told yet.
 * - `completed`: the host was sent `command.result` (submitted).
 * - `failed`: ended with an error code (`resultSent` tells whether the host was told).
 */
export type { JournalPhase };

const NEXT: Readonly<Record<JournalPhase, readonly JournalPhase[]>> = {
  received: ["submission-started", "failed"],
  "submission-started": ["submitted", "failed"],
  submitted: ["completed"],
  completed: [],
  failed: [],
};

export interface JournalEntry {
  readonly commandId: string;
  readonly workerId: string;
  readonly type: CommandMessage["type"];
  readonly idempotencyKey: string;
  readonly executionId: string;
  readonly runId: string;
  readonly deadlineAt: number;
  readonly conversationUrl?: string;
  readonly marker: string;
  readonly phase: JournalPhase;
  /** Kept only while `received`: deleted the moment submission starts (and never stored after). */
  readonly prompt?: { readonly promptId: string; readonly text: string };
  /** The tab the submission went to (set at submission-started). */
  readonly tabId?: number;
  /** The conversation URL the page reported with the submission. */
  readonly url?: string;
  readonly errorCode?: string;
  readonly detail?: string;
  /** The host was told the outcome (`command.result`, or the phase in a `hello` it answered). */
  readonly resultSent: boolean;
  readonly receivedAt: number;
  readonly updatedAt: number;
  readonly submissionStartedAt?: number;
  readonly submittedAt?: number;
  readonly finishedAt?: number;
}

export function isTerminal(phase: JournalPhase): boolean {
  return phase === "completed" || phase === "failed";
}

export function canAdvance(from: JournalPhase, to: JournalPhase): boolean {
  return NEXT[from].includes(to);
}

export class JournalTransitionError extends Error {
  constructor(
    readonly commandId: string,
    readonly from: JournalPhase,
    readonly to: JournalPhase,
  ) {
    super(`journal ${commandId}: ${from} → ${to} is not a valid transition`);
    this.name = "JournalTransitionError";
  }
}

export function newEntry(command: CommandMessage, marker: string, now: number): JournalEntry {
  return {
    commandId: command.commandId,
    workerId: command.workerId,
    type: command.type,
    idempotencyKey: command.idempotencyKey,
    executionId: command.executionId,
    runId: command.runId,
    deadlineAt: command.deadlineAt,
    ...(command.conversationUrl !== undefined ? { conversationUrl: command.conversationUrl } : {}),
    marker,
    phase: "received",
    prompt: { promptId: command.prompt.promptId, text: command.prompt.text },
    resultSent: false,
    receivedAt: now,
    updatedAt: now,
  };
}

export interface AdvancePatch {
  readonly tabId?: number;
  readonly url?: string;
  readonly errorCode?: string;
  readonly detail?: string;
  readonly resultSent?: boolean;
}

/** The entry after moving to `to` (pure). Throws `JournalTransitionError` for a move the machine forbids. */
export function advance(
  entry: JournalEntry,
  to: JournalPhase,
  patch: AdvancePatch,
  now: number,
): JournalEntry {
  if (!canAdvance(entry.phase, to)) throw new JournalTransitionError(entry.commandId, entry.phase, to);
  const { prompt: _dropped, ...rest } = entry;
  const next: JournalEntry = {
    // The prompt is needed only to start the submission; from then on it is never resent, so never kept.
    ...(to === "failed" || to === "submission-started" ? rest : entry),
    ...patch,
    phase: to,
    updatedAt: now,
    ...(to === "submission-started" ? { submissionStartedAt: now } : {}),
    ...(to === "submitted" ? { submittedAt: now } : {}),
    ...(isTerminal(to) ? { finishedAt: now } : {}),
    ...(to === "completed" ? { resultSent: true } : {}),
  };
  return next;
}

/** The phase the host is told in `hello` (docs/extension.md, "Journal phases and recovery"; docs/host.md). */
export function helloPhase(entry: JournalEntry, inFlightHere: boolean): JournalPhase {
  // A submission this very process is still carrying out is not ambiguous: the host is told the executor still
  // holds it ("received": it waits for the result), which follows the moment the page answers.
  if (entry.phase === "submission-started" && inFlightHere) return "received";
  return entry.phase;
}

/** Entries the host must hear about in `hello`: unfinished ones and failures it was not told of. */
export function needsReport(entry: JournalEntry): boolean {
  if (entry.phase === "completed") return false;
  if (entry.phase === "failed") return !entry.resultSent;
  return true;
}
