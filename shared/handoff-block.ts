// The handoff brief block a worker writes when asked to move to a new conversation (docs/continuation-core.md,
// "Rollover"): its canonical lines for the prompts and the skill, and the parser the page adapter runs at a turn's end.
// Shared because the host renders the lines into the request and the extension reads the answer.

/** A brief longer than this is cut: it must fit the new conversation's first prompt with the contract around it. */
export const MAX_HANDOFF_BRIEF_CHARS = 8_000;

export const HANDOFF_BEGIN = "BEGIN HANDOFF BRIEF";
export const HANDOFF_END = "END HANDOFF BRIEF";

/** The block exactly as the request and the skill show it. */
export const HANDOFF_BLOCK_LINES: readonly string[] = [
  HANDOFF_BEGIN,
  "done: what is finished, with where it is (commits, files, links)",
  "next steps: the precise next actions, in order",
  "decisions: choices made and why, so they are not reopened",
  "open questions: what is still undecided or unknown",
  "files touched: paths, branches or worktrees changed",
  HANDOFF_END,
];

/** A delimiter line, tolerating markdown emphasis, heading marks and a trailing colon around the words. */
function delimiter(words: string): RegExp {
  return new RegExp(
    `^\\s{0,3}(?:#{1,6}\\s+)?[*_\`]*${words.replace(/ /g, "\\s+")}[*_\`]*:?[*_\`]*\\s*$`,
    "i",
  );
}

const BEGIN = delimiter(HANDOFF_BEGIN);
const END = delimiter(HANDOFF_END);
const QUOTE = /^\s{0,3}>/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/**
 * The text of the last complete handoff block in an answer (between its BEGIN and END lines, fence lines dropped),
 * cut to MAX_HANDOFF_BRIEF_CHARS; undefined when there is none or it is empty. A block inside a `>` quote never counts.
 */
export function parseHandoffBlock(answer: string): string | undefined {
  const lines = answer.split(/\r?\n/);
  let end = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (QUOTE.test(line)) continue;
    // An END nearer the BEGIN above it closes that block: a stray END after it is not part of the brief.
    if (END.test(line)) {
      end = i;
      continue;
    }
    if (end < 0 || !BEGIN.test(line)) continue;
    const body = lines
      .slice(i + 1, end)
      .filter((l) => !FENCE.test(l))
      .join("\n")
      .trim();
    return body === "" ? undefined : cut(body, MAX_HANDOFF_BRIEF_CHARS);
  }
  return undefined;
}

/** The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair (an emoji). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
