// Writing to the composer without innerHTML (chatgpt.com enforces Trusted Types): the insert methods
// (docs/adapter.md, "Submission, as implemented", step 3) for the ProseMirror contenteditable and for a plain
// textarea, each verified by reading back; and whose draft the composer holds (ours to replace, or a person's, never touched).
import { carriesAnyMarkerLine } from "../../lib/marker.ts";
import type { PageWindow } from "./types.ts";
import { guardedClick } from "./click-guard.ts";
import { isTextArea } from "./dom.ts";
import { editorIsEmpty, editorText } from "./page-text.ts";
import type { SelectorTable } from "./selectors.ts";

export interface InsertMethod {
  name: string;
  /** Inserts `text` into the (empty, focused) editor; false when this method is unavailable here. */
  insert(editor: Element, text: string): boolean;
}

type ExecDocument = Document & { execCommand?: (cmd: string, ui?: boolean, value?: string) => boolean };

function exec(doc: Document, cmd: string, value?: string): boolean {
  const d = doc as ExecDocument;
  if (typeof d.execCommand !== "function") return false;
  try {
    return d.execCommand(cmd, false, value);
  } catch {
    return false; // e.g. insertHTML under Trusted Types; we never use it, but a page may throw for any command
  }
}

/** Click, focus and caret at the end: React and ProseMirror take input only into an
 * editor that was clicked, focused and has a selection. */
export function focusEditor(editor: Element, win: PageWindow, table: SelectorTable): void {
  guardedClick(editor, "focus-editor", win, table);
  (editor as HTMLElement).focus();
  if (isTextArea(editor)) {
    editor.setSelectionRange(editor.value.length, editor.value.length);
    return;
  }
  const selection = win.getSelection();
  if (!selection) return;
  const range = win.document.createRange();
  range.selectNodeContents(editor);
  range.collapse(false);
  selection.removeAllRanges();
  selection.addRange(range);
}

function selectAll(editor: Element, win: PageWindow): void {
  if (isTextArea(editor)) {
    editor.select();
    return;
  }
  const selection = win.getSelection();
  if (!selection) return;
  const range = win.document.createRange();
  range.selectNodeContents(editor);
  selection.removeAllRanges();
  selection.addRange(range);
}

function inputEvent(win: PageWindow, inputType: string, data: string | null): Event {
  return new win.InputEvent("input", { bubbles: true, cancelable: false, inputType, data });
}

/** ProseMirror's empty document as DOM nodes: one paragraph per line, an empty line as `<p><br></p>`. */
function paragraphs(doc: Document, text: string): Element[] {
  return text.split("\n").map((line) => {
    const p = doc.createElement("p");
    if (line === "") p.appendChild(doc.createElement("br"));
    else p.appendChild(doc.createTextNode(line));
    return p;
  });
}

/** Largest single paste: ChatGPT turns a paste over ~10,000 characters into a "Pasted text" attachment. */
const PASTE_CHUNK = 4_000;

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Methods for a contenteditable ProseMirror editor, in the order they are tried. */
export function richMethods(win: PageWindow): InsertMethod[] {
  const doc = win.document;
  return [
    {
      // Goes through ProseMirror's beforeinput path like typing.
      name: "execCommand insertText",
      insert: (editor, text) => {
        selectAll(editor, win);
        return exec(doc, "insertText", text);
      },
    },
    {
      // ProseMirror accepts an untrusted (synthetic) paste; text/html with pre-wrap keeps blank lines, which
      // text/plain drops.
      name: "paste",
      insert: (editor, text) => {
        const w = win as Window & {
          DataTransfer?: typeof DataTransfer;
          ClipboardEvent?: typeof ClipboardEvent;
        };
        if (typeof w.DataTransfer !== "function" || typeof w.ClipboardEvent !== "function") return false;
        for (let i = 0; i < text.length; i += PASTE_CHUNK) {
          const chunk = text.slice(i, i + PASTE_CHUNK);
          const data = new w.DataTransfer();
          data.setData("text/plain", chunk);
          const html = chunk.split("\n").map(escapeHtml).join("<br>");
          data.setData("text/html", `<p style="white-space:pre-wrap">${html}</p>`);
          editor.dispatchEvent(
            new w.ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
          );
        }
        return true;
      },
    },
    {
      // DOM mutation + input event: ProseMirror's DOMObserver re-parses the change.
      name: "paragraphs + input event",
      insert: (editor, text) => {
        editor.replaceChildren(...paragraphs(doc, text));
        editor.dispatchEvent(inputEvent(win, "insertText", text));
        return true;
      },
    },
  ];
}

/** Sets a textarea's value through the prototype's setter (React's instance setter would hide the change). */
function setNativeValue(win: PageWindow, editor: Element, value: string): boolean {
  type Accessor = { set?: (this: Element, value: string) => void } | undefined;
  const descriptor: Accessor = Object.getOwnPropertyDescriptor(win.HTMLTextAreaElement.prototype, "value");
  if (!descriptor?.set) return false;
  descriptor.set.call(editor, value);
  return true;
}

/** Methods for a plain textarea (the 2026 textarea composer, mobile). */
export function textareaMethods(win: PageWindow): InsertMethod[] {
  const doc = win.document;
  return [
    {
      name: "execCommand insertText",
      insert: (editor, text) => {
        selectAll(editor, win);
        return exec(doc, "insertText", text);
      },
    },
    {
      // React tracks the value through the instance setter; the prototype's setter makes it see a change.
      name: "value setter + input event",
      insert: (editor, text) => {
        if (!setNativeValue(win, editor, text)) return false;
        editor.dispatchEvent(inputEvent(win, "insertText", text));
        return true;
      },
    },
  ];
}

export function insertMethods(editor: Element, win: PageWindow): InsertMethod[] {
  return isTextArea(editor) ? textareaMethods(win) : richMethods(win);
}

/** Empties the editor the way a person would (select all, delete), then by DOM + input event if needed. */
export function clearEditor(editor: Element, win: PageWindow, table: SelectorTable): boolean {
  if (editorIsEmpty(editor)) return true;
  focusEditor(editor, win, table);
  selectAll(editor, win);
  exec(win.document, "delete");
  if (editorIsEmpty(editor)) return true;
  if (isTextArea(editor)) {
    setNativeValue(win, editor, "");
  } else {
    editor.replaceChildren(...paragraphs(win.document, ""));
  }
  editor.dispatchEvent(inputEvent(win, "deleteContentBackward", null));
  return editorIsEmpty(editor);
}

/**
 * Whose draft the composer holds (docs/adapter.md, "Submission"): `empty`; `ours` when its text carries this
 * submission's marker or any command's marker line (a leftover of an earlier submission of ours: ours to replace);
 * `person` for anything else, text without a marker or an attachment chip (never overwritten or cleared).
 */
export function draftOwner(editor: Element, chips: number, marker: string): "empty" | "ours" | "person" {
  if (chips > 0) return "person"; // an attachment's content cannot be read, so it cannot be shown to be ours
  const draft = editorText(editor);
  if (draft.trim() === "") return "empty";
  return draft.includes(marker) || carriesAnyMarkerLine(draft) ? "ours" : "person";
}
