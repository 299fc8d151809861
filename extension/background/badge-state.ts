// What the toolbar badge shows for a connection state and the workers that need a person: its text (at most three
// characters, which is what a toolbar badge fits), its colours and the tooltip in words (docs/extension.md, "Icon and
// pinning"). Pure, so the choice is tested apart from the browser API that applies it (ui-attention.ts).

export interface BadgeState {
  /** Empty hides the badge. */
  readonly text: string;
  readonly color: string;
  readonly textColor: string;
  readonly title: string;
}

export type BadgeInput =
  | { readonly connected: false; readonly status: string }
  | { readonly connected: true; readonly needsYou: number; readonly reasons: readonly string[] };

const TITLE = "ChatGPT Orchestrator";
/** Every badge colour carries white text at a contrast of at least 4.5:1 (red 6.5:1, grey 7.6:1). */
export const BADGE_COLORS = {
  needsYou: "#b91c1c",
  off: "#4b5563",
  /** Never seen (no text), set anyway so no colour from an earlier state lingers. */
  clear: "#4338ca",
  text: "#ffffff",
} as const;

/** The count as badge text: up to 99 as is, more as "99+" (a fourth character would be cut off). */
export function badgeCount(count: number): string {
  if (count <= 0) return "";
  return count > 99 ? "99+" : String(count);
}

export function badgeState(input: BadgeInput): BadgeState {
  if (!input.connected)
    return {
      text: "off",
      color: BADGE_COLORS.off,
      textColor: BADGE_COLORS.text,
      title: `${TITLE}: host not connected (${input.status})`,
    };
  const count = input.needsYou;
  if (count <= 0)
    return {
      text: "",
      color: BADGE_COLORS.clear,
      textColor: BADGE_COLORS.text,
      title: `${TITLE}: nothing needs you`,
    };
  // The tooltip says why in words (the badge's number and colour alone would not).
  return {
    text: badgeCount(count),
    color: BADGE_COLORS.needsYou,
    textColor: BADGE_COLORS.text,
    title: `${TITLE}: ${count} need${count === 1 ? "s" : ""} you (${input.reasons.join("; ")})`,
  };
}
