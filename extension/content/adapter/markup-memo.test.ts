// @vitest-environment happy-dom
// The memory of each element's own hidden markup (markup-memo.ts): kept while the element's attributes do not change,
// looked at again after any attribute record on it, whatever else changes around it.
import { afterEach, describe, expect, it } from "vitest";
import { MarkupMemo } from "./markup-memo.ts";

let observer: MutationObserver | undefined;
afterEach(() => observer?.disconnect());

/** A memo fed by a document observer as the adapter feeds it, and a class test that counts its calls. */
function fed() {
  document.body.innerHTML =
    '<main><form><div id="editor" contenteditable="true"><p>text</p></div></form></main>';
  const memo = new MarkupMemo();
  observer = new MutationObserver((records) => memo.note(records));
  observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  let looks = 0;
  const srOnly = (el: Element) => (looks++, el.classList.contains("sr-only"));
  const hidden = (el: Element) => {
    memo.note(observer!.takeRecords());
    return memo.selfHidden(el, srOnly);
  };
  return { memo, hidden, looks: () => looks, editor: document.getElementById("editor")! };
}

describe("MarkupMemo", () => {
  it("answers from memory while the element's attributes stay, through text and child changes", () => {
    const { hidden, looks, editor } = fed();
    expect(hidden(editor)).toBe(false);
    editor.querySelector("p")!.textContent = "typed";
    editor.append(document.createElement("br"));
    editor.parentElement!.setAttribute("data-state", "busy"); // an ancestor's attribute: not this element's markup
    expect(hidden(editor)).toBe(false);
    expect(looks()).toBe(1);
  });

  it.each([
    ["aria-hidden", (el: Element) => el.setAttribute("aria-hidden", "true")],
    ["hidden", (el: Element) => el.setAttribute("hidden", "")],
    ["inert", (el: Element) => el.setAttribute("inert", "")],
    ["a screen-reader-only class", (el: Element) => el.classList.add("sr-only")],
  ])("looks again after %s is set on the element, and after it is removed", (_what, hide) => {
    const { hidden, editor } = fed();
    expect(hidden(editor)).toBe(false);
    hide(editor);
    expect(hidden(editor)).toBe(true);
    for (const name of editor.getAttributeNames()) if (name !== "id") editor.removeAttribute(name);
    expect(hidden(editor)).toBe(false);
  });

  it("clear() forgets everything (records may have been missed)", () => {
    const { memo, hidden, editor } = fed();
    expect(hidden(editor)).toBe(false);
    observer!.disconnect();
    editor.setAttribute("aria-hidden", "true"); // no record reaches the memo
    expect(hidden(editor)).toBe(false);
    memo.clear();
    expect(hidden(editor)).toBe(true);
  });
});
