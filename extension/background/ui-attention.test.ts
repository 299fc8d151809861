// One announcement per episode of a worker needing a person: a question, a tool card in a new turn, a stall.
import { describe, expect, it } from "vitest";
import { NOW, worker } from "../../test/extension/ui-kit.ts";
import { attentionKey } from "./ui-attention.ts";

describe("attentionKey", () => {
  it("keys a question by its request time, a tool card by its turn, and says nothing for Working", () => {
    expect(attentionKey(worker("Needs you"))).toBe(`human:w-needs-you:${NOW - 1000}`);
    const card = (seq: number) =>
      worker("Needs you", {
        wait: null,
        attempt: { seq, reason: "auto_resume", state: "failed" },
        conversation: { ...worker("Needs you").conversation, state: "error", errorCode: "AWAITING_APPROVAL" },
      });
    expect(attentionKey(card(4))).toBe("approval:w-needs-you:4");
    expect(attentionKey(card(5))).not.toBe(attentionKey(card(4)));
    expect(attentionKey(worker("Stalled"))).toBe(`stall:w-stalled:${NOW - 500}`);
    expect(attentionKey(worker("Working"))).toBeUndefined();
  });
});
