// The end-of-response continuation-state block (docs/continuation-core.md): its canonical lines and a tolerant parser.
// Shared because the host renders the block into prompts and the extension parses the newest assistant turn.
import { z } from "zod";

/** What the agent says of its work at the end of each response; a signal only, the worker's state is authoritative. */
export const continuationStatusSchema = z.enum(["working", "complete", "blocked"]);
export type ContinuationStatus = z.infer<typeof continuationStatusSchema>;

export const CONTINUATION_STATUSES: readonly ContinuationStatus[] = continuationStatusSchema.options;

/** The block exactly as prompts and the skill show it: these four lines. */
export const CONTINUATION_BLOCK_LINES: readonly string[] = [
  "status: working | complete | blocked",
  "summary:",
  "current:",
  "next:",
];

export interface ContinuationBlock {
  readonly status: ContinuationStatus;
  readonly summary: string;
  readonly current: string;
  readonly next: string;
}

export interface ContinuationBlockError {
  /** `missing`: the response does not end with a block; `malformed`: it ends with one that is not valid. */
  readonly error: "missing" | "malformed";
  readonly detail: string;
}

type Field = "status" | "summary" | "current" | "next";
const FIELD_ORDER: readonly Field[] = ["status", "summary", "current", "next"];

/**
 * A field label at the start of a line: optional indentation, list bullet and emphasis/code markers
 * around the label or the colon (`**status:**`, `- **Status**: `, `` `next`: ``). Labels are case-insensitive.
 */
const LABEL = /^\s{0,3}(?:[-*+]\s+)?[*_`]*(status|summary|current|next)[*_`]*\s*:[*_`]*[ \t]*(.*)$/i;
const FENCE = /^\s{0,3}(`{3,}|~{3,})(.*)$/;
const QUOTE = /^\s{0,3}>/;

/** A line the parser reads: plain text, or an opaque stand-in for quoted/fenced content that never counts. */
type Line = { readonly kind: "text"; readonly text: string } | { readonly kind: "opaque" };

/**
 * Parses the final continuation-state block of an assistant response.
 *
 * - Only the last block counts, and it must end the response: a block followed by further prose is
 *   malformed; an earlier example block followed by the real one yields the real one.
 * - Blocks inside `>` quotes never count. Blocks inside a code fence count only when that fence is the
 *   very last thing in the response (a model copying the fenced template still ends its response with
 *   the block); any earlier fenced block is an example or quotation and is ignored.
 * - Tolerated: surrounding whitespace, blank lines between fields, list bullets, bold/italic/code markers
 *   on labels and values, label case, a field value continued on the following non-blank lines.
 * - Strict: the four fields appear once each, in order `status`, `summary`, `current`, `next`; the status
 *   is exactly one of `working`, `complete`, `blocked` (any letter case, no other words or punctuation);
 *   `summary` is not empty, and a `working` block names its `next` action.
 */
export function parseContinuationBlock(text: string): ContinuationBlock | ContinuationBlockError {
  const lines = readableLines(text);
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    const label = labelOf(lines[i]!);
    if (label?.field === "status") {
      start = i;
      break;
    }
  }
  if (start < 0) {
    const hidden = /^\s*(?:>\s*)?[-*+]?\s*[*_`]*status[*_`]*\s*:/im.test(text);
    return {
      error: "missing",
      detail: hidden
        ? "the only status lines are inside quotes or earlier code fences, which do not count"
        : "the response has no continuation-state block",
    };
  }

  const values = new Map<Field, string[]>();
  let field: Field | undefined;
  let afterBlank = false;
  for (const line of lines.slice(start)) {
    if (line.kind === "opaque") {
      return malformed("the block is followed by quoted or fenced content; it must end the response");
    }
    if (line.text.trim() === "") {
      afterBlank = true;
      continue;
    }
    const label = labelOf(line);
    if (label) {
      if (values.has(label.field)) return malformed(`the field '${label.field}' appears twice`);
      const expected = FIELD_ORDER[values.size];
      if (label.field !== expected) {
        return malformed(`expected the field '${expected}' but found '${label.field}'`);
      }
      field = label.field;
      values.set(field, [label.value]);
    } else if (afterBlank || field === undefined) {
      return malformed("the block is followed by other text; it must end the response");
    } else {
      values.get(field)!.push(line.text);
    }
    afterBlank = false;
  }

  const missingField = FIELD_ORDER.find((f) => !values.has(f));
  if (missingField) return malformed(`the field '${missingField}' is missing`);
  const value = (f: Field) => clean(values.get(f)!.map(stripMarkers).join("\n"));

  const rawStatus = value("status");
  const status = CONTINUATION_STATUSES.find((s) => s === rawStatus.toLowerCase());
  if (!status) {
    return malformed(`status must be exactly one of working, complete, blocked; got '${rawStatus}'`);
  }
  const block: ContinuationBlock = {
    status,
    summary: value("summary"),
    current: value("current"),
    next: value("next"),
  };
  if (block.summary === "") return malformed("summary is empty");
  if (status === "working" && block.next === "")
    return malformed("a working block must name its next action");
  return block;
}

export function isContinuationBlock(
  result: ContinuationBlock | ContinuationBlockError,
): result is ContinuationBlock {
  return !("error" in result);
}

function malformed(detail: string): ContinuationBlockError {
  return { error: "malformed", detail };
}

function labelOf(line: Line): { field: Field; value: string } | undefined {
  if (line.kind !== "text") return undefined;
  const m = LABEL.exec(line.text);
  if (!m) return undefined;
  return { field: m[1]!.toLowerCase() as Field, value: m[2]! };
}

/** Strips emphasis/code markers wrapping a value (`**working**`, `` `working` ``, `_none_`). */
function stripMarkers(value: string): string {
  return value.trim().replace(/^[*_`]+|[*_`]+$/g, "");
}

function clean(value: string): string {
  return value.replace(/[ \t]+$/gm, "").trim();
}

/**
 * The response as lines, with quoted lines and fenced content made opaque, except the content of a
 * fence that closes the response, which is read as plain lines.
 */
function readableLines(text: string): Line[] {
  const raw = text.replace(/\r\n?/g, "\n").split("\n");
  const out: Line[] = [];
  let fence: { marker: string; from: number } | undefined;
  let lastFence: { from: number; to: number } | undefined;
  for (const [i, line] of raw.entries()) {
    const m = FENCE.exec(line);
    if (fence) {
      const closes =
        m && m[1]![0] === fence.marker[0] && m[1]!.length >= fence.marker.length && m[2]!.trim() === "";
      if (closes) {
        lastFence = { from: fence.from, to: i };
        fence = undefined;
      }
      out.push({ kind: "opaque" });
    } else if (m) {
      fence = { marker: m[1]!, from: i };
      out.push({ kind: "opaque" });
    } else if (QUOTE.test(line)) {
      out.push({ kind: "opaque" });
    } else {
      out.push({ kind: "text", text: line });
    }
  }
  // An unclosed fence runs to the end of the response: it is treated like a closing fence.
  if (fence) lastFence = { from: fence.from, to: raw.length };
  if (lastFence && raw.slice(lastFence.to + 1).every((l) => l.trim() === "")) {
    for (let i = lastFence.from; i <= lastFence.to && i < raw.length; i++) {
      const isDelimiter = i === lastFence.from || (i === lastFence.to && lastFence.to < raw.length);
      out[i] = { kind: "text", text: isDelimiter ? "" : raw[i]! };
    }
  }
  return out;
}
