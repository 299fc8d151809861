// "No silent hang" when the page says stop (docs/continuation-core.md, "Rate limits", "Product errors and Continue
// now", "Liveness"), in real Chromium: a usage limit stating its reset time, "Too many requests" stating none, and
// ChatGPT's "Something went wrong" card. Browser-side holds (no browser, tab slots, switches): liveness.chromium.*.
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildExtension, ChromiumE2E, tool, waitFor, type WorkerOut } from "./harness.ts";
import { expectNamedLiveness, livenessOf, popupRow, quietFor, waitLiveness } from "./liveness-kit.ts";
import { completingTurn, expectCleanRun, FAST_POLICY, workingTurn } from "./scenario-kit.ts";
import { openPopup } from "./ui-kit.ts";

let e2e: ChromiumE2E;
let runId: string | undefined;
const opened: Page[] = [];

beforeAll(async () => {
  e2e = await ChromiumE2E.start(await buildExtension("chrome"));
}, 120_000);

beforeEach(() => {
  e2e.fake.reset(); // also takes a limit notice away
  runId = undefined;
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.error(await e2e.diagnostics());
  if (runId) await tool(e2e.mcp, "run_stop", { runId }).catch(() => undefined);
  await e2e.fake.settled();
  for (const p of opened.splice(0)) await p.close().catch(() => undefined);
});

afterAll(async () => {
  await e2e?.close();
});

interface AttemptOut {
  reason: string;
  state: string;
  scheduledAt: number;
  submittedAt: number | null;
  errorCode: string | null;
}
const attempts = (w: WorkerOut) => w.attempts as unknown as AttemptOut[];
const reasons = (w: WorkerOut) => w.attempts.map((a) => a.reason);

describe("the page says stop: rate limits and errors hold the worker, visibly", { timeout: 120_000 }, () => {
  it("a usage limit with a reset time: the popup counts down to it; exactly one resume after reset + buffer, then on as usual", async () => {
    let resetAt = 0;
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) return workingTurn(turn, "step 1");
      if (turn.index === 2) {
        // chatgpt.com writes the time to the minute: the next whole minute at least 10 s ahead.
        resetAt = Math.ceil((Date.now() + 10_000) / 60_000) * 60_000;
        return turn.rateLimit({ shape: "banner", resetAt });
      }
      if (turn.index === 3) return workingTurn(turn, "step 2");
      return completingTurn(turn);
    });
    // A 2 s buffer after the stated time instead of the default 2 min, so the scenario is quick.
    runId = await e2e.createRun({ ...FAST_POLICY, rateLimitBufferMs: 2_000 });
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    const limited = await waitLiveness(e2e, workerId, "rate_limited");
    const until = resetAt + 2_000;
    expect(limited).toMatchObject({ state: "due", until, detail: { code: "USAGE_CAP" } });
    expect(e2e.fake.stored()).toHaveLength(2);
    await expectNamedLiveness(e2e);

    const popup = await openPopup(e2e, await e2e.pageFor(conversationId));
    opened.push(popup);
    const row = popupRow(popup, workerId);
    const line = row.getByTestId("liveness-line");
    // "Rate limited (USAGE_CAP) — resumes in 42 s", or "… resumes at 14:05 (in 1 min 5 s)" a minute or more ahead.
    await expect
      .poll(() => line.textContent())
      .toMatch(/^Rate limited \(USAGE_CAP\) — resumes (in \d+ s|at .+ \(in 1 min( \d+ s)?\))$/);
    const shown = (await line.textContent())!;
    if (shown.includes(" at ")) {
      const local = await popup.evaluate(
        (at) => new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }),
        until,
      );
      expect(shown).toContain(`resumes at ${local} (in `);
    }
    await expect.poll(() => line.textContent(), { timeout: 3_000 }).not.toBe(shown); // the countdown moves
    await expect
      .poll(() => row.getByTestId("remedy-text").textContent())
      .toContain("Resumes once at the time shown");

    // Not before: the one resume goes out at the stated time plus the buffer.
    const resumed = await e2e.waitWorker(
      workerId,
      "the resume after the limit",
      (w) => attempts(w)[2]?.submittedAt != null,
      until - Date.now() + 30_000,
    );
    const resume = attempts(resumed)[2]!;
    // The submission is proven by the user turn on the page; the server may store it a moment later.
    const third = await waitFor(() => e2e.fake.stored()[2], "the third prompt at the server");
    console.log(
      `reset + buffer → resume scheduled +${resume.scheduledAt - until} ms, stored +${third.at - until} ms`,
    );
    expect(resume.scheduledAt).toBeGreaterThanOrEqual(until);
    expect(third.at).toBeGreaterThanOrEqual(until);
    expect(third.conversationId).toBe(conversationId);

    const done = await e2e.waitWorker(
      workerId,
      "complete, its last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(done)).toEqual(["initial", "auto_resume", "auto_resume", "auto_resume"]);
    await e2e.fake.settled();
    expect(e2e.fake.stored(conversationId)).toHaveLength(4);
    expect(e2e.fake.stored()).toHaveLength(4);
    expect(e2e.fake.refusedSends()).toBe(0);
    const { events } = await tool<{ events: { type: string }[] }>(e2e.mcp, "events_list", {
      cursor: 0,
      workerId,
      limit: 500,
    });
    expect(events.filter((e) => e.type === "execution.rate_limited")).toHaveLength(1);
    expect(events.map((e) => e.type)).toContain("execution.rate_limit_cleared");
    expectCleanRun(e2e.fake);
    await expectNamedLiveness(e2e);
  }, 180_000);

  it("'Too many requests' with no time: no prompt for 30 s at idle grace 300 ms, due in about 2 min; Continue now sends exactly one", async () => {
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) return workingTurn(turn, "step 1");
      if (turn.index === 2) return turn.rateLimit(); // the modal, stating no time
      return completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    const limited = await waitLiveness(e2e, workerId, "rate_limited");
    expect(limited).toMatchObject({ state: "due", detail: { code: "RATE_LIMITED" } });
    // The first step of the backoff (docs/continuation-core.md, "Rate limits"): 2 min from when it was seen.
    expect(limited.until! - limited.since).toBe(120_000);
    expect(limited.until! - Date.now()).toBeGreaterThan(100_000);
    expect(e2e.fake.stored()).toHaveLength(2);

    await quietFor(e2e, workerId, 30_000, "rate limited, nothing sent", (w) => {
      const l = livenessOf(w);
      return l?.reason === "rate_limited" && l.until === limited.until && w.attempts.length === 2;
    });
    await expectNamedLiveness(e2e);

    const now = await tool<{ coalesced: boolean }>(e2e.mcp, "worker_continue_now", { workerId });
    expect(now.coalesced).toBe(false);
    // Its one attempt reaches the page: submitted, not refused (a refusal would take the next step, 5 min).
    const tried = await e2e.waitWorker(
      workerId,
      "Continue now's attempt submitted or refused",
      (w) =>
        attempts(w)[2] !== undefined &&
        (attempts(w)[2]!.submittedAt !== null || attempts(w)[2]!.errorCode !== null),
    );
    expect(attempts(tried)[2], "Continue now's attempt").toMatchObject({
      reason: "manual_resume",
      errorCode: null,
    });
    const done = await e2e.waitWorker(
      workerId,
      "complete, its last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(done)).toEqual(["initial", "auto_resume", "manual_resume"]);
    await e2e.fake.settled();
    expect(e2e.fake.stored(conversationId)).toHaveLength(3);
    expect(e2e.fake.stored()).toHaveLength(3);
    expectCleanRun(e2e.fake);
    await expectNamedLiveness(e2e);
  });

  it("'Something went wrong': held as page_error RESPONSE_FAILED, no prompt for 10 s; one Continue now → one prompt, same conversation", async () => {
    e2e.fake.setAssistant(async (turn) => {
      if (turn.index === 1) return workingTurn(turn, "step 1");
      if (turn.index === 2) {
        await turn.say("Let me look at");
        return turn.somethingWentWrong();
      }
      return completingTurn(turn);
    });
    runId = await e2e.createRun(FAST_POLICY);
    const workerId = await e2e.spawn(runId, "/root");
    const conversationId = await e2e.conversationOf(workerId);
    const failed = await waitLiveness(e2e, workerId, "page_error");
    expect(failed).toMatchObject({
      state: "held",
      detail: { code: "RESPONSE_FAILED" },
      remedy: { action: "continue_now" },
      needsYou: true,
    });
    expect(e2e.fake.stored()).toHaveLength(2);

    await quietFor(
      e2e,
      workerId,
      10_000,
      "held on the error card",
      (w) => livenessOf(w)?.reason === "page_error" && w.attempts.length === 2,
    );
    await expectNamedLiveness(e2e);

    const first = await tool<{ coalesced: boolean }>(e2e.mcp, "worker_continue_now", { workerId });
    expect(first.coalesced).toBe(false);
    const done = await e2e.waitWorker(
      workerId,
      "complete, its last turn ended",
      (w) => w.worker.label === "Complete" && w.worker.attempt?.state === "completed",
    );
    expect(reasons(done)).toEqual(["initial", "auto_resume", "manual_resume"]);
    await e2e.fake.settled();
    expect(e2e.fake.stored(conversationId)).toHaveLength(3);
    expect(e2e.fake.stored()).toHaveLength(3);
    expectCleanRun(e2e.fake); // Retry never clicked
    await expectNamedLiveness(e2e);
  });
});
