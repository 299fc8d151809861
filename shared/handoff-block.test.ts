// The handoff brief block's parser (shared/handoff-block.ts): which block of an answer counts, the delimiter variants
// a model writes, and that the continuation-state block after it still parses from the same answer.
import { describe, expect, it } from "vitest";
import { parseContinuationBlock } from "./continuation-block.ts";
import {
  HANDOFF_BEGIN,
  HANDOFF_BLOCK_LINES,
  HANDOFF_END,
  MAX_HANDOFF_BRIEF_CHARS,
  parseHandoffBlock,
} from "./handoff-block.ts";

const BODY = [
  "done: the parser and its tests (commit abc123, shared/handoff-block.ts)",
  "next steps: wire the adapter, then the background",
  "decisions: the brief is never stored",
  "open questions: none",
  "files touched: shared/, extension/content/adapter/",
].join("\n");

const block = (body = BODY, begin = HANDOFF_BEGIN, end = HANDOFF_END) => `${begin}\n${body}\n${end}`;

const CONTINUATION = "status: working\nsummary: brief written\ncurrent: handing off\nnext: open the new chat";

describe("parseHandoffBlock", () => {
  it("reads the canonical block's body between its delimiter lines, prose around it ignored", () => {
    const answer = `Here is the handoff.\n\n${block()}\n\nThat is all.`;
    expect(parseHandoffBlock(answer)).toBe(BODY);
  });

  it("reads the block exactly as the request and the skill show it", () => {
    expect(parseHandoffBlock(HANDOFF_BLOCK_LINES.join("\n"))).toBe(
      HANDOFF_BLOCK_LINES.slice(1, -1).join("\n"),
    );
  });

  it.each([
    ["bold", "**BEGIN HANDOFF BRIEF**", "**END HANDOFF BRIEF**"],
    ["italic", "_BEGIN HANDOFF BRIEF_", "_END HANDOFF BRIEF_"],
    ["code", "`BEGIN HANDOFF BRIEF`", "`END HANDOFF BRIEF`"],
    ["a heading", "## BEGIN HANDOFF BRIEF", "### END HANDOFF BRIEF"],
    ["a trailing colon", "BEGIN HANDOFF BRIEF:", "END HANDOFF BRIEF:"],
    ["bold with the colon inside", "**BEGIN HANDOFF BRIEF:**", "**END HANDOFF BRIEF:**"],
    ["lower case and extra spaces", "  begin  handoff brief", "end handoff   brief  "],
    ["CRLF line ends", "BEGIN HANDOFF BRIEF\r", "END HANDOFF BRIEF\r"],
  ])("tolerates %s on the delimiter lines", (_what, begin, end) => {
    expect(parseHandoffBlock(`Intro.\n${block(BODY, begin, end)}\nBye.`)).toBe(BODY);
  });

  it("does not take a line that only mentions the words for a delimiter", () => {
    const answer = `I will write BEGIN HANDOFF BRIEF below.\n${BODY}\nthen END HANDOFF BRIEF after it.`;
    expect(parseHandoffBlock(answer)).toBeUndefined();
  });

  it("ignores a block inside a `>` quote", () => {
    const quoted = block()
      .split("\n")
      .map((l) => `> ${l}`)
      .join("\n");
    expect(parseHandoffBlock(`You asked for this:\n\n${quoted}\n\nDone.`)).toBeUndefined();
  });

  it("a quoted example before the real block leaves the real one", () => {
    const quoted = block("done: example")
      .split("\n")
      .map((l) => `> ${l}`)
      .join("\n");
    expect(parseHandoffBlock(`${block()}\n\n${quoted}`)).toBe(BODY);
  });

  it("the last complete block wins", () => {
    const answer = `${block("done: a draft")}\n\nOn second thought:\n\n${block()}`;
    expect(parseHandoffBlock(answer)).toBe(BODY);
  });

  it("a last BEGIN without END leaves the complete block before it", () => {
    const answer = `${block()}\n\n${HANDOFF_BEGIN}\ndone: cut off`;
    expect(parseHandoffBlock(answer)).toBe(BODY);
  });

  it("a stray END after a complete block is not part of the brief", () => {
    expect(parseHandoffBlock(`${block()}\nMore words.\n${HANDOFF_END}`)).toBe(BODY);
  });

  it("BEGIN without END is no block", () => {
    expect(parseHandoffBlock(`${HANDOFF_BEGIN}\n${BODY}`)).toBeUndefined();
  });

  it("END without BEGIN is no block", () => {
    expect(parseHandoffBlock(`${BODY}\n${HANDOFF_END}`)).toBeUndefined();
  });

  it("an empty body (blank lines, fence lines only) is no block", () => {
    expect(parseHandoffBlock(`${HANDOFF_BEGIN}\n${HANDOFF_END}`)).toBeUndefined();
    expect(parseHandoffBlock(`${HANDOFF_BEGIN}\n\n   \n${HANDOFF_END}`)).toBeUndefined();
    expect(parseHandoffBlock(`${HANDOFF_BEGIN}\n\`\`\`\n\`\`\`\n${HANDOFF_END}`)).toBeUndefined();
  });

  it("drops fence lines inside the block and keeps what they wrap", () => {
    const fenced = `${HANDOFF_BEGIN}\n\`\`\`text\n${BODY}\n\`\`\`\n${HANDOFF_END}`;
    expect(parseHandoffBlock(fenced)).toBe(BODY);
    const tildes = `${HANDOFF_BEGIN}\n~~~\n${BODY}\n~~~\n${HANDOFF_END}`;
    expect(parseHandoffBlock(tildes)).toBe(BODY);
  });

  it("reads a block whose delimiters sit inside a fence (a model fencing the whole block)", () => {
    expect(parseHandoffBlock(`Here:\n\`\`\`\n${block()}\n\`\`\`\n`)).toBe(BODY);
  });

  it(`cuts the brief to ${MAX_HANDOFF_BRIEF_CHARS} characters`, () => {
    const long = `done: ${"x".repeat(MAX_HANDOFF_BRIEF_CHARS * 2)}`;
    const brief = parseHandoffBlock(block(long));
    expect(brief).toHaveLength(MAX_HANDOFF_BRIEF_CHARS);
    expect(brief).toBe(long.slice(0, MAX_HANDOFF_BRIEF_CHARS));
  });

  it("does not split an emoji where it cuts", () => {
    const long = `done: ${"x".repeat(MAX_HANDOFF_BRIEF_CHARS - 7)}\u{1F600} and more`;
    const brief = parseHandoffBlock(block(long))!;
    expect(brief).toHaveLength(MAX_HANDOFF_BRIEF_CHARS - 1);
    expect(brief.endsWith("x")).toBe(true);
  });

  it("no block at all is undefined", () => {
    expect(parseHandoffBlock("")).toBeUndefined();
    expect(parseHandoffBlock(`Just an answer.\n\n${CONTINUATION}`)).toBeUndefined();
  });
});

describe("a handoff block followed by the continuation-state block (the answer to a handoff request)", () => {
  const answer = `Handing off now.\n\n${block()}\n\n${CONTINUATION}`;

  it("the handoff block parses", () => {
    expect(parseHandoffBlock(answer)).toBe(BODY);
  });

  it("and the continuation block still parses from the same text", () => {
    expect(parseContinuationBlock(answer)).toEqual({
      status: "working",
      summary: "brief written",
      current: "handing off",
      next: "open the new chat",
    });
  });

  it("both parse with emphasis on the delimiters and a list-styled continuation block", () => {
    const styled = `${block(BODY, "**BEGIN HANDOFF BRIEF**", "**END HANDOFF BRIEF**")}\n\n- **status:** complete\n- **summary:** handed off\n- **current:** -\n- **next:** -`;
    expect(parseHandoffBlock(styled)).toBe(BODY);
    expect(parseContinuationBlock(styled)).toMatchObject({ status: "complete", summary: "handed off" });
  });
});
