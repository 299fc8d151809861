// EventWaiters: one batched wake pass per turn, only waiters the new sequence concerns, any of several signals.
import { describe, expect, it } from "vitest";
import { EventWaiters } from "./event-waiters.ts";

/** Settles on the next turn of the event loop, after a pending wake pass. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function tracked(p: Promise<void>): { done: boolean } {
  const state = { done: false };
  void p.then(() => (state.done = true));
  return state;
}

describe("EventWaiters", () => {
  it("wakes in one pass on the next turn, with the newest of several notifications", async () => {
    let seq = 10;
    const waiters = new EventWaiters(() => seq);
    const a = tracked(waiters.wait(10, 60_000));
    const b = tracked(waiters.wait(11, 60_000));
    const c = tracked(waiters.wait(12, 60_000));
    seq = 11;
    waiters.notify(11);
    seq = 12;
    waiters.notify(12);
    await Promise.resolve();
    // Nothing is woken inside the turn that wrote: the writer's own answer goes first.
    expect([a.done, b.done, c.done]).toEqual([false, false, false]);
    await nextTurn();
    await Promise.resolve();
    expect([a.done, b.done, c.done]).toEqual([true, true, false]);
    expect(waiters.size).toBe(1);
    seq = 13;
    waiters.notify(13);
    await nextTurn();
    await Promise.resolve();
    expect(c.done).toBe(true);
    expect(waiters.size).toBe(0);
  });

  it("wakes many waiters in chunks, so the first callers finish before the last are woken", async () => {
    let seq = 1;
    const waiters = new EventWaiters(() => seq);
    const log: string[] = [];
    const all = Array.from({ length: 35 }, (_, i) =>
      waiters
        .wait(1, 60_000)
        .then(() => log.push(`woken ${i}`))
        // A caller takes a few more promise steps before its answer is written.
        .then(() => undefined)
        .then(() => log.push(`answered ${i}`)),
    );
    seq = 2;
    waiters.notify(2);
    await Promise.all(all);
    expect(log.filter((l) => l.startsWith("answered"))).toHaveLength(35);
    expect(waiters.size).toBe(0);
    // Woken all at once, every caller would be woken before any answered.
    expect(log.indexOf("answered 0")).toBeLessThan(log.indexOf("woken 34"));
  });

  it("answers at once when the cursor is already passed, and ends on any of its signals", async () => {
    const waiters = new EventWaiters(() => 5);
    await waiters.wait(4, 60_000);
    const first = new AbortController();
    const second = new AbortController();
    const w = tracked(waiters.wait(5, 60_000, [first.signal, second.signal]));
    expect(waiters.size).toBe(1);
    second.abort();
    await Promise.resolve();
    expect(w.done).toBe(true);
    expect(waiters.size).toBe(0);
    await waiters.wait(5, 60_000, [second.signal]);
  });
});
