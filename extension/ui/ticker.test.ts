// The shared countdown tick: one timer however many countdowns are shown, none while nothing is.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { holdTick, secondTick, tickRunning } from "./ticker.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("holdTick", () => {
  it("ticks once a second while held, with one timer for all holders, and stops with the last", () => {
    expect(tickRunning()).toBe(false);
    const start = secondTick.value;
    const a = holdTick();
    const b = holdTick();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(3_000);
    expect(secondTick.value - start).toBe(3);
    a();
    a(); // letting go twice counts once
    expect(tickRunning()).toBe(true);
    vi.advanceTimersByTime(1_000);
    expect(secondTick.value - start).toBe(4);
    b();
    expect(tickRunning()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    expect(secondTick.value - start).toBe(4);
  });
});
