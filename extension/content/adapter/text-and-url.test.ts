// @vitest-environment happy-dom
// Pure pieces: composer read-back, answer text for the continuation block, URL classes, error texts.
import { describe, expect, it } from "vitest";
import { parseContinuationBlock } from "../../../shared/continuation-block.ts";
import { classifyAnswerText, classifyCardText, classifyNoticeText } from "./errors.ts";
import { editorText, normalizeText, renderedText } from "./page-text.ts";
import { classifyUrl } from "./url.ts";

/** Builds a detached element from trusted test markup (test code only; the adapter never parses HTML). */
function html(markup: string): Element {
  const tpl = document.createElement("template");
  tpl.innerHTML = markup;
  const div = document.createElement("div");
  div.appendChild(tpl.content);
  return div;
}

describe("editorText (composer read-back)", () => {
  const cases: Array<[string, string]> = [
    ['<p data-placeholder="Ask anything" class="placeholder"><br class="ProseMirror-trailingBreak"></p>', ""],
    ["<p>one</p><p>two</p>", "one\ntwo"],
    ["<p>one</p><p><br></p><p>three</p>", "one\n\nthree"],
    ['<p>one</p><p><br class="ProseMirror-trailingBreak"></p><p>three</p>', "one\n\nthree"],
    ["<p>hard<br>break</p>", "hard\nbreak"],
    ["<p>  indented\u00a0text  </p>", "  indented text"],
    ["<p>zero\u200bwidth</p>", "zerowidth"],
  ];
  for (const [markup, text] of cases) {
    it(`${JSON.stringify(markup)} → ${JSON.stringify(text)}`, () => {
      expect(editorText(html(markup))).toBe(text);
    });
  }

  it("a textarea is read from its value", () => {
    const ta = document.createElement("textarea");
    ta.value = "a\r\nb  \n";
    expect(editorText(ta)).toBe("a\nb");
  });

  it("normalizeText keeps everything but line endings, NBSP, zero-width and trailing blanks", () => {
    expect(normalizeText("x\u00a0y \r\n\n")).toBe("x y");
  });
});

describe("renderedText → parseContinuationBlock (only the status leaves the adapter)", () => {
  it("a rendered list with bold labels", () => {
    const root = html(
      "<p>Done.</p><ul><li><strong>status:</strong> blocked</li><li><strong>summary:</strong> s</li>" +
        "<li><strong>current:</strong> c</li><li><strong>next:</strong> Need the key.</li></ul>",
    );
    expect(parseContinuationBlock(renderedText(root, [".sr-only"]))).toMatchObject({ status: "blocked" });
  });

  it("soft breaks inside one paragraph, and a copied code block header is skipped", () => {
    const root = html(
      "<pre><div>plaintext<button>Copy code</button></div><code>status: working\nsummary: x\ncurrent: y\nnext: z\n</code></pre>",
    );
    expect(parseContinuationBlock(renderedText(root, []))).toMatchObject({ status: "working" });
    const br = html("<p>status: complete<br>summary: x<br>current: none<br>next: none</p>");
    expect(parseContinuationBlock(renderedText(br, []))).toMatchObject({ status: "complete" });
  });

  it("a quoted block does not count", () => {
    const root = html(
      "<blockquote><p>status: complete</p><p>summary: x</p><p>current: y</p><p>next: z</p></blockquote>",
    );
    expect(parseContinuationBlock(renderedText(root, []))).toMatchObject({ error: "missing" });
  });
});

describe("classifyUrl", () => {
  const loc = (path: string, search = "") => ({ origin: "https://chatgpt.com", pathname: path, search });
  const uuid = "6a3ea6a0-a1f4-83eb-91bf-c7cd349080a0";

  it("persisted conversations, also inside GPTs and projects", () => {
    expect(classifyUrl(loc(`/c/${uuid}`))).toEqual({
      kind: "conversation",
      url: `https://chatgpt.com/c/${uuid}`,
      conversationId: uuid,
    });
    expect(classifyUrl(loc(`/g/g-p-0123456789abcdef0123456789abcdef-x/c/${uuid}/`)).url).toBe(
      `https://chatgpt.com/g/g-p-0123456789abcdef0123456789abcdef-x/c/${uuid}`,
    );
  });

  it("draft routes of a first send are transient", () => {
    expect(classifyUrl(loc(`/c/local-chatgpt%3A${uuid}`)).kind).toBe("transient");
    expect(classifyUrl(loc(`/c/local-chatgpt:${uuid}`)).kind).toBe("transient");
    expect(classifyUrl(loc(`/c/WEB:${uuid}`)).kind).toBe("transient");
  });

  it("other pages keep only the temporary-chat flag", () => {
    expect(classifyUrl(loc("/", "?model=gpt-5"))).toEqual({ kind: "page", url: "https://chatgpt.com/" });
    expect(classifyUrl(loc("/", "?temporary-chat=true")).url).toBe(
      "https://chatgpt.com/?temporary-chat=true",
    );
  });
});

describe("error texts", () => {
  it("the delivery timeout in any shape", () => {
    expect(classifyCardText("Message delivery timed out. Please try again. Retry")).toBe(
      "MESSAGE_DELIVERY_TIMEOUT",
    );
    expect(classifyAnswerText("Message delivery timed out. Please try again.")).toBe(
      "MESSAGE_DELIVERY_TIMEOUT",
    );
    expect(classifyNoticeText("Message delivery timed out. Please try again.")).toBe(
      "MESSAGE_DELIVERY_TIMEOUT",
    );
  });

  it("transport failures only as whole strings: an answer that mentions one is no error", () => {
    expect(classifyAnswerText("Network error")).toBe("RESPONSE_FAILED");
    expect(
      classifyAnswerText("A network error in the log was expected, so I retried the upload."),
    ).toBeUndefined();
    expect(classifyCardText("There was an error generating a response Retry")).toBe("RESPONSE_FAILED");
  });

  it("a long answer is no error sentence, and a short one with a long run of Retry labels or spaces still is", () => {
    const words = Array.from({ length: 1_000 }, (_, i) => `word${i}`).join(" ");
    expect(classifyAnswerText(`Network error ${words}`)).toBeUndefined();
    expect(classifyAnswerText(`${words}\n\nNetwork error`)).toBeUndefined();
    // The labels fill the whole window the shortcut looks at: it must not count them as text.
    expect(classifyAnswerText(`Network error${" Retry".repeat(200)}`)).toBe("RESPONSE_FAILED");
    expect(classifyAnswerText(`Network error${" Try again  regenerate response".repeat(40)}`)).toBe(
      "RESPONSE_FAILED",
    );
    expect(classifyAnswerText(`Network error${"\n".repeat(2_000)}Retry`)).toBe("RESPONSE_FAILED");
    expect(classifyAnswerText(`${" ".repeat(1_000)}Something went wrong.${" \n".repeat(500)}`)).toBe(
      "RESPONSE_FAILED",
    );
    // Just over and just under the limit, with labels after the text.
    const over = `Something went wrong. ${"y".repeat(290)}${" Retry".repeat(100)}`;
    expect(classifyAnswerText(over)).toBeUndefined();
    const under = `Something went wrong. ${"y".repeat(150)}${" Retry".repeat(100)}`;
    expect(classifyAnswerText(under)).toBe("RESPONSE_FAILED");
  });

  it("rate limits, usage caps, sign-in and challenges", () => {
    expect(classifyNoticeText("Too many requests. You're making requests too quickly. Got it")).toBe(
      "RATE_LIMITED",
    );
    expect(classifyNoticeText("요청이 너무 많습니다 알겠습니다")).toBe("RATE_LIMITED");
    expect(
      classifyNoticeText("You've hit the Plus plan limit for GPT-5. Try again after your limit resets."),
    ).toBe("USAGE_CAP");
    expect(classifyNoticeText("Verify you are human")).toBe("HUMAN_VERIFICATION");
    expect(classifyNoticeText("Your session has expired. Log in again.")).toBe("NOT_SIGNED_IN");
    expect(classifyNoticeText("Actions refreshed")).toBeUndefined();
  });
});
