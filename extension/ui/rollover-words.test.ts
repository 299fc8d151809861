// The words of a move to a new conversation: the line while it is under way, one conversation of the chain (when,
// why, which brief, how big) and the timeline's two rollover events, whatever the events' data holds.
import { describe, expect, it } from "vitest";
import type { ConversationLink } from "../../shared/operations/views.ts";
import { eventLine } from "./format.ts";
import { clockShort } from "./liveness-words.ts";
import { briefWords, leftWords, rolloverLine, sizeWords, triggerWords } from "./rollover-words.ts";

const AT_1402 = new Date(2026, 5, 1, 14, 2, 0).getTime();

function link(over: Partial<ConversationLink> = {}): ConversationLink {
  return {
    index: 1,
    url: "https://chatgpt.com/c/6800f3a1-0000-8000-9000-000000000001",
    conversationId: "6800f3a1-0000-8000-9000-000000000001",
    leftAt: AT_1402,
    trigger: "length_limit",
    note: null,
    turns: 12,
    visibleChars: 48_000,
    brief: { source: "page", chars: 1_240 },
    ...over,
  };
}

describe("rollover words", () => {
  it("says each trigger and each brief source in words", () => {
    expect(["length_limit", "size_budget", "operator", "agent"].map(triggerWords)).toEqual([
      "length limit reached",
      "size budget reached",
      "asked by you",
      "asked by the worker",
    ]);
    expect(briefWords({ source: "page", chars: 1_240 })).toBe("written by the worker, 1,240 chars");
    expect(briefWords({ source: "agent", chars: 80 })).toBe("sent by the worker, 80 chars");
    expect(briefWords({ source: "composed", chars: 3_002 })).toBe(
      "composed from the worker's record, 3,002 chars",
    );
  });

  it("the line while a move is under way names the phase and why", () => {
    const r = { trigger: "length_limit", note: null, since: 0, briefDeadlineAt: 600_000 } as const;
    expect(rolloverLine({ ...r, phase: "brief_requested" })).toBe(
      "Moving to a new conversation: asking for a handoff brief (length limit reached)",
    );
    expect(rolloverLine({ ...r, phase: "opening", trigger: "agent", note: "context is slow" })).toBe(
      "Moving to a new conversation: opening the new conversation (asked by the worker: “context is slow”)",
    );
  });

  it("a conversation of the chain: when and why it was left, the brief, its turns and size", () => {
    expect(leftWords(link())).toBe(
      `left ${clockShort(AT_1402)} — length limit reached; brief: written by the worker, 1,240 chars`,
    );
    expect(leftWords(link({ trigger: "operator", note: "start fresh", brief: null }))).toBe(
      `left ${clockShort(AT_1402)} — asked by you: “start fresh”`,
    );
    expect(leftWords(link({ leftAt: null, trigger: null, brief: null }))).toBeNull();
    expect(sizeWords(link())).toBe("12 turns · 48,000 chars");
    expect(sizeWords(link({ turns: 1, visibleChars: null }))).toBe("1 turn");
  });

  it("the timeline says the rollover events in words, and any other event by its type", () => {
    expect(
      eventLine({
        type: "worker.rollover_requested",
        data: { trigger: "length_limit", phase: "brief_requested" },
      }),
    ).toBe("Move to a new conversation requested (length limit reached): asking for a handoff brief");
    expect(
      eventLine({
        type: "worker.rollover_requested",
        data: { trigger: "agent", phase: "opening", note: "too slow", briefChars: 900 },
      }),
    ).toBe(
      "Move to a new conversation requested (asked by the worker: “too slow”): opening the new conversation; brief sent by the worker, 900 chars",
    );
    expect(
      eventLine({
        type: "worker.rolled_over",
        data: {
          trigger: "operator",
          from: "https://chatgpt.com/c/a",
          to: "https://chatgpt.com/c/b",
          conversation: 3,
          briefSource: "composed",
          briefChars: 2_100,
        },
      }),
    ).toBe("Moved to conversation 3 (asked by you); brief: composed from the worker's record, 2,100 chars");
    // Data from another version of the host: what can be read is said, nothing breaks.
    expect(eventLine({ type: "worker.rolled_over", data: { conversation: "3", briefSource: 7 } })).toBe(
      "Moved to a new conversation",
    );
    expect(eventLine({ type: "execution.submitted", data: {} })).toBe("execution submitted");
  });
});
