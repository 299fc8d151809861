// Message and event operations (contracts in shared/operations/message.ts): worker inboxes and the durable event
// cursor (events_list, bounded events_wait).
import type { Immutable, OperationOutput } from "../../../shared/operations/index.ts";
import {
  EVENTS_LIST,
  EVENTS_WAIT,
  EVENTS_WAIT_MAX_MS,
  MESSAGE_ACK,
  MESSAGE_INBOX,
  MESSAGE_SEND,
} from "../../../shared/operations/message.ts";
import type { StoredEvent } from "../store/domain-repository.ts";
import { fail, ok } from "./context.ts";
import { applyInput, defineOperation } from "./registry.ts";

export { EVENTS_WAIT_MAX_MS } from "../../../shared/operations/message.ts";

export const messageSend = defineOperation(MESSAGE_SEND, (ctx, input) => {
  const id = ctx.newId();
  return applyInput(
    ctx,
    {
      type: "message.send",
      messageId: id,
      from: input.fromWorkerId ? { workerId: input.fromWorkerId } : "operator",
      toWorkerId: input.toWorkerId,
      body: input.body,
    },
    () => ({ messageId: id, seq: ctx.state.unread[id]?.seq ?? null }),
  );
});

export const messageInbox = defineOperation(MESSAGE_INBOX, (ctx, input) => {
  const w = ctx.state.workers[input.workerId];
  if (!w) return Promise.resolve(fail("NOT_FOUND", `no worker ${input.workerId}`));
  const messages = ctx.inbox(w.id, input.afterSeq ?? w.inboxReadSeq);
  return Promise.resolve(ok({ messages, lastSeq: w.inboxSeq, readSeq: w.inboxReadSeq }));
});

export const messageAck = defineOperation(MESSAGE_ACK, (ctx, input) =>
  applyInput(ctx, { type: "message.read", workerId: input.workerId, upToSeq: input.upToSeq }, () => ({
    readSeq: ctx.state.workers[input.workerId]?.inboxReadSeq ?? null,
  })),
);

export const eventsList = defineOperation(EVENTS_LIST, (ctx, input) => {
  const events = ctx.eventsAfter(input.cursor, input.limit ?? 100, filterOf(input));
  return Promise.resolve(ok({ events, cursor: events.at(-1)?.seq ?? input.cursor }));
});

export const eventsWait = defineOperation(EVENTS_WAIT, async (ctx, input) => {
  const deadline = ctx.now() + (input.timeoutMs ?? EVENTS_WAIT_MAX_MS);
  const limit = input.limit ?? 100;
  for (;;) {
    const events = ctx.eventsAfter(input.cursor, limit, filterOf(input));
    if (events.length > 0) return ok(wakeAnswer(events));
    // Events of other runs or workers move the global cursor but not this caller's.
    const remaining = deadline - ctx.now();
    if (remaining <= 0) return ok({ events: [], cursor: Math.max(input.cursor, 0), timedOut: true });
    await ctx.waitForEvent(ctx.lastEventSeq(), remaining);
  }
});

type WaitAnswer = Immutable<OperationOutput<"events_wait">>;

/**
 * The answer to one page of events, built once per page: one write wakes many waits that read the same page (the
 * MCP layer shares it between them), and a frozen value lets the layers above serialise it once for all of them.
 */
const wakeAnswers = new WeakMap<readonly StoredEvent[], WaitAnswer>();

function wakeAnswer(events: StoredEvent[]): WaitAnswer {
  let answer = wakeAnswers.get(events);
  if (answer === undefined) {
    answer = Object.freeze({ events, cursor: events.at(-1)!.seq, timedOut: false });
    wakeAnswers.set(events, answer);
  }
  return answer;
}

function filterOf(input: { runId?: string | undefined; workerId?: string | undefined }) {
  return {
    ...(input.runId ? { runId: input.runId } : {}),
    ...(input.workerId ? { workerId: input.workerId } : {}),
  };
}

export const MESSAGE_OPERATIONS = [messageSend, messageInbox, messageAck, eventsList, eventsWait];
