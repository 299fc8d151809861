import { describe, expect, it } from "vitest";
import { checkContentSender, isExtensionPageSender } from "./sender.ts";

const ID = "abcdefghijklmnopabcdefghijklmnop";
const good = {
  id: ID,
  url: "https://chatgpt.com/c/6a3ea6a0-a1f4-83eb-91bf-c7cd349080a0",
  origin: "https://chatgpt.com",
  frameId: 0,
  tab: { id: 4, url: "https://chatgpt.com/c/6a3ea6a0-a1f4-83eb-91bf-c7cd349080a0" },
};

describe("content sender check", () => {
  it("accepts our content script in the top frame of a chatgpt.com tab (Firefox has no origin)", () => {
    expect(checkContentSender(good, ID)).toEqual({ ok: true, tabId: 4, url: good.url });
    const { origin: _o, ...firefox } = good;
    expect(checkContentSender(firefox, ID).ok).toBe(true);
  });

  it("takes the tab's current URL: Chromium keeps the frame URL from before the page's pushState", () => {
    const afterPushState = { ...good, url: "https://chatgpt.com/" };
    expect(checkContentSender(afterPushState, ID)).toEqual({ ok: true, tabId: 4, url: good.tab.url });
    const noTabUrl = { ...good, tab: { id: 4 } };
    expect(checkContentSender(noTabUrl, ID)).toEqual({ ok: true, tabId: 4, url: good.url });
  });

  it.each([
    ["another extension", { ...good, id: "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz" }],
    ["no id", { ...good, id: undefined }],
    ["no tab", { ...good, tab: undefined }],
    ["a sub-frame", { ...good, frameId: 1 }],
    ["no frame id", { ...good, frameId: undefined }],
    ["another origin", { ...good, url: "https://example.com/", origin: "https://example.com" }],
    ["a look-alike host", { ...good, url: "https://chatgpt.com.example.com/c/x", origin: undefined }],
    ["plain http", { ...good, url: "http://chatgpt.com/", origin: "http://chatgpt.com" }],
    ["an origin that disagrees with the URL", { ...good, origin: "https://example.com" }],
  ])("rejects %s", (_label, sender) => {
    expect(checkContentSender(sender, ID).ok).toBe(false);
  });

  it("recognises the extension's own pages", () => {
    const base = `chrome-extension://${ID}/`;
    expect(isExtensionPageSender({ id: ID, url: `${base}popup.html` }, ID, base)).toBe(true);
    expect(isExtensionPageSender({ id: ID, url: `${base}popup.html`, tab: { id: 1 } }, ID, base)).toBe(false);
    expect(isExtensionPageSender({ id: ID, url: "https://chatgpt.com/" }, ID, base)).toBe(false);
  });
});
