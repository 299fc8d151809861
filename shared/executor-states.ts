// The closed lists the executor protocol speaks in, as zod enums: a conversation's observed state, where a worker's
// conversation is open, a command's journal phase and a command's type. Every other place derives its type from these.
import { z } from "zod";

/** What the page adapter observes a conversation doing. */
export const conversationStateSchema = z.enum(["ready", "generating", "idle", "error", "closed"]);
export type ConversationState = z.infer<typeof conversationStateSchema>;

/** The host's view of a conversation: what the browser last observed, or `unknown` before it said anything. */
export const trackedConversationStateSchema = z.enum(["unknown", ...conversationStateSchema.options]);
export type TrackedConversationState = z.infer<typeof trackedConversationStateSchema>;

/**
 * Where the worker's conversation is open in this browser (docs/extension.md, "Bindings"): `bound` (a tab shows it),
 * `detached` (no tab shows it now; the browser reopens it in a background tab for the next command), `closed` (no tab
 * shows it and reopening is turned off: a person reopens it), `unavailable` (lost and not recoverable by itself).
 */
export const bindingStateSchema = z.enum(["bound", "detached", "unavailable", "closed"]);
export type BindingState = z.infer<typeof bindingStateSchema>;

/** The host's view of a binding: as the browser reported it, or `none` before any browser held the worker. */
export const trackedBindingStateSchema = z.enum(["none", ...bindingStateSchema.options]);
export type TrackedBindingState = z.infer<typeof trackedBindingStateSchema>;

/**
 * A command's phase in the extension's durable journal (docs/extension.md): received, the submission started (from
 * here a crash leaves delivery unknown), submitted, then completed or failed.
 */
export const journalPhaseSchema = z.enum([
  "received",
  "submission-started",
  "submitted",
  "completed",
  "failed",
]);
export type JournalPhase = z.infer<typeof journalPhaseSchema>;

/** What a command asks the executor to do: open a new chat, send when idle, or steer a generating turn. */
export const commandTypeSchema = z.enum(["conversation.create", "conversation.send", "conversation.steer"]);
export type CommandType = z.infer<typeof commandTypeSchema>;
