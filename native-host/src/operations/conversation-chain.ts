// A worker's chain of conversations (docs/operator-guide.md, "Rollover"): the ones it moved on from, oldest first, and
// the current one, with when and why each move happened. Read by worker views, provenance and the dashboard timeline.
import type { Immutable } from "../../../shared/operations/index.ts";
import type { ConversationLink, WorkerView } from "../../../shared/operations/views.ts";
import { conversationId } from "../core/adopt.ts";
import type { Worker } from "../core/model.ts";

function idOf(url: string | undefined): string | null {
  return url === undefined ? null : (conversationId(url) ?? null);
}

export function conversationChain(w: Worker): ConversationLink[] {
  const past = w.pastConversations ?? [];
  const links: ConversationLink[] = past.map((p, i) => ({
    index: i + 1,
    url: p.url ?? null,
    conversationId: idOf(p.url),
    leftAt: p.leftAt,
    trigger: p.trigger,
    note: p.note ?? null,
    turns: p.turns,
    visibleChars: p.visibleChars ?? null,
    brief: { source: p.briefSource, chars: p.briefChars },
  }));
  links.push({
    index: past.length + 1,
    url: w.conversation.url ?? null,
    conversationId: idOf(w.conversation.url),
    leftAt: null,
    trigger: null,
    note: null,
    turns: Math.max(0, (w.turns ?? 0) - (w.conversationTurnBase ?? 0)),
    visibleChars: w.conversation.visibleChars ?? null,
    brief: null,
  });
  return links;
}

/**
 * The worker view's conversation fields: the current id, the previous ids and a move under way. An ended worker shows
 * none: it may still hold a rollover whose create's result is on its way (to record the move), but nothing more goes.
 */
export function conversationFields(
  w: Worker,
): Pick<Immutable<WorkerView>, "conversationId" | "previousConversationIds" | "rollover"> {
  const r = w.status === "active" ? w.rollover : undefined;
  return {
    conversationId: idOf(w.conversation.url),
    previousConversationIds: (w.pastConversations ?? []).flatMap((p) => idOf(p.url) ?? []),
    rollover: r
      ? {
          phase: r.phase,
          trigger: r.trigger,
          note: r.note ?? null,
          since: r.requestedAt,
          briefDeadlineAt: r.briefDeadlineAt ?? null,
        }
      : null,
  };
}
