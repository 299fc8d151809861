import { describe, expect, it } from "vitest";
import { conversationIdOf, isChatGptUrl, showsConversation } from "./chatgpt-url.ts";

const ID = "6a3ea6a0-a1f4-83eb-91bf-c7cd349080a0";

describe("chatgpt.com URLs", () => {
  it("finds the conversation id of plain, GPT and project conversations", () => {
    expect(conversationIdOf(`https://chatgpt.com/c/${ID}`)).toBe(ID);
    expect(conversationIdOf(`https://chatgpt.com/c/${ID}?model=x#y`)).toBe(ID);
    expect(conversationIdOf(`https://chatgpt.com/g/g-p-0123456789abcdef0123456789abcdef-proj/c/${ID}`)).toBe(
      ID,
    );
  });

  it("has none for a new chat, transient first-send routes, other pages and other origins", () => {
    for (const url of [
      "https://chatgpt.com/",
      `https://chatgpt.com/c/local-chatgpt:${ID}`,
      `https://chatgpt.com/c/local-chatgpt%3A${ID}`,
      `https://chatgpt.com/c/WEB:${ID}`,
      "https://chatgpt.com/g/g-abc-gpt/project",
      `https://chat.openai.com/c/${ID}`,
      `http://chatgpt.com/c/${ID}`,
      `https://chatgpt.com.evil.example/c/${ID}`,
      "not a url",
      undefined,
    ])
      expect(conversationIdOf(url)).toBeUndefined();
  });

  it("compares tabs by conversation, and knows the origin", () => {
    expect(showsConversation(`https://chatgpt.com/c/${ID}/`, ID)).toBe(true);
    expect(showsConversation("https://chatgpt.com/", ID)).toBe(false);
    expect(isChatGptUrl("https://chatgpt.com/auth/login")).toBe(true);
    expect(isChatGptUrl("https://evil.example/?https://chatgpt.com/")).toBe(false);
  });
});
