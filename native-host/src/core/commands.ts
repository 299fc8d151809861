// Builds the executor command for an attempt; used when scheduling and when redelivering after a restart.
import type { CommandType, ExecutorCommand } from "./effects.ts";
import type { Attempt, Delivery, Worker } from "./model.ts";

export const COMMAND_TYPES: Readonly<Record<Delivery, CommandType>> = {
  create: "conversation.create",
  send: "conversation.send",
  steer: "conversation.steer",
};

export function commandFor(w: Worker, attempt: Attempt): ExecutorCommand {
  // A create goes to the worker's GPT or project page when it has one and no conversation yet.
  const url = w.conversation.url ?? (attempt.delivery === "create" ? w.startUrl : undefined);
  return {
    type: COMMAND_TYPES[attempt.delivery],
    commandId: attempt.commandId,
    idempotencyKey: attempt.idempotencyKey,
    executionId: attempt.id,
    runId: attempt.runId,
    workerId: attempt.workerId,
    ...(url ? { conversationUrl: url } : {}),
    deadlineAt: attempt.deadlineAt,
    prompt: {
      kind: attempt.promptKind,
      promptId: attempt.promptId,
      workerPath: w.path,
      attemptSeq: attempt.seq,
      reason: attempt.reason,
      wakeReasons: attempt.wakeReasons,
      texts: attempt.intent?.texts ?? [],
    },
  };
}

/** Commands still waiting for a result: after a restart they are offered again under the same id and key. */
export function pendingCommands(workers: Readonly<Record<string, Worker>>): ExecutorCommand[] {
  const out: ExecutorCommand[] = [];
  for (const w of Object.values(workers)) {
    if (w.current?.state === "scheduled") out.push(commandFor(w, w.current));
  }
  return out;
}
