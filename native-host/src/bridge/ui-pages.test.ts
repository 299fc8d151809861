import { describe, expect, it } from "vitest";
import { cutIntoPages, PagedAnswers } from "./ui-pages.ts";

const LIMIT = 64 * 1024;
const size = (page: unknown) => Buffer.byteLength(JSON.stringify(page), "utf8");

describe("cutIntoPages", () => {
  it("spreads every list's items over pages in order, once each, and repeats the other fields", () => {
    const result = {
      runs: Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, note: "é→".repeat(500) })),
      workers: Array.from({ length: 90 }, (_, i) => ({ id: `w${i}`, text: `"\n`.repeat(700) })),
      eventSeq: 42,
    };
    const pages = cutIntoPages(result, LIMIT)!;
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) {
      expect(size(page)).toBeLessThanOrEqual(LIMIT - 4 * 1024);
      expect(page.eventSeq).toBe(42);
      expect(Object.keys(page)).toEqual(["runs", "workers", "eventSeq"]);
    }
    expect(pages.flatMap((p) => p.runs as unknown[])).toEqual(result.runs);
    expect(pages.flatMap((p) => p.workers as unknown[])).toEqual(result.workers);
  });

  it("cannot cut an answer without lists, or with an item too large for a page of its own", () => {
    expect(cutIntoPages("x".repeat(LIMIT), LIMIT)).toBeUndefined();
    expect(cutIntoPages({ text: "x".repeat(LIMIT) }, LIMIT)).toBeUndefined();
    expect(cutIntoPages({ items: ["small", "x".repeat(LIMIT)] }, LIMIT)).toBeUndefined();
  });
});

describe("PagedAnswers", () => {
  const pages = [{ items: [1] }, { items: [2] }, { items: [3] }];

  it("serves the pages after the first by cursor for the same op, then forgets the answer", () => {
    const answers = new PagedAnswers();
    const first = answers.keep("ui_summary", pages);
    expect(answers.take("worker_list", first)).toBeUndefined();
    const second = answers.take("ui_summary", first)!;
    expect(second.page).toEqual({ items: [2] });
    const third = answers.take("ui_summary", second.nextCursor!)!;
    expect(third).toEqual({ page: { items: [3] } });
    expect(answers.take("ui_summary", second.nextCursor!)).toBeUndefined();
    expect(answers.take("ui_summary", "nonsense")).toBeUndefined();
  });

  it("keeps a bounded number of answers, dropping the oldest", () => {
    const answers = new PagedAnswers();
    const cursors = Array.from({ length: 9 }, () => answers.keep("ui_summary", pages));
    expect(answers.take("ui_summary", cursors[0]!)).toBeUndefined();
    for (const cursor of cursors.slice(1))
      expect(answers.take("ui_summary", cursor)?.page).toEqual({ items: [2] });
  });
});
