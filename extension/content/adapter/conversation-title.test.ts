// Reading the conversation's title (the adopted worker's name) from both page shapes: the classic sidebar entry
// `a[href="/c/<id>"]` with plain text, and the active history item `nav a[aria-current="page"]` whose title sits in a
// `.truncate` / `[dir=auto]` element beside an options button; then the tab title's forms.
import { afterEach, describe, expect, it } from "vitest";
import { conversationTitle, TITLE_MAX, titleOfDocumentTitle } from "./conversation-title.ts";
import { CONVERSATION_ID, FakeChatGpt, type FixtureLayout } from "./fixtures/fake-chatgpt.ts";

const HREF = `https://chatgpt.com/c/${CONVERSATION_ID}`;
const OTHER = "0b0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
let page: FakeChatGpt | undefined;

afterEach(() => page?.close());

function open(layout: FixtureLayout): Document {
  page = new FakeChatGpt({ layout });
  return page.doc;
}

/** The 2026 sidebar: history items with a title span and an options button inside the link. */
function historyItem(doc: Document, id: string, title: string, active: boolean): HTMLAnchorElement {
  const link = doc.createElement("a");
  link.setAttribute("href", `/c/${id}`);
  if (active) link.setAttribute("aria-current", "page");
  const truncate = doc.createElement("div");
  truncate.className = "truncate";
  const span = doc.createElement("span");
  span.setAttribute("dir", "auto");
  span.textContent = title;
  truncate.append(span);
  const options = doc.createElement("button");
  options.setAttribute("aria-label", "Open conversation options");
  options.textContent = "⋯";
  link.append(truncate, options);
  return link;
}

function sidebar(doc: Document, ...items: HTMLAnchorElement[]): void {
  const nav = doc.createElement("nav");
  nav.append(...items);
  doc.body.prepend(nav);
}

describe("conversationTitle", () => {
  it("classic layout: the sidebar entry a[href=/c/<id>] names the conversation (the tab title is just ChatGPT)", () => {
    const doc = open("classic");
    expect(doc.title).toBe("ChatGPT");
    expect(conversationTitle(doc, HREF)).toBe("Fix the flaky test");
  });

  it("2026 layout: the active history item's title, not its options button nor another chat's entry", () => {
    const doc = open("composer-2026");
    sidebar(
      doc,
      historyItem(doc, OTHER, "Holiday plans", false),
      historyItem(doc, CONVERSATION_ID, "Billing refactor", true),
    );
    expect(conversationTitle(doc, HREF)).toBe("Billing refactor");
  });

  it("an aria-current item of another conversation (the sidebar not updated yet) is not this one's title", () => {
    const doc = open("composer-2026");
    sidebar(doc, historyItem(doc, OTHER, "Holiday plans", true));
    doc.title = "Release notes | ChatGPT";
    expect(conversationTitle(doc, HREF)).toBe("Release notes");
  });

  it("a conversation inside a project links as /g/<project>/c/<id>", () => {
    const doc = open("composer-2026");
    const item = historyItem(doc, CONVERSATION_ID, "Project plan", false);
    item.setAttribute("href", `/g/g-p-abc123-notes/c/${CONVERSATION_ID}`);
    sidebar(doc, item);
    expect(conversationTitle(doc, `https://chatgpt.com/g/g-p-abc123-notes/c/${CONVERSATION_ID}`)).toBe(
      "Project plan",
    );
  });

  it("without a sidebar entry: the tab title; untitled pages and new chats give none", () => {
    const doc = open("composer-2026");
    doc.title = "Release notes - ChatGPT";
    expect(conversationTitle(doc, HREF)).toBe("Release notes");
    doc.title = "ChatGPT";
    expect(conversationTitle(doc, HREF)).toBeUndefined();
    doc.title = "Release notes | ChatGPT";
    expect(conversationTitle(doc, "https://chatgpt.com/")).toBeUndefined();
  });

  it("keeps a name short: one line, at most 80 characters, cut after a word", () => {
    const doc = open("composer-2026");
    const long = `A   very\nlong ${"conversation title ".repeat(10)}`;
    sidebar(doc, historyItem(doc, CONVERSATION_ID, long, true));
    const title = conversationTitle(doc, HREF)!;
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX);
    expect(title).toMatch(/^A very long conversation title .*title…$/);
  });
});

describe("titleOfDocumentTitle", () => {
  it.each([
    ["Release notes | ChatGPT", "Release notes"],
    ["Release notes - ChatGPT", "Release notes"],
    ["Release notes — ChatGPT", "Release notes"],
    ["Release notes", "Release notes"],
    ["  ChatGPT ", undefined],
    ["New chat | ChatGPT", undefined],
    ["", undefined],
  ])("%j → %j", (text, title) => {
    expect(titleOfDocumentTitle(text)).toBe(title);
  });
});
