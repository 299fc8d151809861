// A worker's move to a new conversation in operator words (docs/ui.md, "Continue in a new conversation"): why it
// moved, where the brief came from, the line shown while a move is under way, one conversation of the chain and the
// timeline's rollover events. Pure: sizes and reasons only, never transcript text.
import type { ConversationLink, WorkerView } from "../../shared/operations/views.ts";
import { clockShort } from "./liveness-words.ts";

type Trigger = NonNullable<ConversationLink["trigger"]>;
type BriefSource = NonNullable<ConversationLink["brief"]>["source"];
type Rollover = NonNullable<WorkerView["rollover"]>;

const TRIGGER_WORDS: Record<Trigger, string> = {
  length_limit: "length limit reached",
  size_budget: "size budget reached",
  operator: "asked by you",
  agent: "asked by the worker",
};

/**
 * `page`: the worker answered the handoff request with its brief block; `agent`: it sent the brief itself with
 * worker_rollover; `composed`: the host wrote it from the worker's record (no answer, or the page could not answer).
 */
const BRIEF_WORDS: Record<BriefSource, string> = {
  page: "written by the worker",
  agent: "sent by the worker",
  composed: "composed from the worker's record",
};

const PHASE_WORDS: Record<Rollover["phase"], string> = {
  brief_requested: "asking for a handoff brief",
  opening: "opening the new conversation",
};

/** The confirmation of "Continue in a new conversation": what will happen, before anything does. */
export const NEW_CONVERSATION_QUESTION =
  "ChatGPT will be asked once for a handoff brief (if this conversation cannot answer, one is composed from the " +
  "worker's record); a new conversation opens where this one is and the work continues there; the old " +
  "conversation stays open, no longer managed.";

/** Why a worker moved (or is moving), in words; an unknown reason from a newer host is shown as it came. */
export function triggerWords(trigger: string): string {
  return (TRIGGER_WORDS as Record<string, string>)[trigger] ?? trigger.replace(/_/g, " ");
}

/** A number of characters, grouped for reading: "1,240 chars". */
export function chars(n: number): string {
  return `${n.toLocaleString("en-US")} chars`;
}

/** "written by the worker, 1,240 chars". */
export function briefWords(brief: { source: string; chars: number }): string {
  const source = (BRIEF_WORDS as Record<string, string>)[brief.source] ?? brief.source;
  return `${source}, ${chars(brief.chars)}`;
}

/** The reason with the operator's or worker's own note: `asked by you: "too slow"`. */
function why(trigger: string, note: string | null | undefined): string {
  return note ? `${triggerWords(trigger)}: “${note}”` : triggerWords(trigger);
}

/** "Moving to a new conversation: asking for a handoff brief (length limit reached)". */
export function rolloverLine(r: Rollover): string {
  return `Moving to a new conversation: ${PHASE_WORDS[r.phase]} (${why(r.trigger, r.note)})`;
}

/** What the live region adds to a worker's state while it moves: said once when the move starts and when it ends. */
export function movingSuffix(w: Pick<WorkerView, "rollover">): string {
  return w.rollover ? ", moving to a new conversation" : "";
}

/** "left 14:02 — length limit reached; brief: written by the worker, 1,240 chars"; null for the current one. */
export function leftWords(link: ConversationLink): string | null {
  if (link.leftAt === null) return null;
  const parts = [`left ${clockShort(link.leftAt)}`];
  if (link.trigger !== null) parts.push(` — ${why(link.trigger, link.note)}`);
  if (link.brief !== null) parts.push(`; brief: ${briefWords(link.brief)}`);
  return parts.join("");
}

/** "12 turns · 48,000 chars" (the visible text's length when last measured, if it was). */
export function sizeWords(link: ConversationLink): string {
  const turns = `${link.turns} turn${link.turns === 1 ? "" : "s"}`;
  return link.visibleChars === null ? turns : `${turns} · ${chars(link.visibleChars)}`;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * The timeline's words for the two rollover events (their data: trigger, note, phase, the new conversation's index,
 * the brief's source and size), or undefined for any other event.
 */
export function rolloverEventWords(
  type: string,
  data: Readonly<Record<string, unknown>>,
): string | undefined {
  const trigger = str(data.trigger);
  const reason = trigger === undefined ? "" : ` (${why(trigger, str(data.note))})`;
  if (type === "worker.rollover_requested") {
    const phase = str(data.phase);
    const briefChars = num(data.briefChars);
    const next = phase === "brief_requested" || phase === "opening" ? `: ${PHASE_WORDS[phase]}` : "";
    const brief =
      briefChars === undefined ? "" : `; brief ${briefWords({ source: "agent", chars: briefChars })}`;
    return `Move to a new conversation requested${reason}${next}${brief}`;
  }
  if (type === "worker.rolled_over") {
    const index = num(data.conversation);
    const source = str(data.briefSource);
    const briefChars = num(data.briefChars);
    const brief =
      source === undefined || briefChars === undefined
        ? ""
        : `; brief: ${briefWords({ source, chars: briefChars })}`;
    return `Moved to ${index === undefined ? "a new conversation" : `conversation ${index}`}${reason}${brief}`;
  }
  return undefined;
}
