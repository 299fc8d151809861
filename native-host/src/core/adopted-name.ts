// The name and path of an adopted conversation's worker: named after the conversation's title as the page shows it,
// else after the first words of the objective typed at adoption, else after the conversation's id, so two adopted
// workers never look alike in the popup or the dashboard. The title is a short name, not transcript text.

/**
 * The longest name taken from a conversation title. It is stored as the worker's name (docs/privacy.md: names and
 * objectives are kept, conversation text is not), so it stays a name: one line, at most this long.
 */
export const TITLE_NAME_MAX = 80;
/** A name made from the objective: its first words, a short line. */
const OBJECTIVE_WORDS = 6;
const OBJECTIVE_CHARS = 48;
/** What ChatGPT shows for a conversation it has not named yet: not a name. */
const UNTITLED = new Set(["chatgpt", "new chat"]);
/** A path segment made from a name: short, and valid for worker paths (`[a-z0-9][a-z0-9._-]*`). */
const SEGMENT_CHARS = 40;

/** One line: runs of white space (new lines too) become one space; control characters go. */
function oneLine(text: string | undefined): string {
  return (text ?? "")
    .replace(/\p{Cc}/gu, " ")
    .replace(/\s+/gu, " ")
    .trim();
}

/** `text` within `maxWords` words and `maxChars` characters, cut after a whole word, with "…" when cut. */
export function shorten(text: string, maxChars: number, maxWords = Number.POSITIVE_INFINITY): string {
  const words = text.split(" ");
  if (words.length <= maxWords && text.length <= maxChars) return text;
  let kept = "";
  for (const word of words.slice(0, maxWords)) {
    const next = kept === "" ? word : `${kept} ${word}`;
    if (next.length > maxChars - 1) break; // room for the ellipsis
    kept = next;
  }
  kept = kept.replace(/[\s,;:.!?–—-]+$/u, "");
  // One word longer than the whole name: cut inside it.
  if (kept === "") kept = text.slice(0, maxChars - 1);
  return `${kept}…`;
}

/**
 * The adopted worker's name: the conversation's title (at most 80 characters), else the objective's first words
 * (at most six, 48 characters), else `conversation <first 8 characters of its id>`.
 */
export function adoptedName(
  title: string | undefined,
  objective: string | undefined,
  conversationId: string,
): string {
  const named = oneLine(title);
  if (named !== "" && !UNTITLED.has(named.toLowerCase())) return shorten(named, TITLE_NAME_MAX);
  const aim = oneLine(objective);
  if (aim !== "") return shorten(aim, OBJECTIVE_CHARS, OBJECTIVE_WORDS);
  return `conversation ${conversationId.slice(0, 8)}`;
}

/** A worker path segment for a name: lower-case ASCII letters and digits joined by `-`; `conversation` if none. */
export function pathSegment(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, SEGMENT_CHARS)
    .replace(/-+$/, "");
  return slug === "" ? "conversation" : slug;
}

/**
 * The path of a new adopted worker in a run whose workers have `taken` paths: `/root` for a run without one, else
 * `/root/<segment of its name>`, numbered `-2`, `-3`, … when another worker of the run has that path already (two
 * conversations may carry the same title; their paths never collide).
 */
export function adoptedPath(taken: ReadonlySet<string>, name: string): string {
  if (!taken.has("/root")) return "/root";
  const base = `/root/${pathSegment(name)}`;
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
