// parseResetTime (reset-time.ts): the reset time a limit notice states, as of the moment it was seen. Expectations are
// built with the same local Date arithmetic, so the tests hold in any time zone (docs/adapter.md, "Rate limits").
import { describe, expect, it } from "vitest";
import { parseResetTime } from "./reset-time.ts";

/** Monday 30 November 2026, 14:00:00 local time. */
const NOW = new Date(2026, 10, 30, 14, 0, 0);
/** Local time on the day `days` after NOW's. */
const local = (days: number, hour: number, minute = 0) =>
  new Date(2026, 10, 30 + days, hour, minute).getTime();
const MIN = 60_000;
const parse = (text: string, now = NOW) => parseResetTime(text, now);

describe("parseResetTime", () => {
  it("12-hour clock times later today", () => {
    expect(parse("You've hit your limit. Please try again after 3:45 PM.")).toBe(local(0, 15, 45));
    expect(parse("You've reached the usage cap until 3:45 PM")).toBe(local(0, 15, 45));
    expect(parse("Your limit resets after 4:10 pm")).toBe(local(0, 16, 10));
    expect(parse("Try again after 4 p.m.")).toBe(local(0, 16, 0));
    expect(parse("Please try again at 11:05PM")).toBe(local(0, 23, 5));
    expect(parse("until 12 pm", new Date(2026, 10, 30, 9, 0))).toBe(local(0, 12, 0));
  });

  it("24-hour clock times", () => {
    expect(parse("Your limit resets after 14:05")).toBe(local(0, 14, 5));
    expect(parse("Usage limit reached. Try again at 15:30.")).toBe(local(0, 15, 30));
    expect(parse("limit reached until 23:59:00")).toBe(local(0, 23, 59));
  });

  it("a clock time earlier than now is tomorrow's", () => {
    expect(parse("You've hit your limit. Please try again after 9:15 AM.")).toBe(local(1, 9, 15));
    expect(parse("Your limit resets after 13:59")).toBe(local(1, 13, 59));
    expect(parse("until 12:30 am")).toBe(local(1, 0, 30));
    // Exactly now is not earlier than now.
    expect(parse("until 2:00 PM")).toBe(local(0, 14, 0));
  });

  it("tomorrow, a weekday, a date", () => {
    expect(parse("You've reached your limit until tomorrow at 9:00 AM.")).toBe(local(1, 9, 0));
    expect(parse("Limit resets tomorrow at 15:00")).toBe(local(1, 15, 0));
    // NOW is a Monday: Friday is four days on; Monday at an earlier hour is next week's.
    expect(parse("Your limit resets on Friday at 9:00 AM")).toBe(local(4, 9, 0));
    expect(parse("Your limit resets Monday at 8 AM")).toBe(local(7, 8, 0));
    expect(parse("Your limit resets Monday at 6 PM")).toBe(local(0, 18, 0));
    expect(parse("Your limit resets on December 3 at 9:00 AM")).toBe(local(3, 9, 0));
    expect(parse("Your limit resets on 2 Dec at 10:30")).toBe(local(2, 10, 30));
    // A date already past this year is next year's.
    expect(parse("Your limit resets on November 1 at 9:00 AM")).toBe(new Date(2027, 10, 1, 9, 0).getTime());
  });

  it("noon and midnight", () => {
    expect(parse("limit reached until noon", new Date(2026, 10, 30, 9, 0))).toBe(local(0, 12, 0));
    expect(parse("limit reached until midnight")).toBe(local(1, 0, 0));
  });

  it("waits, counted from the moment the notice was seen", () => {
    const at = NOW.getTime();
    expect(parse("You've hit your limit. Try again in 20 minutes.")).toBe(at + 20 * MIN);
    expect(parse("You've hit your limit. Please try again in 2 hours.")).toBe(at + 120 * MIN);
    expect(parse("Rate limit reached. Please try again in about 45 mins")).toBe(at + 45 * MIN);
    expect(parse("Limit resets in 1 hour and 30 minutes")).toBe(at + 90 * MIN);
    expect(parse("Limit resets in 1h 30m")).toBe(at + 90 * MIN);
    expect(parse("Limit resets in 2h")).toBe(at + 120 * MIN);
    expect(parse("Limit resets in an hour")).toBe(at + 60 * MIN);
    expect(parse("Limit resets in half an hour")).toBe(at + 30 * MIN);
    expect(parse("Too many requests. Try again after 30 seconds")).toBe(at + 30_000);
    expect(parse("Too many requests. Please wait 5 minutes.")).toBe(at + 5 * MIN);
    expect(parse("Limit resets in 2 days")).toBe(at + 2 * 24 * 60 * MIN);
  });

  it("a quota's window is not its reset time", () => {
    const at = NOW.getTime();
    expect(parse("You've used 40 messages in 3 hours. Try again in 20 minutes.")).toBe(at + 20 * MIN);
    expect(parse("You've used 40 messages in 3 hours.")).toBeUndefined();
  });

  it("the first time stated wins", () => {
    expect(parse("Try again in 20 minutes (at 2:20 PM)")).toBe(NOW.getTime() + 20 * MIN);
    expect(parse("Try again at 3:45 PM, in about 105 minutes")).toBe(local(0, 15, 45));
  });

  it("UTC and GMT clock times are read in UTC", () => {
    const now = new Date(Date.UTC(2026, 10, 30, 14, 0));
    expect(parse("Limit resets at 15:30 UTC", now)).toBe(Date.UTC(2026, 10, 30, 15, 30));
    expect(parse("Limit resets at 9:00 AM GMT", now)).toBe(Date.UTC(2026, 11, 1, 9, 0));
  });

  it("spaces of every kind, curly quotes and capitals", () => {
    expect(parse("YOU’VE HIT YOUR LIMIT.\u00a0PLEASE TRY AGAIN AFTER 3:45\u202fPM")).toBe(local(0, 15, 45));
    expect(parse("until\n  3:45\tpm")).toBe(local(0, 15, 45));
  });

  it("no recognisable time → undefined", () => {
    for (const text of [
      "Too many requests. You've been temporarily limited access. Please wait a few minutes and try again.",
      "You've reached your limit for Pro. Your limit resets on Friday.",
      "Your limit resets tomorrow.",
      "You've hit the GPT-4.5 limit. Try again later.",
      "요청이 너무 많습니다",
      "Try again at 25:10",
      "Try again at 13 PM",
      "Try again at 3:75 PM",
      "Try again in a moment",
      "",
    ]) {
      expect(parse(text), text).toBeUndefined();
    }
  });

  it("across a daylight-saving change the clock time is still the local one", () => {
    // Whatever the zone: 23:30 the evening before, "until 9:00 AM" is the next morning's 9:00 local.
    for (const [month, day] of [
      [2, 28],
      [9, 24],
      [2, 7],
      [10, 0],
    ] as const) {
      const now = new Date(2026, month, day, 23, 30);
      expect(parse("limit reached until 9:00 AM", now)).toBe(new Date(2026, month, day + 1, 9, 0).getTime());
    }
  });
});
