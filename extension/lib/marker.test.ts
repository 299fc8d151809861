import { describe, expect, it } from "vitest";
import { commandMarker, embedMarker, MARKER_PREFIX, textHasMarker } from "./marker.ts";

describe("command marker", () => {
  it("is stable per command id, distinct between ids, short and plain ASCII", () => {
    const a = commandMarker("3f1c2d4e-1111-4222-8333-444455556666:2:cmd");
    expect(commandMarker("3f1c2d4e-1111-4222-8333-444455556666:2:cmd")).toBe(a);
    expect(a).toMatch(new RegExp(`^${MARKER_PREFIX}[0-9a-z]{16}$`));
    const many = new Set(Array.from({ length: 5_000 }, (_, i) => commandMarker(`worker:${i}:cmd`)));
    expect(many.size).toBe(5_000);
  });

  it("is appended as its own last line and found again", () => {
    const marker = commandMarker("c1");
    const text = embedMarker("Continue the assignment.\n\n", marker);
    expect(text).toBe(`Continue the assignment.\n\n[ref: ${marker}]`);
    expect(textHasMarker(text, marker)).toBe(true);
    expect(textHasMarker(text, commandMarker("c2"))).toBe(false);
  });
});
