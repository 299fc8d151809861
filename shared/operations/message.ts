// Message and event operations: worker inboxes and the durable event cursor (events_list, bounded events_wait).
import { z } from "zod";
import { READ_ONLY, write } from "./annotations.ts";
import { defineContract } from "./contract.ts";
import { eventViewSchema, messageViewSchema } from "./records.ts";

/** events_wait never holds a request longer than this: it is a convenience, never a correctness dependency. */
export const EVENTS_WAIT_MAX_MS = 25_000;
/** The most events one call returns. */
export const MAX_EVENTS = 500;

export const MESSAGE_SEND = defineContract({
  name: "message_send",
  title: "Send message",
  description:
    "Puts a message in a worker's durable inbox (kept until read) and wakes it. Workers report to /root this way.",
  input: {
    toWorkerId: z.string().min(1),
    body: z.string().min(1).max(50_000),
    fromWorkerId: z.string().min(1).optional().describe("The sending worker; omit when a person sends it"),
  },
  output: z.object({ messageId: z.string(), seq: z.number().nullable() }),
  annotations: write({ destructive: false, idempotent: false }),
  ui: "none",
});

export const MESSAGE_INBOX = defineContract({
  name: "message_inbox",
  title: "Read inbox",
  description:
    "Returns a worker's messages after a sequence number (default: the unread ones). Does not mark them read.",
  input: { workerId: z.string().min(1), afterSeq: z.number().int().nonnegative().optional() },
  output: z.object({ messages: z.array(messageViewSchema), lastSeq: z.number(), readSeq: z.number() }),
  annotations: READ_ONLY,
  ui: "none",
});

export const MESSAGE_ACK = defineContract({
  name: "message_ack",
  title: "Mark messages read",
  description: "Marks a worker's messages up to a sequence number as read.",
  input: { workerId: z.string().min(1), upToSeq: z.number().int().positive() },
  output: z.object({ readSeq: z.number().nullable() }),
  annotations: write({ destructive: false, idempotent: true }),
  ui: "none",
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

/** A page of events and the cursor to ask from next. */
const eventPage = z.object({ events: z.array(eventViewSchema), cursor: z.number().int().nonnegative() });

export const EVENTS_LIST = defineContract({
  name: "events_list",
  title: "List events",
  description:
    "Returns durable events after a cursor, oldest first. Use the returned cursor for the next call.",
  input: eventQuery,
  output: eventPage,
  annotations: READ_ONLY,
  ui: "pages",
});

export const EVENTS_WAIT = defineContract({
  name: "events_wait",
  title: "Wait for events",
  description:
    "Returns events after a cursor, waiting up to timeoutMs (at most 25 s) for the first one. Call it again with the returned cursor; nothing is lost between calls.",
  input: { ...eventQuery, timeoutMs: z.number().int().min(0).max(EVENTS_WAIT_MAX_MS).optional() },
  output: eventPage.extend({ timedOut: z.boolean() }),
  annotations: READ_ONLY,
  ui: "none",
});

export const MESSAGE_CONTRACTS = [
  MESSAGE_SEND,
  MESSAGE_INBOX,
  MESSAGE_ACK,
  EVENTS_LIST,
  EVENTS_WAIT,
] as const;
