// Message and event tools: worker inboxes and the durable event cursor (events_list, bounded events_wait).
import { z } from "zod";
import type { StoredEvent } from "../store/domain-repository.ts";
import { fail, ok } from "./context.ts";
import { applyInput, defineOperation, READ_ONLY } from "./registry.ts";

/** events_wait never holds a request longer than this: it is a convenience, never a correctness dependency. */
export const EVENTS_WAIT_MAX_MS = 25_000;
const MAX_EVENTS = 500;

export const messageSend = defineOperation({
  name: "message_send",
  title: "Send message",
  description:
    "Puts a message in a worker's durable inbox (kept until read) and wakes it. Workers report to /root this way.",
  input: {
    toWorkerId: z.string().min(1),
    body: z.string().min(1).max(50_000),
    fromWorkerId: z.string().min(1).optional().describe("The sending worker; omit when a person sends it"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run(ctx, input) {
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
  },
});

export const messageInbox = defineOperation({
  name: "message_inbox",
  title: "Read inbox",
  description:
    "Returns a worker's messages after a sequence number (default: the unread ones). Does not mark them read.",
  input: { workerId: z.string().min(1), afterSeq: z.number().int().nonnegative().optional() },
  annotations: READ_ONLY,
  run(ctx, input) {
    const w = ctx.state.workers[input.workerId];
    if (!w) return Promise.resolve(fail("NOT_FOUND", `no worker ${input.workerId}`));
    const messages = ctx.inbox(w.id, input.afterSeq ?? w.inboxReadSeq);
    return Promise.resolve(ok({ messages, lastSeq: w.inboxSeq, readSeq: w.inboxReadSeq }));
  },
});

export const messageAck = defineOperation({
  name: "message_ack",
  title: "Mark messages read",
  description: "Marks a worker's messages up to a sequence number as read.",
  input: { workerId: z.string().min(1), upToSeq: z.number().int().positive() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(ctx, input) {
    return applyInput(
      ctx,
      { type: "message.read", workerId: input.workerId, upToSeq: input.upToSeq },
      () => ({
        readSeq: ctx.state.workers[input.workerId]?.inboxReadSeq ?? null,
      }),
    );
  },
});

const eventQuery = {
  cursor: z
    .number()
    .int()
    .nonnegative()
    .describe("Return events after this sequence number (0 = from the start)"),
  runId: z.string().optional(),
  workerId: z.string().optional(),
  limit: z.number().int().min(1).max(MAX_EVENTS).optional(),
};

export const eventsList = defineOperation({
  name: "events_list",
  title: "List events",
  description:
    "Returns durable events after a cursor, oldest first. Use the returned cursor for the next call.",
  input: eventQuery,
  annotations: READ_ONLY,
  run(ctx, input) {
    const events = ctx.eventsAfter(input.cursor, input.limit ?? 100, filterOf(input));
    return Promise.resolve(ok({ events, cursor: events.at(-1)?.seq ?? input.cursor }));
  },
});

export const eventsWait = defineOperation({
  name: "events_wait",
  title: "Wait for events",
  description:
    "Returns events after a cursor, waiting up to timeoutMs (at most 25 s) for the first one. Call it again with the returned cursor; nothing is lost between calls.",
  input: { ...eventQuery, timeoutMs: z.number().int().min(0).max(EVENTS_WAIT_MAX_MS).optional() },
  annotations: READ_ONLY,
  async run(ctx, input) {
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
  },
});

/**
 * The answer to one page of events, built once per page: one write wakes many waits that read the same page (the
 * MCP layer shares it between them), and a frozen value lets the layers above serialise it once for all of them.
 */
const wakeAnswers = new WeakMap<readonly StoredEvent[], Readonly<Record<string, unknown>>>();

function wakeAnswer(events: StoredEvent[]): Readonly<Record<string, unknown>> {
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
