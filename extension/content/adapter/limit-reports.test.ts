// Rate-limit and usage-cap reports carry the reset time the notice states (`resetAt`), from both shapes the page shows
// them in: a dialog (or toast) and a banner by the composer, in both layouts (docs/adapter.md, "Rate limits").
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakePageSuite } from "./fixtures/fake-chatgpt.ts";

const LAYOUTS = ["classic", "composer-2026"] as const;

const setup = fakePageSuite({
  forbidClicks: true,
  beforeEach,
  afterEach,
  useFakeTimers: () => vi.useFakeTimers(),
  useRealTimers: () => vi.useRealTimers(),
  advanceTimersByTimeAsync: (ms) => vi.advanceTimersByTimeAsync(ms),
});

/** Monday 30 November 2026, 14:00 local time: the page is loaded then (setup runs 3 s more). */
const START = new Date(2026, 10, 30, 14, 0, 0);
const local = (days: number, hour: number, minute = 0) =>
  new Date(2026, 10, 30 + days, hour, minute).getTime();

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(START);
});

describe.each(LAYOUTS)("%s layout", (layout) => {
  it("a banner by the composer: USAGE_CAP with the time it states", async () => {
    const { page, reports } = await setup({ layout });
    page.addBanner("usage-cap-banner", "You've hit your limit. Please try again after 3:45 PM.");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reports.at(-1)).toMatchObject({
      state: "error",
      errorCode: "USAGE_CAP",
      resetAt: local(0, 15, 45),
    });
  });

  it("the length-limit notice by the composer or as a toast: CONVERSATION_TOO_LONG, no reset time", async () => {
    const { page, reports } = await setup({ layout });
    page.addBanner(
      "usage-cap-banner",
      "You've reached the maximum length for this conversation, but you can keep talking by starting a new chat.",
    );
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reports.at(-1)).toMatchObject({ state: "error", errorCode: "CONVERSATION_TOO_LONG" });
    expect(reports.at(-1)).not.toHaveProperty("resetAt");
  });

  it("the older length-limit words in a toast: CONVERSATION_TOO_LONG", async () => {
    const { page, reports } = await setup({ layout });
    page.addToPortal("toast-error", "The conversation is too long, please start a new one.");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reports.at(-1)).toMatchObject({ state: "error", errorCode: "CONVERSATION_TOO_LONG" });
  });

  it("a dialog with a time: RATE_LIMITED with it; a wait counts from when the dialog first showed", async () => {
    const { page, reports, adapter } = await setup({ layout });
    const shownAt = Date.now();
    page.addDialog("Too many requests. You're sending messages too quickly. Try again in 20 minutes.");
    await vi.advanceTimersByTimeAsync(2_000);
    const report = reports.at(-1)!;
    expect(report).toMatchObject({ state: "error", errorCode: "RATE_LIMITED" });
    // Seen by the next tick (the mutation throttle), well within the poll interval.
    expect(report.resetAt! - (shownAt + 20 * 60_000)).toBeGreaterThanOrEqual(0);
    expect(report.resetAt! - (shownAt + 20 * 60_000)).toBeLessThan(1_000);
    // Read once: minutes later the same words still mean the same moment, and make no new report.
    const count = reports.length;
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(reports).toHaveLength(count);
    expect(adapter.current()?.resetAt).toBe(report.resetAt);
  });

  it("the 'Too many requests … Please wait a few minutes' dialog states no time: no resetAt", async () => {
    const { page, reports } = await setup({ layout });
    page.addToPortal("rate-limit-dialog");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reports.at(-1)).toMatchObject({ state: "error", errorCode: "RATE_LIMITED" });
    expect(reports.at(-1)).not.toHaveProperty("resetAt");
  });

  it("a toast with a 24-hour time", async () => {
    const { page, reports } = await setup({ layout });
    page.addToPortal("toast-error", "Usage limit reached. Your limit resets after 14:05.");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reports.at(-1)).toMatchObject({ errorCode: "USAGE_CAP", resetAt: local(0, 14, 5) });
  });

  it("new words, a new time: one new report; the notice gone, the error clears", async () => {
    const { page, reports, states } = await setup({ layout });
    const banner = page.addBanner(
      "usage-cap-banner",
      "You've hit your limit. Please try again after 3:45 PM.",
    );
    await vi.advanceTimersByTimeAsync(2_000);
    banner.querySelector("p")!.textContent = "You've hit your limit. Please try again after 4:10 PM.";
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reports.slice(-2).map((r) => r.resetAt)).toEqual([local(0, 15, 45), local(0, 16, 10)]);
    banner.remove();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(states()).toEqual(["ready", "error:USAGE_CAP", "error:USAGE_CAP", "ready"]);
    expect(reports.at(-1)).not.toHaveProperty("resetAt");
  });
});

describe("real-DOM shapes of the fixtures", () => {
  it("classic: 'Responses will use another model until your limit resets after 5:42 PM'", async () => {
    const { page, reports } = await setup({ layout: "classic" });
    page.addBanner("usage-cap-banner");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reports.at(-1)).toMatchObject({ errorCode: "USAGE_CAP", resetAt: local(0, 17, 42) });
  });

  it("composer-2026: 'Your limit resets on Friday' names no time: no resetAt", async () => {
    const { page, reports } = await setup({ layout: "composer-2026" });
    page.addBanner("usage-cap-banner");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reports.at(-1)).toMatchObject({ state: "error", errorCode: "USAGE_CAP" });
    expect(reports.at(-1)).not.toHaveProperty("resetAt");
  });

  it("a clock time read when the notice showed stays today's after it passes", async () => {
    vi.setSystemTime(new Date(2026, 10, 30, 15, 44, 0));
    const { page, reports } = await setup({ layout: "classic" });
    page.addBanner("usage-cap-banner", "You've hit your limit. Please try again after 3:45 PM.");
    await vi.advanceTimersByTimeAsync(2_000);
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(reports.filter((r) => r.state === "error").map((r) => r.resetAt)).toEqual([local(0, 15, 45)]);
  });
});
