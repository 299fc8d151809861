// @vitest-environment happy-dom
// Chain lookups: one query per selector, merged back into document order without repeats.
import { describe, expect, it } from "vitest";
import { MERGE_LIMIT, queryAll } from "./dom.ts";

function page(markup: string): HTMLElement {
  const tpl = document.createElement("template");
  tpl.innerHTML = markup;
  const root = document.createElement("div");
  root.appendChild(tpl.content);
  return root;
}

describe("queryAll", () => {
  const root = page(
    '<p id="a" class="x"></p><div id="b" data-k="1"><span id="c" class="x" data-k="2"></span></div>' +
      '<p id="d" data-k="3"></p><p id="e" class="x"></p>',
  );
  const ids = (els: Element[]) => els.map((el) => el.id);

  it("interleaves the matches of several selectors in document order, each element once", () => {
    expect(ids(queryAll(root, [".x", "[data-k]"]))).toEqual(["a", "b", "c", "d", "e"]);
    expect(ids(queryAll(root, ["[data-k]", ".x", "span"]))).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("returns one selector's matches as they are, and nothing for an empty chain", () => {
    expect(ids(queryAll(root, ["p"]))).toEqual(["a", "d", "e"]);
    expect(queryAll(root, [])).toEqual([]);
  });

  it("skips a selector the engine cannot parse (a remote update) and keeps the others", () => {
    expect(ids(queryAll(root, ["p:unknown-pseudo(", "span"]))).toEqual(["c"]);
  });
  it("on a document, many matches of several selectors come back in document order too (one pass, not a merge)", () => {
    // Turns alternating between two selectors, as the 2026 layout's user bubbles and answers do, past the merge limit.
    const count = MERGE_LIMIT + 10;
    const host = document.createElement("main");
    host.innerHTML = Array.from({ length: count }, (_, i) =>
      i % 2 === 0
        ? `<div><p id="u${i}" data-user></p></div>`
        : `<div><p id="a${i}" data-answer class="x"></p></div>`,
    ).join("");
    document.body.appendChild(host);
    try {
      const expected = Array.from({ length: count }, (_, i) => (i % 2 === 0 ? `u${i}` : `a${i}`));
      expect(ids(queryAll(document, ["[data-answer]", "[data-user]", ".x"]))).toEqual(expected);
      expect(ids(queryAll(document, ["p:unknown-pseudo(", "[data-user]", "[data-answer]"]))).toEqual(
        expected,
      );
      // Below the limit the lists are merged: the same order.
      expect(ids(queryAll(document, ["#a3", "#u0", "#u2"]))).toEqual(["u0", "u2", "a3"]);
    } finally {
      host.remove();
    }
  });
});
