// The in-memory window of newest events: answers only what it holds, in the table's order, filter and limit.
import { describe, expect, it } from "vitest";
import type { DomainEvent } from "../core/events.ts";
import { RecentEvents } from "./recent-events.ts";

const event = (i: number, workerId?: string): DomainEvent => ({
  type: "worker.progress",
  at: 1_000 + i,
  runId: i % 2 === 0 ? "even" : "odd",
  ...(workerId ? { workerId } : {}),
  data: { summary: `step ${i}`, gone: undefined },
});

function add(recent: RecentEvents, firstSeq: number, count: number): void {
  const events = Array.from({ length: count }, (_, i) => event(firstSeq + i, `w${(firstSeq + i) % 3}`));
  recent.add(
    events,
    events.map((e) => JSON.stringify(e.data)),
    firstSeq,
  );
}

describe("RecentEvents", () => {
  it("answers cursors inside its window with the stored form, filtered and limited as the table would", () => {
    const recent = new RecentEvents(10);
    add(recent, 11, 6); // seqs 11..16
    expect(recent.after(10, 100, {})?.map((e) => e.seq)).toEqual([11, 12, 13, 14, 15, 16]);
    expect(recent.after(12.5, 2, {})?.map((e) => e.seq)).toEqual([13, 14]);
    expect(recent.after(11, 100, { runId: "even" })?.map((e) => e.seq)).toEqual([12, 14, 16]);
    expect(recent.after(10, 100, { workerId: "w1" })?.map((e) => e.seq)).toEqual([13, 16]);
    expect(recent.after(16, 100, {})).toEqual([]);
    expect(recent.after(10, 0, {})).toEqual([]);
    expect(recent.after(10, -1, {})).toHaveLength(6);
    // The stored form: data as JSON gives it back (no undefined members), frozen against callers.
    const first = recent.after(10, 1, {})![0]!;
    expect(first).toEqual({
      seq: 11,
      type: "worker.progress",
      at: 1_011,
      runId: "odd",
      workerId: "w2",
      data: { summary: "step 11" },
    });
    expect(Object.isFrozen(first.data)).toBe(true);
  });

  it("sends older cursors to the table, drops the oldest beyond its capacity and never answers across a gap", () => {
    const recent = new RecentEvents(0, 4);
    expect(recent.after(0, 10, {})).toEqual([]);
    add(recent, 1, 6); // keeps 3..6
    expect(recent.after(1, 10, {})).toBeUndefined();
    expect(recent.after(2, 10, {})?.map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect(recent.after(Number.NaN, 10, {})).toBeUndefined();
    add(recent, 9, 1); // 7 and 8 were never seen: start over at 9
    expect(recent.after(6, 10, {})).toBeUndefined();
    expect(recent.after(8, 10, {})?.map((e) => e.seq)).toEqual([9]);
    recent.clear(9);
    expect(recent.after(8, 10, {})).toBeUndefined();
    expect(recent.after(9, 10, {})).toEqual([]);
  });
});
