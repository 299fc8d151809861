// Effects the core asks the outside world to carry out, as data; applied only after the transaction is durable.
import type { CommandType } from "../../../shared/executor-states.ts";
import type { DomainEvent } from "./events.ts";
import type { AttemptReason, PromptKind } from "./model.ts";

export type { CommandType };

export interface PromptRequest {
  readonly kind: PromptKind;
  /** Versioned template id chosen when the attempt was scheduled (stored on the attempt). */
  readonly promptId?: string;
  readonly workerPath: string;
  readonly attemptSeq: number;
  readonly reason: AttemptReason;
  readonly wakeReasons: readonly string[];
  /** Follow-up, human answer or corrective texts to include verbatim. */
  readonly texts: readonly string[];
}

/** The text a command delivers and the template version it came from; rendered by the core, never stored. */
export interface RenderedPrompt {
  readonly promptId: string;
  readonly text: string;
}

export interface ExecutorCommand {
  readonly type: CommandType;
  readonly commandId: string;
  /** Stable for the execution attempt, so a redelivered command is recognised by the executor's journal. */
  readonly idempotencyKey: string;
  readonly executionId: string;
  readonly runId: string;
  readonly workerId: string;
  readonly conversationUrl?: string;
  readonly deadlineAt: number;
  /** What the turn asks for and why (kind, reason, wake reasons): the record's terms, not the text. */
  readonly prompt: PromptRequest;
  /** What the executor types: rendered from `prompt` when the command is built, so the bridge sends it as is. */
  readonly rendered: RenderedPrompt;
}

export type Effect =
  | { readonly kind: "event"; readonly event: DomainEvent }
  | { readonly kind: "command"; readonly command: ExecutorCommand }
  /** Ask the executor to drop a command it has not started submitting (the worker ended meanwhile). */
  | { readonly kind: "cancel_command"; readonly workerId: string; readonly commandId: string }
  /** The single timer the engine keeps: the earliest deadline in the state, or none. */
  | { readonly kind: "timer"; readonly at: number | null };
