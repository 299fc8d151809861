// The toolbar badge's choice: "off" in grey while the host is not connected, the count of workers that need a person
// in red, nothing otherwise; white text on every colour, never more than three characters.
import { describe, expect, it } from "vitest";
import { badgeCount, badgeState } from "./badge-state.ts";

/** WCAG relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe("badgeState", () => {
  it("says off in grey while the host is not connected, with the status in the tooltip", () => {
    expect(badgeState({ connected: false, status: "host-not-installed" })).toEqual({
      text: "off",
      color: "#4b5563",
      textColor: "#ffffff",
      title: "ChatGPT Orchestrator: host not connected (host-not-installed)",
    });
  });

  it("counts the workers that need a person in red, naming the reasons", () => {
    expect(
      badgeState({ connected: true, needsYou: 2, reasons: ["Signed out of ChatGPT", "Stalled"] }),
    ).toEqual({
      text: "2",
      color: "#b91c1c",
      textColor: "#ffffff",
      title: "ChatGPT Orchestrator: 2 need you (Signed out of ChatGPT; Stalled)",
    });
    expect(badgeState({ connected: true, needsYou: 1, reasons: ["Needs your answer"] }).title).toBe(
      "ChatGPT Orchestrator: 1 needs you (Needs your answer)",
    );
  });

  it("shows nothing when nothing needs a person", () => {
    const state = badgeState({ connected: true, needsYou: 0, reasons: [] });
    expect(state.text).toBe("");
    expect(state.title).toBe("ChatGPT Orchestrator: nothing needs you");
  });

  it("keeps every text to three characters and readable on its colour", () => {
    expect([0, 1, 9, 10, 99, 100, 12345].map(badgeCount)).toEqual(["", "1", "9", "10", "99", "99+", "99+"]);
    const states = [
      badgeState({ connected: false, status: "reconnecting" }),
      ...[1, 42, 100, 1000].map((n) => badgeState({ connected: true, needsYou: n, reasons: ["x"] })),
    ];
    for (const s of states) {
      expect(s.text.length, s.text).toBeLessThanOrEqual(3);
      expect(contrast(s.color, s.textColor), `${s.textColor} on ${s.color}`).toBeGreaterThanOrEqual(4.5);
    }
  });
});
