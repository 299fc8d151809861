// Runs in the node environment: each test builds its own happy-dom Window from a fixture (fixtures/fake-chatgpt.ts).
// The one click helper refuses every control that must never be pressed (docs/adapter.md, "Never clicked"):
// each refusal is checked against the page's own click counters, which must stay at zero.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { guardedClick, refusalReason } from "./click-guard.ts";
import { FakeChatGpt } from "./fixtures/fake-chatgpt.ts";
import { selectorTable } from "./selectors.ts";

const table = selectorTable();
let page: FakeChatGpt;

function button(attrs: Record<string, string>, text = "", parent?: Element): Element {
  const b = page.doc.createElement("button");
  for (const [k, v] of Object.entries(attrs)) b.setAttribute(k, v);
  b.textContent = text;
  (parent ?? page.doc.querySelector("#thread-bottom-container form")!).appendChild(b);
  return b;
}

describe.each(["classic", "composer-2026"] as const)("%s layout", (layout) => {
  // One page per layout (building a page is the expensive part); counters and the primary button reset.
  beforeAll(() => {
    page = new FakeChatGpt({ layout });
  });
  afterAll(() => page.close());
  beforeEach(() => {
    for (const key of Object.keys(page.clicks) as Array<keyof typeof page.clicks>) page.clicks[key] = 0;
    page.setPrimary("voice");
  });

  const refused: Array<[string, () => Element]> = [
    [
      "the error card's Retry (testid)",
      () => button({ "data-testid": "regenerate-thread-error-button" }, "Retry"),
    ],
    ["a role-less card's exact 'Retry'", () => button({ type: "button" }, "Retry")],
    ["'Try again'", () => button({}, "Try again")],
    ["the action bar's Regenerate", () => button({ "aria-label": "Regenerate response" })],
    ["a regenerate testid", () => button({ "data-testid": "regenerate-turn-action-button" })],
    ["'Answer now'", () => button({}, "Answer now")],
    ["'Use Work'", () => button({}, "Use Work")],
    [
      "the voice-mode button",
      () => button({ "data-testid": "composer-speech-button", "aria-label": "Start voice mode" }),
    ],
    ["the dictation button", () => button({ "aria-label": "Dictate button" })],
    ["Start dictation", () => button({ "aria-label": "Start dictation", "data-start-dictation": "" })],
    [
      "a microphone icon button",
      () => {
        const b = button({});
        const svg = page.doc.createElementNS("http://www.w3.org/2000/svg", "svg");
        const use = page.doc.createElementNS("http://www.w3.org/2000/svg", "use");
        use.setAttribute("href", "#microphone-regular-24");
        svg.appendChild(use);
        b.appendChild(svg);
        return b;
      },
    ],
    ["Stop streaming", () => button({ "data-testid": "stop-button", "aria-label": "Stop streaming" })],
    ["a bare 'Stop'", () => button({ "aria-label": "Stop" })],
    ["Confirm on a tool card", () => button({}, "Confirm")],
    ["Deny on a tool card", () => button({}, "Deny")],
    [
      "anything inside an error card",
      () => {
        const card = page.doc.createElement("div");
        card.className = "text-token-text-error";
        page.doc.querySelector("#thread-bottom-container")!.appendChild(card);
        return button({ "aria-label": "Send prompt" }, "", card);
      },
    ],
  ];

  for (const [name, make] of refused) {
    it(`refuses ${name} and the page sees no click`, () => {
      const el = make();
      expect(refusalReason(el, table)).toBeDefined();
      expect(guardedClick(el, "send", page.win, table)).toMatchObject({ clicked: false });
      expect(guardedClick(el, "focus-editor", page.win, table)).toMatchObject({ clicked: false });
      expect(page.forbiddenClicks + page.clicks.send + page.clicks.other).toBe(0);
    });
  }

  it("clicks a send control inside the composer form exactly once", () => {
    page.setPrimary("send");
    expect(guardedClick(page.primaryButton, "send", page.win, table)).toEqual({ clicked: true });
    expect(page.clicks.send).toBe(1);
    expect(page.forbiddenClicks).toBe(0);
  });

  it("refuses a send-looking button outside any form, and focus clicks on anything but the editor", () => {
    const outside = button({ "aria-label": "Send prompt" }, "", page.doc.body);
    expect(guardedClick(outside, "send", page.win, table)).toMatchObject({ clicked: false });
    page.setPrimary("send");
    expect(guardedClick(page.primaryButton, "focus-editor", page.win, table)).toMatchObject({
      clicked: false,
    });
    expect(guardedClick(page.editorEl, "focus-editor", page.win, table)).toEqual({ clicked: true });
    expect(page.clicks.send).toBe(0);
  });
});
