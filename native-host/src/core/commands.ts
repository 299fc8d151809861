// Builds the executor command for an attempt, its prompt rendered: when scheduling and when offering it again after a
// restart or a reconnect. The rendered text lives only in the command (memory and the wire), never in the store.
import type { CommandType, ExecutorCommand, PromptRequest } from "./effects.ts";
import type { Attempt, Delivery, DomainState, Worker } from "./model.ts";
import { type PromptContext, promptContextOf, renderCommandPrompt } from "./prompts/render.ts";

export const COMMAND_TYPES: Readonly<Record<Delivery, CommandType>> = {
  create: "conversation.create",
  send: "conversation.send",
  steer: "conversation.steer",
};

export function commandFor(w: Worker, attempt: Attempt, ctx: PromptContext): ExecutorCommand {
  // A create goes to the worker's GPT or project page when it has one: the first conversation's, or, moving on, the
  // page the old conversation was in (never the old conversation itself).
  const create = attempt.delivery === "create";
  const url =
    create && w.rollover ? w.rollover.startUrl : (w.conversation.url ?? (create ? w.startUrl : undefined));
  const prompt: PromptRequest = {
    kind: attempt.promptKind,
    promptId: attempt.promptId,
    workerPath: w.path,
    attemptSeq: attempt.seq,
    reason: attempt.reason,
    wakeReasons: attempt.wakeReasons,
    texts: attempt.intent?.texts ?? [],
  };
  return {
    type: COMMAND_TYPES[attempt.delivery],
    commandId: attempt.commandId,
    idempotencyKey: attempt.idempotencyKey,
    executionId: attempt.id,
    runId: attempt.runId,
    workerId: attempt.workerId,
    ...(url ? { conversationUrl: url } : {}),
    deadlineAt: attempt.deadlineAt,
    prompt,
    rendered: renderCommandPrompt(prompt, ctx),
  };
}

/** Commands still waiting for a result: after a restart they are offered again under the same id and key. */
export function pendingCommands(state: DomainState): ExecutorCommand[] {
  const out: ExecutorCommand[] = [];
  for (const w of Object.values(state.workers)) {
    const ctx = w.current?.state === "scheduled" ? promptContextOf(state, w) : undefined;
    if (w.current && ctx) out.push(commandFor(w, w.current, ctx));
  }
  return out;
}
