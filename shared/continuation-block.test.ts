// parseContinuationBlock: only the final block of a response counts (docs/continuation-core.md).
import { describe, expect, it } from "vitest";
import { isContinuationBlock, parseContinuationBlock } from "./continuation-block.ts";

const block = (status: string, next = "Write the integration test.") =>
  `status: ${status}\nsummary: Added the parser.\ncurrent: Reviewing edge cases.\nnext: ${next}`;

describe("parseContinuationBlock", () => {
  it("reads a working block at the end of a response", () => {
    expect(parseContinuationBlock(`I did the work.\n\n${block("working")}\n`)).toEqual({
      status: "working",
      summary: "Added the parser.",
      current: "Reviewing edge cases.",
      next: "Write the integration test.",
    });
  });

  it("reads complete and blocked", () => {
    expect(parseContinuationBlock(block("complete", "none"))).toMatchObject({
      status: "complete",
      next: "none",
    });
    expect(parseContinuationBlock(`Stuck.\n${block("blocked", "Need the API key from ops.")}`)).toMatchObject(
      {
        status: "blocked",
        next: "Need the API key from ops.",
      },
    );
  });

  it("is tolerant of bold markers, bullets, label case, blank lines, CRLF and continued values", () => {
    const text = [
      "Done for now.",
      "",
      "**Status:** **working**",
      "",
      "- **summary**: Added the parser",
      "  and its tests.",
      "* `current`: `none`",
      "__Next__: _Wire it into the importer._   ",
      "",
    ].join("\r\n");
    expect(parseContinuationBlock(text)).toEqual({
      status: "working",
      summary: "Added the parser\nand its tests.",
      current: "none",
      next: "Wire it into the importer.",
    });
  });

  it("accepts a status in any letter case but nothing else", () => {
    expect(parseContinuationBlock(block("Complete", "none"))).toMatchObject({ status: "complete" });
    for (const bad of [
      "working | complete | blocked",
      "done",
      "in progress",
      "working.",
      "working (mostly)",
      "",
    ]) {
      expect(parseContinuationBlock(block(bad)), bad).toMatchObject({ error: "malformed" });
    }
  });

  it("reports a missing block", () => {
    expect(parseContinuationBlock("All good, I'll keep going.")).toMatchObject({ error: "missing" });
    expect(parseContinuationBlock("")).toMatchObject({ error: "missing" });
  });

  it("reports malformed blocks", () => {
    const cases = {
      "missing field": "status: working\nsummary: x\nnext: y",
      "wrong order": "status: working\ncurrent: x\nsummary: y\nnext: z",
      "duplicate field": "status: working\nsummary: x\nsummary: y\ncurrent: a\nnext: b",
      "empty summary": "status: complete\nsummary:\ncurrent: none\nnext: none",
      "working without next": "status: working\nsummary: x\ncurrent: y\nnext:",
      "prose after the block": `${block("working")}\n\nLet me know if you need anything else.`,
      "quote after the block": `${block("working")}\n\n> a closing quote`,
    };
    for (const [name, text] of Object.entries(cases)) {
      expect(parseContinuationBlock(text), name).toMatchObject({ error: "malformed" });
    }
  });

  it("ignores a block inside an earlier code fence", () => {
    const text = `The format is:\n\n\`\`\`text\n${block("complete", "none")}\n\`\`\`\n\nI am still working.`;
    const result = parseContinuationBlock(text);
    expect(result).toMatchObject({ error: "missing" });
    expect("detail" in result && result.detail).toMatch(/fence/);
    expect(parseContinuationBlock(`${text}\n\n${block("working")}`)).toMatchObject({ status: "working" });
  });

  it("accepts a fenced block when the fence ends the response", () => {
    expect(
      parseContinuationBlock(`Progress made.\n\n\`\`\`text\n${block("working")}\n\`\`\`\n`),
    ).toMatchObject({
      status: "working",
    });
    expect(parseContinuationBlock(`Progress made.\n\n~~~\n${block("blocked")}\n~~~`)).toMatchObject({
      status: "blocked",
    });
    // An unclosed final fence (the closing line lost on the way) is read the same way.
    expect(parseContinuationBlock(`Progress.\n\`\`\`\n${block("complete", "none")}`)).toMatchObject({
      status: "complete",
    });
  });

  it("ignores a block in a quote", () => {
    const quoted = block("complete", "none")
      .split("\n")
      .map((l) => `> ${l}`)
      .join("\n");
    expect(parseContinuationBlock(`You asked me to end with:\n${quoted}`)).toMatchObject({
      error: "missing",
    });
    expect(parseContinuationBlock(`${quoted}\n\nOK.\n\n${block("working")}`)).toMatchObject({
      status: "working",
    });
  });

  it("uses the final block when a block is quoted earlier without markup", () => {
    const text = `Earlier you saw:\n${block("complete", "none")}\n\nBut tests fail, so:\n\n${block("working", "Fix the failing test.")}`;
    expect(parseContinuationBlock(text)).toMatchObject({ status: "working", next: "Fix the failing test." });
  });

  it("does not take a status word inside a sentence for a label", () => {
    expect(parseContinuationBlock("The build status: working fine, more soon.")).toMatchObject({
      error: "missing",
    });
  });

  it("narrows with isContinuationBlock", () => {
    const result = parseContinuationBlock(block("working"));
    expect(isContinuationBlock(result) && result.status).toBe("working");
    expect(isContinuationBlock(parseContinuationBlock("nothing"))).toBe(false);
  });
});
