// When a rate limit or usage cap resets, read from the notice's own words ("…until 3:45 PM", "…in 20 minutes"), in the
// browser's local time zone (docs/adapter.md, "Rate limits and reset times"). Pure: the caller says when it was seen.

const MINUTE = 60_000;
const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: MINUTE,
  min: MINUTE,
  mins: MINUTE,
  minute: MINUTE,
  minutes: MINUTE,
  h: 60 * MINUTE,
  hr: 60 * MINUTE,
  hrs: 60 * MINUTE,
  hour: 60 * MINUTE,
  hours: 60 * MINUTE,
  day: 24 * 60 * MINUTE,
  days: 24 * 60 * MINUTE,
};
const WORD_NUMBERS: Readonly<Record<string, number>> = { a: 1, an: 1, one: 1, two: 2, three: 3, half: 0.5 };

const UNIT = "(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?)";
const AMOUNT = "(\\d+(?:\\.\\d+)?|an?|one|two|three|half an?)";
/** One amount and unit ("20 minutes", "2h", "an hour"). */
const PART = new RegExp(`${AMOUNT} ?${UNIT}(?![a-z])`, "g");
/** A duration after the words that introduce a wait: "in 20 minutes", "after 1 hour and 30 minutes", "wait 2h". */
const RELATIVE = new RegExp(
  `\\b(?:in|after|within|wait(?: for)?)\\s+(?:about |around |approximately |roughly |~ ?)?` +
    `(${AMOUNT} ?${UNIT}(?:(?:,? and |, | )${AMOUNT} ?${UNIT})*)(?![a-z])`,
  "g",
);
/** "40 messages in 3 hours" is the quota's window, not when it resets. */
const QUOTA_BEFORE = /\b(messages?|requests?|prompts?|queries|questions|uses|images?|files?)\s*$/;

/** "3:45 PM", "3:45pm", "4 p.m.", "14:05", "15:30:00", optionally "UTC"/"GMT"; hours without minutes need AM/PM. */
const CLOCK =
  /(?<![\d:.])(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s*(a\.?m\.?|p\.?m\.?)?(?![a-z\d])(?:\s*(utc|gmt)\b)?|\b(noon|midnight)\b/g;

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const MONTH_DAY = new RegExp(
  `\\b${MONTH}\\.? (\\d{1,2})(?:st|nd|rd|th)?\\b|\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?${MONTH}\\b`,
);
const WEEKDAY = /\b(sun|mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?)(?:day)?\b/;

interface Clock {
  index: number;
  hour: number;
  minute: number;
  utc: boolean;
}

interface Relative {
  index: number;
  ms: number;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, " ");
}

function amountOf(word: string): number {
  return WORD_NUMBERS[word.split(" ")[0]!] ?? Number(word);
}

/** The first wait the text states, in ms, skipping a quota's window ("40 messages in 3 hours"). */
function firstRelative(text: string): Relative | undefined {
  for (const m of text.matchAll(RELATIVE)) {
    if (QUOTA_BEFORE.test(text.slice(0, m.index))) continue;
    let ms = 0;
    for (const part of m[1]!.matchAll(PART)) ms += amountOf(part[1]!) * UNIT_MS[part[2]!]!;
    if (ms > 0) return { index: m.index, ms };
  }
  return undefined;
}

/** The first clock time in the text (12 h with AM/PM, or 24 h with minutes). */
function firstClock(text: string): Clock | undefined {
  for (const m of text.matchAll(CLOCK)) {
    if (m[5] !== undefined) return { index: m.index, hour: m[5] === "noon" ? 12 : 24, minute: 0, utc: false };
    const hour = Number(m[1]);
    const minute = m[2] === undefined ? 0 : Number(m[2]);
    const meridiem = m[3]?.[0];
    if (minute > 59) continue;
    const utc = m[4] !== undefined;
    if (meridiem !== undefined) {
      if (hour < 1 || hour > 12) continue;
      return { index: m.index, hour: (hour % 12) + (meridiem === "p" ? 12 : 0), minute, utc };
    }
    if (m[2] === undefined || hour > 23) continue;
    return { index: m.index, hour, minute, utc };
  }
  return undefined;
}

/** Calendar fields of `now`, local or UTC, and the date they make back (same arithmetic both ways). */
function calendar(utc: boolean) {
  return utc
    ? {
        fields: (d: Date) => [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCDay()] as const,
        make: (y: number, mo: number, d: number, h: number, mi: number) => Date.UTC(y, mo, d, h, mi),
      }
    : {
        fields: (d: Date) => [d.getFullYear(), d.getMonth(), d.getDate(), d.getDay()] as const,
        make: (y: number, mo: number, d: number, h: number, mi: number) =>
          new Date(y, mo, d, h, mi).getTime(),
      };
}

/** The moment of `clock` on the day the text names (tomorrow, a weekday, a date), else the next one from `now`. */
function atClock(text: string, clock: Clock, now: Date): number | undefined {
  const { fields, make } = calendar(clock.utc);
  const [year, month, date, weekday] = fields(now);
  const at = (dayOffset: number) => make(year, month, date + dayOffset, clock.hour, clock.minute);
  const day = MONTH_DAY.exec(text);
  if (day) {
    const monthName = (day[1] ?? day[4])!;
    const dayOfMonth = Number(day[2] ?? day[3]);
    const monthIndex = MONTHS.indexOf(monthName.slice(0, 3));
    if (dayOfMonth < 1 || dayOfMonth > 31) return undefined;
    const thisYear = make(year, monthIndex, dayOfMonth, clock.hour, clock.minute);
    return thisYear >= now.getTime()
      ? thisYear
      : make(year + 1, monthIndex, dayOfMonth, clock.hour, clock.minute);
  }
  if (/\btomorrow\b/.test(text)) return at(1);
  const named = WEEKDAY.exec(text);
  if (named) {
    const target = WEEKDAYS.findIndex((w) => w.startsWith(named[1]!.slice(0, 3)));
    const ahead = (target - weekday + 7) % 7;
    const sameDay = at(ahead);
    return sameDay >= now.getTime() ? sameDay : at(ahead + 7);
  }
  // A bare clock time earlier than now is tomorrow's.
  const today = at(0);
  return today >= now.getTime() ? today : at(1);
}

/**
 * The reset time (epoch ms) that `text` states, read as of `now` (when the notice was first seen): a wait ("in 20
 * minutes", "in 1 hour and 30 minutes") counts from `now`; a clock time ("until 3:45 PM", "at 15:30", "tomorrow at
 * 9:00 AM", "on Friday at 9 AM") is local unless marked UTC/GMT, and a bare one earlier than `now` is tomorrow's.
 * Undefined when the text states no time ("please wait a few minutes", "resets tomorrow").
 */
export function parseResetTime(text: string, now: Date): number | undefined {
  const t = normalise(text);
  const relative = firstRelative(t);
  const clock = firstClock(t);
  if (relative && (!clock || relative.index < clock.index)) return Math.round(now.getTime() + relative.ms);
  if (clock) return atClock(t, clock, now);
  return undefined;
}
