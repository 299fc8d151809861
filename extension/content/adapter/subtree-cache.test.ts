// Runs in the node environment on happy-dom windows. The subtree cache (subtree-cache.ts): a kept lookup must always
// equal a fresh one, whatever changed; it is reused only while nothing under its root changed.
import fc from "fast-check";
import { Window } from "happy-dom";
import { afterEach, describe, expect, it } from "vitest";
import { queryAll } from "./dom.ts";
import { cacheableChain, SubtreeCache } from "./subtree-cache.ts";

let windows: Window[] = [];
afterEach(async () => {
  for (const w of windows) await w.happyDOM.close();
  windows = [];
});

/** A page with three sibling subtrees under `main`, a cache fed by a document observer as the adapter feeds it. */
function page(html = "") {
  const win = new Window({ url: "https://chatgpt.com/" });
  windows.push(win);
  const doc = win.document as unknown as Document;
  doc.body.innerHTML =
    html ||
    `<main id="main"><div id="a"><p class="x">one</p></div><div id="b"><span class="x">two</span></div>` +
      `<div id="c"><section><em>three</em></section></div></main>`;
  const cache = new SubtreeCache();
  const observer = new win.MutationObserver((records) => cache.note(records as unknown as MutationRecord[]));
  observer.observe(win.document, { childList: true, subtree: true, characterData: true, attributes: true });
  const byId = (id: string) => doc.getElementById(id)!;
  /** Delivers the records still queued, as the adapter does with takeRecords before a scan. */
  const deliver = () => cache.note(observer.takeRecords() as unknown as MutationRecord[]);
  const lookup = (root: Element, chain: string[]) =>
    cache.get(root, chain.join(","), () => queryAll(root, chain));
  return { win, doc, cache, byId, deliver, lookup, stop: () => observer.disconnect() };
}

describe("SubtreeCache", () => {
  it("a record drops what it touches as it is delivered, with nothing left for the scan to read", () => {
    const { win, doc, cache, byId, lookup, stop } = page();
    const a = byId("a");
    expect(lookup(a, [".x"])).toHaveLength(1);
    // Records delivered to the observer's callback (as the adapter's are): no later call is needed.
    const delivered = new Promise<void>((resolve) => {
      const observer = new win.MutationObserver(() => {
        observer.disconnect();
        resolve();
      });
      observer.observe(win.document, { childList: true, subtree: true });
    });
    const added = doc.createElement("b");
    added.className = "x";
    a.appendChild(added);
    return delivered.then(() => {
      const misses = cache.misses;
      expect(lookup(a, [".x"])).toHaveLength(2);
      expect(cache.misses).toBe(misses + 1);
      stop();
    });
  });

  it("keeps a lookup while nothing under its root changes, and only that root's after a change inside it", () => {
    const { doc, cache, byId, deliver, lookup, stop } = page();
    const [a, b] = [byId("a"), byId("b")];
    expect(lookup(a, [".x"])).toHaveLength(1);
    expect(lookup(b, [".x"])).toHaveLength(1);
    deliver();
    expect(lookup(a, [".x"])).toHaveLength(1);
    expect(cache.hits).toBe(1);

    const added = doc.createElement("b");
    added.className = "x";
    a.appendChild(added); // inside a, not b
    deliver();
    expect(lookup(a, [".x"])).toEqual([a.firstElementChild, added]);
    expect(lookup(b, [".x"])).toHaveLength(1);
    expect(cache.hits).toBe(2); // b's
    expect(cache.misses).toBe(3); // a, b at first; a again

    b.firstElementChild!.setAttribute("class", "y"); // an attribute inside b
    deliver();
    expect(lookup(b, [".x"])).toEqual([]);
    b.firstElementChild!.firstChild!.textContent = "changed"; // text inside b: a label-dependent lookup changes
    deliver();
    expect(cache.get(b, "text", () => b.textContent)).toBe("changed");
    stop();
  });

  it("an attribute of an ancestor drops everything: a descendant selector can match differently below it", () => {
    // (happy-dom scopes descendant selectors to the root, so the dependence on an ancestor is made explicit here.)
    const { cache, byId, deliver, stop } = page();
    const c = byId("c");
    const underOpen = () => cache.get(c, "under-open", () => c.closest(".open") !== null);
    expect(underOpen()).toBe(false);
    byId("main").classList.add("open");
    deliver();
    expect(underOpen()).toBe(true);
    stop();
  });

  it("a root removed, changed while detached and put back is looked up again", () => {
    const { doc, byId, deliver, lookup, stop } = page();
    const main = byId("main");
    const a = byId("a");
    expect(lookup(a, ["i"])).toEqual([]);
    a.remove();
    deliver();
    a.appendChild(doc.createElement("i")); // no record reaches the document's observer
    main.appendChild(a);
    deliver();
    expect(lookup(a, ["i"])).toHaveLength(1);
    stop();
  });

  it("a detached root is never kept", () => {
    const { doc, cache, lookup, stop } = page();
    const loose = doc.createElement("div");
    lookup(loose, ["p"]);
    lookup(loose, ["p"]);
    expect(cache.hits).toBe(0);
    stop();
  });

  it("chains whose matches can change without a record under the root are not cacheable", () => {
    expect(
      cacheableChain(["#thread-bottom-container form", 'a[href*="/auth:login"]', "div:not(.x) > p"]),
    ).toBe(true);
    for (const css of [".a ~ .b", ".a + .b", "button:hover", "main:has(.x) p", "input:checked"]) {
      expect(cacheableChain(["p", css])).toBe(false);
    }
  });

  it("after any sequence of changes, every kept lookup equals a fresh one", () => {
    type Op =
      | { kind: "add"; at: number; cls: string }
      | { kind: "remove"; at: number }
      | { kind: "attr"; at: number; cls: string }
      | { kind: "text"; at: number }
      | { kind: "move"; at: number; to: number };
    const cls = fc.constantFrom("x", "y", "open", "");
    const at = fc.nat(40);
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), at, cls }),
      fc.record({ kind: fc.constant("remove" as const), at }),
      fc.record({ kind: fc.constant("attr" as const), at, cls }),
      fc.record({ kind: fc.constant("text" as const), at }),
      fc.record({ kind: fc.constant("move" as const), at, to: at }),
    );
    const chains = [[".x"], [".open .x"], [".open > p", "span.y"], ["p", "em"]];
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 4 }), { minLength: 1, maxLength: 12 }), (steps) => {
        const { doc, byId, deliver, lookup, stop } = page();
        const main = byId("main");
        const nodes = () => [...main.querySelectorAll("*")];
        for (const step of steps) {
          for (const o of step) {
            const all = nodes();
            const node = all[o.at % Math.max(1, all.length)];
            if (!node && o.kind !== "add") continue;
            if (o.kind === "add") {
              const el = doc.createElement(o.at % 2 ? "p" : "span");
              el.className = o.cls;
              (node ?? main).appendChild(el);
            } else if (o.kind === "remove") node!.remove();
            else if (o.kind === "attr") node!.setAttribute("class", o.cls);
            else if (o.kind === "text") node!.textContent = `t${o.at}`;
            else {
              const to = all[o.to % all.length]!;
              if (!node!.contains(to)) to.appendChild(node!);
            }
          }
          deliver();
          // Roots: every element under main (nested roots too), each with every chain.
          for (const root of [main, ...nodes()]) {
            for (const chain of chains) expect(lookup(root, chain)).toEqual(queryAll(root, chain));
          }
        }
        stop();
      }),
      { numRuns: 150, seed: 20261130 },
    );
  });
});
