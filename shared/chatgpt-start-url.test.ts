// Which chatgpt.com pages a new conversation may start from: a GPT's or a project's page, nothing else.
import { describe, expect, it } from "vitest";
import { isChatGptStartUrl } from "./chatgpt-start-url.ts";

describe("isChatGptStartUrl", () => {
  it("accepts GPT and project pages and refuses conversations, other pages and other origins", () => {
    for (const url of [
      "https://chatgpt.com/g/g-abc123def-writer",
      "https://chatgpt.com/g/g-0123456789abcdef0123456789abcdef-writer/",
      "https://chatgpt.com/g/g-p-0123456789abcdef0123456789abcdef-site/project",
    ])
      expect(isChatGptStartUrl(url), url).toBe(true);
    for (const url of [
      "https://chatgpt.com/",
      "https://chatgpt.com/c/6800f3a1-0000-8000-9000-000000000001",
      "https://chatgpt.com/g/g-abc123def-writer/c/6800f3a1-0000-8000-9000-000000000001",
      "https://chatgpt.com/g/../share/x",
      "https://chatgpt.com/share/abc",
      "http://chatgpt.com/g/g-abc123def-writer",
      "https://chatgpt.com.evil.example/g/g-abc123def-writer",
      "https://user:pw@chatgpt.com/g/g-abc123def-writer",
      "not a url",
    ])
      expect(isChatGptStartUrl(url), url).toBe(false);
  });
});
