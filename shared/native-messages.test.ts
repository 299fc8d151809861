// Frozen fixtures of every native message, checked against the shared schemas both processes validate with.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_HANDOFF_BRIEF_CHARS } from "./handoff-block.ts";
import { extensionMessageSchema, hostMessageSchema } from "./native-messages.ts";

const fixtures = JSON.parse(
  readFileSync(join(import.meta.dirname, "fixtures", "native-messages.json"), "utf8"),
) as {
  extension: Record<string, unknown>;
  host: Record<string, unknown>;
};

const kindsOf = (schema: typeof extensionMessageSchema | typeof hostMessageSchema) =>
  schema.options.map((o) => o.shape.kind.value).sort();

describe("native message fixtures", () => {
  it("cover every message kind in each direction", () => {
    expect(Object.keys(fixtures.extension).sort()).toEqual(kindsOf(extensionMessageSchema));
    expect(Object.keys(fixtures.host).sort()).toEqual(kindsOf(hostMessageSchema));
  });

  it.each(Object.entries(fixtures.extension))("extension → host %s parses unchanged", (_kind, message) => {
    expect(extensionMessageSchema.parse(message)).toEqual(message);
  });

  it.each(Object.entries(fixtures.host))("host → extension %s parses unchanged", (_kind, message) => {
    expect(hostMessageSchema.parse(message)).toEqual(message);
  });

  it("rejects unknown fields, kinds and wrong types", () => {
    const hello = fixtures.extension.hello as Record<string, unknown>;
    expect(extensionMessageSchema.safeParse({ ...hello, extra: 1 }).success).toBe(false);
    expect(extensionMessageSchema.safeParse({ ...hello, kind: "helo" }).success).toBe(false);
    expect(extensionMessageSchema.safeParse({ ...hello, protocolVersion: "1" }).success).toBe(false);
    expect(hostMessageSchema.safeParse({ kind: "ui.changed", eventSeq: -1 }).success).toBe(false);
  });

  describe("conversation.state's turn-end fields (the rollover's brief and size)", () => {
    const idle = {
      kind: "conversation.state",
      workerId: "3f1c2d4e-1111-4222-8333-444455556666",
      state: "idle",
      seq: 1732900000003,
    };
    const parses = (extra: Record<string, unknown>) =>
      extensionMessageSchema.safeParse({ ...idle, ...extra }).success;

    it("carries a handoff brief and the conversation's visible length unchanged", () => {
      const message = { ...idle, handoffBrief: "done: x\nnext steps: y", visibleChars: 123_456 };
      expect(extensionMessageSchema.parse(message)).toEqual(message);
      expect(parses({ visibleChars: 0 })).toBe(true);
      expect(parses({ handoffBrief: "x".repeat(MAX_HANDOFF_BRIEF_CHARS) })).toBe(true);
    });

    it("refuses an empty or over-long brief", () => {
      expect(parses({ handoffBrief: "" })).toBe(false);
      expect(parses({ handoffBrief: "x".repeat(MAX_HANDOFF_BRIEF_CHARS + 1) })).toBe(false);
      expect(parses({ handoffBrief: 42 })).toBe(false);
    });

    it("refuses a negative, fractional or textual visible length", () => {
      expect(parses({ visibleChars: -1 })).toBe(false);
      expect(parses({ visibleChars: 1.5 })).toBe(false);
      expect(parses({ visibleChars: "12" })).toBe(false);
    });
  });
});
