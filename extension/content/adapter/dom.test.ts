// @vitest-environment happy-dom
// Chain lookups: one query per selector, merged back into document order without repeats.
import { describe, expect, it } from "vitest";
import { queryAll } from "./dom.ts";

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
});
