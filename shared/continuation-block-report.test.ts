// The extension's block report: only the final block of the response counts, no text leaves but a
// blocked block's bounded summary, the progress hash follows current:/next: only, and the schema is strict.
import { describe, expect, it } from "vitest";
import {
  continuationBlockReport,
  continuationBlockReportSchema,
  MAX_BLOCKED_SUMMARY_CHARS,
} from "./continuation-block-report.ts";
import { conversationStateSchema } from "./native-messages.ts";

const blockText = (status: string, summary = "did a thing", current = "tests", next = "ship it") =>
  `status: ${status}\nsummary: ${summary}\ncurrent: ${current}\nnext: ${next}`;

describe("continuationBlockReport", () => {
  it("reports working and complete with a hash and no text", async () => {
    const working = await continuationBlockReport(`Done some work.\n\n${blockText("working")}`);
    expect(Object.keys(working).sort()).toEqual(["progressHash", "result", "status"]);
    expect(working).toMatchObject({ result: "block", status: "working" });
    expect((working as { progressHash: string }).progressHash).toMatch(/^[0-9a-f]{64}$/);
    const complete = await continuationBlockReport(blockText("complete"));
    expect(complete).toMatchObject({ result: "block", status: "complete" });
    expect(JSON.stringify(complete)).not.toContain("did a thing");
  });

  it("the hash changes with current: or next:, not with summary:", async () => {
    const hash = async (t: string) =>
      ((await continuationBlockReport(t)) as { progressHash: string }).progressHash;
    const base = await hash(blockText("working"));
    expect(await hash(blockText("working", "other summary"))).toBe(base);
    expect(await hash(blockText("working", "did a thing", "lint"))).not.toBe(base);
    expect(await hash(blockText("working", "did a thing", "tests", "release"))).not.toBe(base);
  });

  it("a blocked block carries its summary, on one line and bounded", async () => {
    const r = await continuationBlockReport(blockText("blocked", "Need the API key\n  for staging"));
    expect(r).toMatchObject({ result: "block", status: "blocked", summary: "Need the API key for staging" });
    const long = await continuationBlockReport(blockText("blocked", "x".repeat(2_000)));
    expect((long as { summary: string }).summary).toHaveLength(MAX_BLOCKED_SUMMARY_CHARS);
  });

  it("only the final block of the response counts: fenced or quoted earlier blocks do not", async () => {
    const fenced = `Example:\n\`\`\`\n${blockText("complete")}\n\`\`\`\nMore prose.\n\n${blockText("working")}`;
    expect(await continuationBlockReport(fenced)).toMatchObject({ status: "working" });
    const quoted = blockText("complete")
      .split("\n")
      .map((l) => `> ${l}`)
      .join("\n");
    expect(await continuationBlockReport(`${quoted}\n\nI am still going.`)).toEqual({ result: "missing" });
    expect(await continuationBlockReport(`${blockText("complete")}\n\nOne more thing.`)).toEqual({
      result: "malformed",
    });
    expect(await continuationBlockReport(blockText("done"))).toEqual({ result: "malformed" });
    expect(await continuationBlockReport("no block at all")).toEqual({ result: "missing" });
  });

  it("the schema is strict and part of conversation.state", async () => {
    const report = await continuationBlockReport(blockText("blocked", "why"));
    expect(continuationBlockReportSchema.parse(report)).toEqual(report);
    const bad = [
      { result: "block", status: "working", progressHash: "x" },
      { result: "block", status: "working", progressHash: "a".repeat(64), summary: "not for working" },
      { result: "missing", status: "working" },
      { result: "other" },
    ];
    for (const b of bad)
      expect(continuationBlockReportSchema.safeParse(b).success, JSON.stringify(b)).toBe(false);
    const message = {
      kind: "conversation.state",
      workerId: "w",
      state: "idle",
      seq: 3,
      continuationBlock: report,
    };
    expect(conversationStateSchema.parse(message)).toEqual(message);
  });
});
