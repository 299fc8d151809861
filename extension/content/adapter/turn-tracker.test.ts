// @vitest-environment happy-dom
// The incremental scan pieces: the turn list kept from mutation records (it must never go stale: after every change
// it equals a fresh query), the page region without the old turns, and the split query for descendant selectors.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { innermost, lastCompound, queryAll } from "./dom.ts";
import { guardedClick } from "./click-guard.ts";
import { queryRegionChains, regionWithoutOldTurns } from "./page-region.ts";
import { answerFollows, recentUserTurnContains, scanTurns } from "./turn-scan.ts";
import { SELECTORS, selectorTable } from "./selectors.ts";
import { TurnTracker, watchedAttributes } from "./turn-tracker.ts";

const CHAIN = SELECTORS.turn;

const LAYOUTS = {
  classic: (i: number, role: string) =>
    `<section data-testid="conversation-turn-${i}" data-turn="${role}"><div data-message-author-role="${role}"><p>t${i}</p></div></section>`,
  "composer-2026": (i: number, role: string) =>
    `<div data-turn-key="k${i}"><div data-content-search-unit-key="k${i}:0:${role}"><p>t${i}</p></div></div>`,
} as const;

function fragment(markup: string): DocumentFragment {
  const tpl = document.createElement("template");
  tpl.innerHTML = markup;
  return tpl.content;
}

/** A tracker fed by a real MutationObserver on the document, as the adapter feeds it. */
function tracked() {
  const tracker = new TurnTracker(CHAIN);
  const observer = new MutationObserver((records) => tracker.note(records));
  observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  const turns = () => {
    tracker.note(observer.takeRecords());
    return tracker.turns(document);
  };
  /** The tracked list must equal what a fresh query finds, element for element. */
  const check = () => {
    const got = turns();
    expect(got).toEqual(innermost(queryAll(document, CHAIN)));
    return got;
  };
  return { tracker, observer, turns, check };
}

let stop: (() => void) | undefined;
beforeEach(() => {
  document.body.innerHTML = '<main><div id="thread"></div></main><div id="thread-bottom-container"></div>';
});
afterEach(() => {
  stop?.();
  stop = undefined;
});

describe.each(Object.entries(LAYOUTS))("turn tracking, %s layout", (_name, turnHtml) => {
  const thread = () => document.getElementById("thread")!;
  const append = (from: number, count: number) => {
    for (let i = from; i < from + count; i++) {
      thread().append(fragment(turnHtml(i, i % 2 ? "assistant" : "user")));
    }
  };

  it("records are read when they are delivered, so turns() reads none (a scan starts with the list up to date)", () => {
    append(0, 2);
    const tracker = new TurnTracker(CHAIN);
    expect(tracker.turns(document)).toHaveLength(2);
    const observer = new MutationObserver(() => undefined);
    observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
    stop = () => observer.disconnect();
    append(2, 2);
    thread().lastElementChild!.querySelector("p")!.textContent = "streaming";
    let reads = 0;
    const counted = observer
      .takeRecords()
      .map((r) => new Proxy(r, { get: (target, key): unknown => (reads++, Reflect.get(target, key)) }));
    tracker.note(counted);
    const atDelivery = reads;
    expect(atDelivery).toBeGreaterThan(0);
    expect(tracker.turns(document)).toEqual(innermost(queryAll(document, CHAIN)));
    expect(reads).toBe(atDelivery);
    expect(tracker.fullQueries).toBe(1);
  });

  it("appended turns are tracked from records alone, and streaming inside the newest turn costs no query", () => {
    append(0, 4);
    const t = tracked();
    stop = () => t.observer.disconnect();
    expect(t.check()).toHaveLength(4);
    append(4, 3);
    expect(t.check()).toHaveLength(7);
    const newest = thread().lastElementChild!;
    for (let i = 0; i < 20; i++) newest.querySelector("p")!.replaceChildren(fragment(`<span>w${i}</span>`));
    newest.setAttribute("class", "streaming");
    expect(t.check()).toHaveLength(7);
    expect(t.tracker.fullQueries).toBe(1);
  });

  it("a remounted thread is found again (the old elements are not kept)", () => {
    append(0, 5);
    const t = tracked();
    stop = () => t.observer.disconnect();
    const before = t.check();
    const copy = thread().cloneNode(true) as Element;
    thread().replaceWith(copy);
    const after = t.check();
    expect(after).toHaveLength(5);
    expect(after.some((el) => before.includes(el))).toBe(false);
    expect(after.every((el) => el.isConnected)).toBe(true);
  });

  it("a removed turn leaves the list; turns added before the newest come in document order", () => {
    append(0, 5);
    const t = tracked();
    stop = () => t.observer.disconnect();
    t.check();
    const third = thread().children[2]!;
    third.remove();
    expect(t.check()).not.toContain(third);
    thread().prepend(fragment(turnHtml(90, "user")));
    thread().insertBefore(third, thread().lastElementChild);
    expect(t.check()).toHaveLength(6);
    thread().lastElementChild!.remove();
    expect(t.check()).toHaveLength(5);
  });

  it("nested matches keep the innermost, whether added inside the newest turn or around new ones", () => {
    append(0, 3);
    const t = tracked();
    stop = () => t.observer.disconnect();
    t.check();
    const newest = thread().lastElementChild!;
    newest.append(fragment(turnHtml(50, "assistant")));
    expect(t.check()).not.toContain(newest);
    thread().append(
      fragment(`<div data-turn-key="outer">${turnHtml(60, "user")}${turnHtml(61, "assistant")}</div>`),
    );
    expect(
      t.check().map((el) => el.getAttribute("data-turn-key") ?? el.getAttribute("data-testid")),
    ).not.toContain("outer");
  });

  it("records inside the newest turn are not read one by one, and say so (insideNewest)", () => {
    append(0, 3);
    const t = tracked();
    stop = () => t.observer.disconnect();
    t.check();
    expect(t.tracker.insideNewest).toBe(false); // the first call queries the document
    const newest = thread().lastElementChild!;
    newest.querySelector("p")!.append(" more");
    newest.querySelector("p")!.setAttribute("class", "streaming");
    t.check();
    expect(t.tracker.insideNewest).toBe(true);
    document.body.append(document.createElement("aside"));
    t.check();
    expect(t.tracker.insideNewest).toBe(false);
    newest.setAttribute("class", "x"); // the newest turn's own attribute takes the full path
    t.check();
    expect(t.tracker.insideNewest).toBe(false);
    // A turn made inside the newest one by an attribute: the newest is no longer innermost.
    const inner = newest.querySelector("p")!;
    inner.setAttribute("data-turn-key", "inner");
    expect(t.check()).toContain(inner);
    expect(t.tracker.insideNewest).toBe(false);
    expect(t.tracker.fullQueries).toBe(2);
  });

  it("a turn that left a group later moved into the newest turn is not kept", () => {
    append(0, 4);
    const group = document.createElement("div");
    thread().insertBefore(group, thread().children[1]!);
    const second = thread().children[2]!;
    group.append(second);
    const t = tracked();
    stop = () => t.observer.disconnect();
    expect(t.check()).toContain(second);
    // One batch: the turn leaves its group, then the (now turn-less) group moves into the newest turn, so the record
    // of the turn's removal has a target inside the newest turn by the time it is read.
    second.remove();
    thread().lastElementChild!.append(group);
    expect(t.check()).not.toContain(second);
  });

  it("an element that becomes a turn by an attribute, or stops being one, is seen", () => {
    append(0, 2);
    const t = tracked();
    stop = () => t.observer.disconnect();
    t.check();
    const late = document.createElement("div");
    thread().append(late);
    expect(t.check()).toHaveLength(2);
    late.setAttribute("data-turn-key", "late");
    expect(t.check()).toContain(late);
    late.removeAttribute("data-turn-key");
    expect(t.check()).not.toContain(late);
    // Within one batch: added as a turn, then no longer one.
    const brief = document.createElement("div");
    brief.setAttribute("data-turn-key", "brief");
    thread().append(brief);
    brief.removeAttribute("data-turn-key");
    expect(t.check()).not.toContain(brief);
  });

  it("streaming into a turn added in the same batch is not read node by node, and a turn nested in it is found", () => {
    append(0, 2);
    const t = tracked();
    stop = () => t.observer.disconnect();
    t.check();
    append(2, 1);
    const added = thread().lastElementChild!;
    for (let i = 0; i < 5; i++) added.querySelector("p")!.replaceChildren(fragment(`<span>w${i}</span>`));
    expect(t.check()).toContain(added);
    expect(t.tracker.insideNewest).toBe(false);
    append(3, 1);
    const next = thread().lastElementChild!;
    next.querySelector("p")!.append(fragment(turnHtml(70, "assistant")));
    expect(t.check()).not.toContain(next); // the nested one is the innermost
    expect(t.tracker.fullQueries).toBe(2);
  });

  it("starts over after reset (records missed while detached are not trusted)", () => {
    append(0, 2);
    const t = tracked();
    t.check();
    t.observer.disconnect();
    append(2, 2);
    t.tracker.reset();
    t.observer.observe(document, { childList: true, subtree: true, attributes: true });
    expect(t.check()).toHaveLength(4);
    stop = () => t.observer.disconnect();
  });
});

describe("watchedAttributes", () => {
  it("names the attributes a plain chain depends on, and gives up on combinators and pseudo-classes", () => {
    expect(watchedAttributes(CHAIN)).toEqual(new Set(["data-testid", "data-turn-key"]));
    expect(watchedAttributes(["section.turn#x"])).toEqual(new Set(["class", "id"]));
    expect(watchedAttributes(["#thread article"])).toBeUndefined();
    expect(watchedAttributes(["article:not(.x)"])).toBeUndefined();
  });
});

describe("page region without the old turns", () => {
  it("skips the old turns only, and lists each chain's hits in document order", () => {
    document.body.innerHTML =
      '<div role="alert" id="a1">before</div><main><div id="thread">' +
      '<div id="head" role="alert">x</div>' +
      LAYOUTS.classic(0, "user").replace("<p>", '<p role="alert" id="old">') +
      LAYOUTS.classic(1, "assistant") +
      LAYOUTS.classic(2, "user").replace("<p>", '<p role="alert" id="newest">') +
      '<div id="tail" role="alert">y</div></div><aside role="dialog" id="d1"></aside></main>' +
      '<div role="alert" id="a2">after</div>';
    const turns = innermost(queryAll(document, CHAIN));
    const region = regionWithoutOldTurns(document, turns);
    const hits = queryRegionChains(region, { notice: ['[role="alert"]'], dialog: ['[role="dialog"]'] });
    expect(hits.notice.map((el) => el.id)).toEqual(["a1", "head", "newest", "tail", "a2"]);
    expect(hits.dialog.map((el) => el.id)).toEqual(["d1"]);
    // With fewer than two turns there is nothing old: the whole document.
    expect(regionWithoutOldTurns(document, turns.slice(0, 1)).whole).toBe(document);
  });
});

describe("descendant selectors under an element", () => {
  it("splits off the last compound only when that is safe", () => {
    expect(lastCompound(".turn-action-controls button")).toBe("button");
    expect(lastCompound('div[slot="trailing"] > button')).toBe("button");
    expect(lastCompound('[aria-label="a b"] span')).toBe("span");
    expect(lastCompound('[data-testid^="conversation-turn-"]')).toBeUndefined();
    expect(lastCompound("a:not(.x b) c")).toBeUndefined();
  });

  it("finds what a browser's query finds, an ancestor outside the root included (selectors API semantics)", () => {
    document.body.innerHTML =
      '<div class="bar"><section id="s"><button id="b1"></button><div class="bar"><button id="b2"></button></div></section></div>';
    const s = document.getElementById("s")!;
    const ids = (css: string) => queryAll(s, [css]).map((el) => el.id);
    expect(ids(".bar button")).toEqual(["b1", "b2"]);
    expect(ids("section .bar button")).toEqual(["b2"]);
    expect(ids("div > button")).toEqual(["b2"]);
  });
});

describe("clicks need a box", () => {
  it("a control without a laid-out box is not clicked", () => {
    document.body.innerHTML = '<form><button type="submit" aria-label="Send prompt">Send</button></form>';
    const button = document.querySelector("button")!;
    let clicks = 0;
    button.addEventListener("click", (e) => {
      e.preventDefault();
      clicks++;
    });
    button.getBoundingClientRect = () => ({ width: 0, height: 0 }) as DOMRect;
    const result = guardedClick(button, "send", window, selectorTable());
    expect(result).toMatchObject({ clicked: false });
    button.getBoundingClientRect = () => ({ width: 40, height: 20 }) as DOMRect;
    expect(guardedClick(button, "send", window, selectorTable())).toEqual({
      clicked: true,
    });
    expect(clicks).toBe(1);
  });
});

describe("marker searches bounded to the newest turns", () => {
  it("the proof after a click looks at the newest turns only; an answered turn is found newest first", () => {
    const roles = ["user", "assistant", "user", "assistant", "user", "assistant"];
    document.getElementById("thread")!.innerHTML = roles
      .map((role, i) => LAYOUTS.classic(i, role).replace(`<p>t${i}</p>`, `<p>t${i} [m-${i}]</p>`))
      .join("");
    const table = selectorTable();
    const turns = scanTurns(document, table);
    expect(recentUserTurnContains(turns, table, "m-4")).toBe(true);
    expect(recentUserTurnContains(turns, table, "m-5")).toBe(false); // an assistant turn is no proof
    expect(recentUserTurnContains(turns, table, "m-0")).toBe(false); // older than the newest four
    expect(answerFollows(turns, "m-4")).toBe(true);
    expect(answerFollows(turns, "m-0")).toBe(true);
    expect(answerFollows(turns, "m-5")).toBe(false);
  });
});
