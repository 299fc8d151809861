import { describe, expect, it } from "vitest";
import {
  carriesAnyMarkerLine,
  commandMarker,
  embedMarker,
  MARKER_PREFIX,
  markerLine,
  textHasMarker,
} from "./marker.ts";

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

describe("any command's marker line (telling a leftover of ours from a person's draft)", () => {
  it("is found as a line of its own, whichever command it belongs to", () => {
    expect(carriesAnyMarkerLine(embedMarker("An earlier prompt.", commandMarker("earlier")))).toBe(true);
    expect(carriesAnyMarkerLine(`${markerLine(commandMarker("x"))}  \nmore below`)).toBe(true);
  });

  it("is not found inside other words, in another shape, or without one", () => {
    expect(carriesAnyMarkerLine(`see ${markerLine(commandMarker("x"))} above`)).toBe(false);
    expect(carriesAnyMarkerLine("[ref: orc-short]")).toBe(false);
    expect(carriesAnyMarkerLine(`[ref: ${commandMarker("x").toUpperCase()}]`)).toBe(false);
    expect(carriesAnyMarkerLine("my own half-written question")).toBe(false);
  });
});
