// The liveness line every view shows: the host's words with their details, due times in local time with a
// countdown, and which lines need the clock to tick.
import { describe, expect, it } from "vitest";
import { livenessOf } from "../../shared/liveness.ts";
import { attemptLine } from "./format.ts";
import {
  clockShort,
  dueWhen,
  hasCountdown,
  livenessLine,
  remaining,
  showsRemedyText,
  slotPlace,
} from "./liveness-words.ts";

/** 14:05 local time on some day: the line is in the browser's time zone and locale (24 h or 12 h clock). */
const AT_1405 = new Date(2026, 5, 1, 14, 5, 0).getTime();
const LOCAL_1405 = /^(14:05|02:05\sPM)$/;

describe("remaining and dueWhen", () => {
  it("counts seconds close by, minutes and seconds under ten minutes, then minutes and hours", () => {
    expect([0, 400, 3_000, 59_000, 60_000, 61_000, 150_000, 599_000].map(remaining)).toEqual([
      "0 s",
      "1 s",
      "3 s",
      "59 s",
      "1 min",
      "1 min 1 s",
      "2 min 30 s",
      "9 min 59 s",
    ]);
    expect([720_000, 3_600_000, 3_900_000].map(remaining)).toEqual(["12 min", "1 h", "1 h 5 min"]);
  });

  it("says 'in 3 s' close by, the local clock time further off, and 'now' once passed", () => {
    expect(clockShort(AT_1405)).toMatch(LOCAL_1405);
    expect(dueWhen(AT_1405, AT_1405 - 3_000)).toBe("in 3 s");
    expect(dueWhen(AT_1405, AT_1405 - 720_000)).toBe(`at ${clockShort(AT_1405)} (in 12 min)`);
    expect(dueWhen(AT_1405, AT_1405)).toBe("now");
    expect(dueWhen(AT_1405, AT_1405 + 5_000)).toBe("now");
  });
});

describe("livenessLine", () => {
  it("a rate limit: resumes at the local time, with the countdown; the code only when it adds something", () => {
    const limited = livenessOf("rate_limited", AT_1405 - 60_000, {
      until: AT_1405,
      detail: { code: "RATE_LIMITED" },
    });
    const line = livenessLine(limited, AT_1405 - 720_000);
    expect(line).toBe(`Rate limited — resumes at ${clockShort(AT_1405)} (in 12 min)`);
    expect(line).toMatch(/^Rate limited — resumes at (14:05|02:05\sPM) \(in 12 min\)$/);
    const capped = livenessOf("rate_limited", AT_1405, {
      until: AT_1405 + 90_000,
      detail: { code: "USAGE_CAP" },
    });
    expect(livenessLine(capped, AT_1405)).toBe(
      `Rate limited (USAGE_CAP) — resumes at ${clockShort(AT_1405 + 90_000)} (in 1 min 30 s)`,
    );
  });

  it("the idle grace counts down in seconds; other due reasons say when", () => {
    const grace = livenessOf("idle_grace", 0, { until: 10_000 });
    expect(livenessLine(grace, 7_000)).toBe("Resuming in 3 s");
    expect(livenessLine(grace, 9_500)).toBe("Resuming in 1 s");
    expect(livenessLine(grace, 10_000)).toBe("Resuming now");
    expect(livenessLine(livenessOf("retry_backoff", 0, { until: 30_000 }), 0)).toBe(
      "Retrying a turn the browser could not send — in 30 s",
    );
    expect(livenessLine(livenessOf("submitting", 0, { until: 150_000 }), 0)).toMatch(
      /^Sending the turn — answer due at .+ \(in 2 min 30 s\)$/,
    );
  });

  it("held reasons carry their details: the page's code, the workers waited for, the place in the queue", () => {
    expect(livenessLine(livenessOf("page_error", 0, { detail: { code: "RESPONSE_FAILED" } }), 0)).toBe(
      "ChatGPT showed an error (RESPONSE_FAILED)",
    );
    expect(
      livenessLine(
        livenessOf("waiting_for_workers", 0, {
          detail: { workerIds: ["w1", "w2"], workerPaths: ["/root/a", "/root/b"], condition: "both land" },
        }),
        0,
      ),
    ).toBe("Waiting for workers: /root/a, /root/b (both land)");
    expect(
      livenessLine(livenessOf("waiting_for_dependency", 0, { detail: { condition: "CI green" } }), 0),
    ).toBe("Waiting for a dependency: CI green");
    expect(livenessLine(livenessOf("tab_slot", 0, { detail: { position: 1 } }), 0)).toBe(
      "Waiting for a tab slot (next in line)",
    );
    expect(livenessLine(livenessOf("tab_slot", 0, { detail: { position: 3 } }), 0)).toBe(
      "Waiting for a tab slot (2 ahead)",
    );
    expect(slotPlace(2)).toBe("1 ahead");
    expect(livenessLine(livenessOf("paused", 0), 0)).toBe("Paused by you");
  });

  it("ticks only for a due time, and shows the remedy's words when held or when a person can act", () => {
    expect(hasCountdown(livenessOf("idle_grace", 0, { until: 1 }))).toBe(true);
    expect(hasCountdown(livenessOf("rate_limited", 0, { until: 1 }))).toBe(true);
    expect(hasCountdown(livenessOf("paused", 0))).toBe(false);
    expect(hasCountdown(livenessOf("generating", 0))).toBe(false);
    expect(hasCountdown(null)).toBe(false);
    expect(showsRemedyText(livenessOf("paused", 0))).toBe(true);
    expect(showsRemedyText(livenessOf("rate_limited", 0, { until: 1 }))).toBe(true);
    expect(showsRemedyText(livenessOf("idle_grace", 0, { until: 1 }))).toBe(false);
    expect(showsRemedyText(livenessOf("generating", 0))).toBe(false);
  });
});

describe("attemptLine", () => {
  it("numbers turns actually submitted, not attempts the page refused", () => {
    // A keepalive steer the page refused made attempt 7, but only 5 turns reached ChatGPT.
    expect(attemptLine({ turns: 5, autoResumes: 2 })).toBe("Attempt 5 · 2 auto resumes");
    expect(attemptLine({ turns: 1, autoResumes: 1 })).toBe("Attempt 1 · 1 auto resume");
    expect(attemptLine({ turns: 0, autoResumes: 0 })).toBe("No attempt yet");
  });
});
