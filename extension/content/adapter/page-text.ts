// Text as a person reads it: the composer read back before sending, and an answer rendered from markdown
// (for the continuation block). Nothing read here is stored or sent; only comparisons and `status` leave.
import { isElement, isTextArea, matchesAny } from "./dom.ts";

const BLOCK_TAGS = new Set([
  "P",
  "DIV",
  "PRE",
  "LI",
  "UL",
  "OL",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "BLOCKQUOTE",
  "TABLE",
  "TR",
  "SECTION",
  "ARTICLE",
  "HR",
]);

/**
 * Normalizes for the read-back comparison (docs/adapter.md, "Submission, as implemented", step 4): CRLF, NBSP,
 * zero-width characters, trailing whitespace on lines and at the end. Everything else must match exactly.
 */
export function normalizeText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\u00a0/g, " ")
    .replace(/[\u200b-\u200d\u2060\ufeff]/g, "")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n+$/, "");
}

/** Collects lines from a subtree: block boundaries and <br> start lines; an empty block is one empty line. */
class LineWriter {
  private readonly lines: string[] = [""];
  /** Lines that keep their whitespace (code blocks); all others may be trimmed by `text`. */
  private readonly raw = new Set<number>();

  append(text: string): void {
    this.lines[this.lines.length - 1] += text;
  }

  newLine(): void {
    this.lines.push("");
  }

  get currentEmpty(): boolean {
    return this.lines[this.lines.length - 1] === "";
  }

  get count(): number {
    return this.lines.length;
  }

  /** Enters a block: text before it on the same line ends that line. Returns the mark for `exitBlock`. */
  enterBlock(): number {
    if (!this.currentEmpty) this.newLine();
    return this.count;
  }

  exitBlock(mark: number): void {
    if (!this.currentEmpty) this.newLine();
    else if (this.count === mark) this.newLine(); // an empty paragraph still is a line
  }

  pushLines(lines: readonly string[], raw = false): void {
    const mark = this.enterBlock();
    for (const [i, line] of lines.entries()) {
      if (i > 0) this.newLine();
      this.append(line);
      if (raw) this.raw.add(this.lines.length - 1);
    }
    this.exitBlock(mark);
  }

  /** With `collapse`, whitespace runs become one space and lines are trimmed, as a browser renders them. */
  text(collapse = false): string {
    if (!collapse) return this.lines.join("\n");
    return this.lines
      .map((line, i) => (this.raw.has(i) ? line : line.replace(/[ \t\f\r]+/g, " ").trim()))
      .join("\n");
  }
}

/**
 * The composer's text as ProseMirror will send it: text nodes; <br> is a newline except ProseMirror's
 * trailing break; P/DIV/PRE/LI boundaries are newlines. A textarea is read from its value.
 */
export function editorText(editor: Element): string {
  if (isTextArea(editor)) return normalizeText(editor.value);
  const out = new LineWriter();
  const walk = (node: Node): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        out.append(child.nodeValue ?? "");
      } else if (isElement(child)) {
        if (child.tagName === "BR") {
          if (!child.classList.contains("ProseMirror-trailingBreak")) out.newLine();
        } else if (BLOCK_TAGS.has(child.tagName)) {
          const mark = out.enterBlock();
          walk(child);
          out.exitBlock(mark);
        } else {
          walk(child);
        }
      }
    }
  };
  walk(editor);
  return normalizeText(out.text());
}

/** True when the editor holds no text (placeholder paragraphs and trailing breaks only). */
export function editorIsEmpty(editor: Element): boolean {
  return editorText(editor).trim() === "";
}

/**
 * A rendered markdown answer turned back into markdown-like lines, so `parseContinuationBlock` sees what
 * the model wrote: code blocks become fences (their header and Copy button skipped), quotes get `> `,
 * list items and paragraphs become lines. Buttons and screen-reader-only text are skipped.
 */
export function renderedText(root: Element, skip: readonly string[]): string {
  const out = new LineWriter();
  const walk = (node: Node, into: LineWriter): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        into.append(child.nodeValue ?? "");
        continue;
      }
      if (!isElement(child)) continue;
      const tag = child.tagName;
      if (tag === "BUTTON" || tag === "SCRIPT" || tag === "STYLE" || matchesAny(child, skip)) continue;
      if (tag === "BR") {
        into.newLine();
      } else if (tag === "PRE") {
        const code = child.querySelector("code") ?? child;
        const body = (code.textContent ?? "").replace(/\n$/, "").split("\n");
        into.pushLines(["```", ...body, "```"], true);
      } else if (tag === "BLOCKQUOTE") {
        const inner = new LineWriter();
        walk(child, inner);
        const lines = normalizeText(inner.text(true)).split("\n");
        into.pushLines(lines.map((l) => `> ${l}`));
      } else if (BLOCK_TAGS.has(tag)) {
        const mark = into.enterBlock();
        walk(child, into);
        into.exitBlock(mark);
      } else {
        walk(child, into);
      }
    }
  };
  walk(root, out);
  return normalizeText(out.text(true));
}

/** Text of a subtree with one element's subtree left out (banners near the composer, minus the draft). */
export function textExcluding(root: Element, exclude: Element | null, cap: number): string {
  let text = "";
  const walk = (node: Node): boolean => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child === exclude) continue;
      if (child.nodeType === 3) {
        text += child.nodeValue ?? "";
        if (text.length > cap) return false;
      } else if (isElement(child)) {
        if (child.tagName === "SCRIPT" || child.tagName === "STYLE") continue;
        if (BLOCK_TAGS.has(child.tagName) || child.tagName === "BUTTON") text += " ";
        if (!walk(child)) return false;
      }
    }
    return true;
  };
  walk(root);
  return text;
}
