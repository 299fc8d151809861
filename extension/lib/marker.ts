// The per-command marker: the one place that defines how a command is recognisable in the conversation, so the
// background (which embeds it) and the page adapter (which proves a submission by finding it) agree.
//
// It is a short visible reference line at the end of the prompt, not an invisible (zero-width) token: ChatGPT and
// the adapter's own composer read-back normalise zero-width characters away, and a marker that may vanish can
// never prove anything. A reference line is harmless to the model and survives copy, render and reload.

/** Every marker starts with this; nothing else in our prompts does. */
export const MARKER_PREFIX = "orc-";

/** FNV-1a (32-bit) over UTF-16 code units, seeded. */
function fnv1a(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The marker of a command: stable for a command id, 16 lowercase base-36 characters after the prefix. */
export function commandMarker(commandId: string): string {
  const a = fnv1a(commandId, 0x811c9dc5).toString(36).padStart(7, "0");
  const b = fnv1a(commandId, 0x9747b28c).toString(36).padStart(7, "0");
  const c = fnv1a(`${commandId}#`, 0x2f6b1a3d).toString(36).padStart(7, "0");
  return `${MARKER_PREFIX}${(a + b + c).slice(0, 16)}`;
}

/** The line appended to the prompt. */
export function markerLine(marker: string): string {
  return `[ref: ${marker}]`;
}

/** The prompt as submitted: the text, a blank line, the marker line. */
export function embedMarker(text: string, marker: string): string {
  return `${text.replace(/\s+$/u, "")}\n\n${markerLine(marker)}`;
}

/** Whether a message's text carries the marker. */
export function textHasMarker(text: string, marker: string): boolean {
  return text.includes(marker);
}

/** A marker line of any command, alone on its line (only spaces around it), as `markerLine` writes it. */
const ANY_MARKER_LINE = new RegExp(`^[ \\t]*\\[ref: ${MARKER_PREFIX}[0-9a-z]{16}\\][ \\t]*$`, "m");

/**
 * Whether `text` carries the marker line of some command: a composer draft that does is a leftover of one of our
 * earlier submissions (ours to replace); one that does not is a person's, never touched (docs/adapter.md).
 */
export function carriesAnyMarkerLine(text: string): boolean {
  return ANY_MARKER_LINE.test(text);
}
