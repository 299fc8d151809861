import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_HANDOFF_BRIEF_CHARS } from "../../shared/handoff-block.ts";
import { dispatch, FakeEvent, MemoryLogger } from "../../test/extension/fake-browser.ts";
import type { ContentApi, RuntimeMessageListener } from "./browser-api.ts";
import { startContentBridge, type AdapterSubmitRequest } from "./content-bridge.ts";

/** What the page asks with: its own URL goes with it (the browser's record of the tab's URL can lag). */
const HELLO = { type: "content.hello", url: "https://chatgpt.com/c/abc" };

const ID = "abcdefghijklmnopabcdefghijklmnop";
const BG = { id: ID, url: `chrome-extension://${ID}/bg.js` };

const IDLE = { state: "idle", url: "https://chatgpt.com/c/abc", layout: "classic" };

function setup(
  submit: (r: AdapterSubmitRequest) => Promise<unknown>,
  current: () => unknown = () => IDLE,
  /** The background's answer to each message (default: this tab is a worker's). */
  answer: (m: unknown) => Promise<unknown> = () => Promise.resolve({ managed: true }),
) {
  const onMessage = new FakeEvent<RuntimeMessageListener>();
  const posted: unknown[] = [];
  const submits: AdapterSubmitRequest[] = [];
  /** The adapter's start and stop calls, in order. */
  const watch: string[] = [];
  let report: (r: unknown) => void = () => undefined;
  const log = new MemoryLogger();
  const runtime: { id: string | undefined } & Omit<ContentApi["runtime"], "id"> = {
    id: ID,
    onMessage,
    sendMessage: (m) => (posted.push(m), answer(m)),
  };
  const bridge = startContentBridge({
    api: { runtime: runtime as ContentApi["runtime"] },
    location: { href: "https://chatgpt.com/c/abc" },
    log,
    createAdapter: (onReport) => {
      report = onReport;
      return {
        start: () => void watch.push("start"),
        stop: () => void watch.push("stop"),
        current,
        submit: (r) => (submits.push(r), submit(r)),
        hasMarker: (m) => m === "orc-present",
      };
    },
  });
  const ask = (message: unknown, sender = BG) => dispatch(onMessage.listeners, message, sender);
  return { bridge, posted, submits, watch, report: (r: unknown) => report(r), log, ask, runtime };
}

/** A promise with its resolve function outside (a background answer the test gives when it chooses). */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const order = (commandId: string, mode = "send") => ({
  type: "bg.submit",
  commandId,
  text: "hi\n\n[ref: orc-1]",
  marker: "orc-1",
  mode,
});

describe("content bridge", () => {
  it("says hello, watches the page once the answer says it is a worker's, and forwards valid reports", async () => {
    const t = setup(() => Promise.resolve({ outcome: "submitted", url: "u" }));
    expect(t.posted).toEqual([HELLO]);
    expect(t.watch).toEqual([]); // not before the answer
    await vi.waitFor(() => expect(t.watch).toEqual(["start"]));
    t.report({ state: "generating", url: "https://chatgpt.com/c/abc", layout: "classic" });
    t.report({ state: "exploded" });
    await vi.waitFor(() => expect(t.posted).toHaveLength(2));
    expect(t.log.has(/adapter report dropped/)).toBe(true);
  });

  it("sends a turn's continuation block only as a hashed report, in order with the other reports", async () => {
    const t = setup(() => Promise.resolve({ outcome: "submitted", url: "u" }));
    const url = "https://chatgpt.com/c/abc";
    const block = {
      status: "blocked",
      summary: "Which database?",
      current: "SECRET-CURRENT",
      next: "SECRET-NEXT",
    };
    t.report({ state: "idle", url, continuationStatus: "blocked", block, layout: "classic" });
    t.report({ state: "generating", url, layout: "classic" });
    t.report({ state: "idle", url, block: { error: "missing", detail: "no block" }, layout: "classic" });
    await vi.waitFor(() => expect(t.posted).toHaveLength(4));
    const reports = t.posted.slice(1).map((m) => (m as { report: Record<string, unknown> }).report);
    expect(reports.map((r) => r.state)).toEqual(["idle", "generating", "idle"]);
    expect(reports[0]!.continuationBlock).toEqual({
      result: "block",
      status: "blocked",
      progressHash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      summary: "Which database?",
    });
    expect(reports[1]!.continuationBlock).toBeUndefined();
    expect(reports[2]!.continuationBlock).toEqual({ result: "missing" });
    expect(JSON.stringify(t.posted)).not.toMatch(/SECRET/);
  });

  it("sends the handoff brief and the conversation's length with idle reports only, never in hello or ping", async () => {
    const url = "https://chatgpt.com/c/abc";
    const turnEnd = { handoffBrief: "done: SECRET-BRIEF", visibleChars: 4_321 };
    // The adapter's current state is a finished turn with a brief: hello and ping are no turn end.
    const t = setup(
      () => Promise.resolve({ outcome: "submitted" }),
      () => ({ ...IDLE, ...turnEnd }),
    );
    expect(t.posted).toEqual([HELLO]);
    await vi.waitFor(() => expect(t.watch).toEqual(["start"]));
    expect(await t.ask({ type: "bg.ping" })).toEqual({
      ok: true,
      url,
      watching: true,
      state: { state: "idle", url },
    });
    t.report({ state: "idle", url, layout: "classic", ...turnEnd });
    t.report({ state: "ready", url, layout: "classic", ...turnEnd });
    t.report({ state: "error", errorCode: "CONVERSATION_TOO_LONG", url, layout: "classic", ...turnEnd });
    t.report({ state: "generating", url, layout: "classic", ...turnEnd });
    await vi.waitFor(() => expect(t.posted).toHaveLength(5));
    const reports = t.posted.slice(1).map((m) => (m as { report: Record<string, unknown> }).report);
    expect(reports[0]).toEqual({ state: "idle", url, ...turnEnd });
    for (const r of reports.slice(1)) {
      expect(r).not.toHaveProperty("handoffBrief");
      expect(r).not.toHaveProperty("visibleChars");
    }
  });

  it("drops an adapter report whose brief is empty or too long (the protocol refuses it)", async () => {
    const t = setup(() => Promise.resolve({ outcome: "submitted" }));
    t.report({ ...IDLE, handoffBrief: "" });
    t.report({ ...IDLE, handoffBrief: "x".repeat(MAX_HANDOFF_BRIEF_CHARS + 1) });
    t.report({ ...IDLE, visibleChars: -3 });
    await vi.waitFor(() => expect(t.log.has(/adapter report dropped/)).toBe(true));
    expect(t.posted).toHaveLength(1);
  });

  it("submits a command once however often it is asked, and remembers the outcome", async () => {
    let release!: () => void;
    const t = setup(
      () =>
        new Promise((r) => (release = () => r({ outcome: "submitted", url: "https://chatgpt.com/c/abc" }))),
    );
    const first = t.ask(order("c1", "create"));
    const second = t.ask(order("c1", "create"));
    await new Promise((r) => setTimeout(r, 0));
    expect(await t.ask({ type: "bg.submit-status", commandId: "c1" })).toEqual({ status: "in-flight" });
    release();
    expect(await first).toEqual({ outcome: "submitted", url: "https://chatgpt.com/c/abc" });
    expect(await second).toEqual(await first);
    expect(await t.ask(order("c1"))).toEqual(await first);
    expect(t.submits).toEqual([{ text: "hi\n\n[ref: orc-1]", marker: "orc-1", mode: "send" }]);
    expect(await t.ask({ type: "bg.submit-status", commandId: "c1" })).toMatchObject({ status: "done" });
    expect(await t.ask({ type: "bg.submit-status", commandId: "c2" })).toEqual({ status: "unknown" });
  });

  it("passes steering to the adapter and turns adapter failures into fail-closed answers", async () => {
    const t = setup((r) =>
      Promise.resolve(
        r.mode === "steer"
          ? { outcome: "failed", errorCode: "STEERING_UNAVAILABLE", detail: "no", phase: "before-submit" }
          : { nonsense: true },
      ),
    );
    expect(await t.ask(order("s", "steer"))).toMatchObject({ errorCode: "STEERING_UNAVAILABLE" });
    expect(await t.ask(order("x"))).toMatchObject({
      outcome: "failed",
      errorCode: "AMBIGUOUS_SUBMISSION",
      phase: "after-click",
    });
  });

  it("answers ping and marker questions, and nothing from anyone else", async () => {
    const t = setup(() => Promise.resolve({ outcome: "submitted" }));
    expect(await t.ask({ type: "bg.ping" })).toMatchObject({ ok: true, url: "https://chatgpt.com/c/abc" });
    expect(await t.ask({ type: "bg.has-marker", marker: "orc-present" })).toEqual({ found: true });
    expect(await t.ask({ type: "bg.has-marker", marker: "orc-absent" })).toEqual({ found: false });
    expect(await t.ask({ type: "bg.ping" }, { ...BG, id: "other" })).toBeUndefined();
    expect(await t.ask({ type: "bg.submit", commandId: "c" })).toBeUndefined();
    expect(t.submits).toEqual([]);
  });

  it("does not watch a tab that is no worker's: no start, and a ping reads nothing of the page", async () => {
    let reads = 0;
    const t = setup(
      () => Promise.resolve({ outcome: "submitted" }),
      () => (reads++, IDLE),
      () => Promise.resolve({ managed: false }),
    );
    await vi.waitFor(() => expect(t.posted).toHaveLength(1));
    // It says it does not watch: the background's minute check tells a worker's tab in that state to ask again.
    expect(await t.ask({ type: "bg.ping" })).toEqual({
      ok: true,
      url: "https://chatgpt.com/c/abc",
      watching: false,
    });
    expect(t.watch).toEqual([]);
    expect(reads).toBe(0);
  });

  it("asks again when the background says the binding changed, and follows the newest answer only", async () => {
    const answers: Array<ReturnType<typeof deferred<unknown>>> = [];
    const t = setup(
      () => Promise.resolve({ outcome: "submitted" }),
      () => IDLE,
      () => {
        const d = deferred<unknown>();
        answers.push(d);
        return d.promise;
      },
    );
    answers[0]!.resolve({ managed: false });
    expect(await t.ask({ type: "bg.watch" })).toEqual({ ok: true });
    expect(t.posted).toEqual([HELLO, HELLO]);
    answers[1]!.resolve({ managed: true });
    await vi.waitFor(() => expect(t.watch).toEqual(["start"]));

    // Two questions in flight: the older one's answer, arriving last, is stale.
    await t.ask({ type: "bg.watch" });
    await t.ask({ type: "bg.watch" });
    answers[3]!.resolve({ managed: false });
    await vi.waitFor(() => expect(t.watch).toEqual(["start", "stop"]));
    answers[2]!.resolve({ managed: true });
    await new Promise((r) => setTimeout(r, 0));
    expect(t.watch).toEqual(["start", "stop"]);
    // A report's answer counts like a hello's (a failed one changes nothing).
    t.report({ state: "idle", url: "https://chatgpt.com/c/abc", layout: "classic" });
    await vi.waitFor(() => expect(answers).toHaveLength(5));
    answers[4]!.resolve(undefined);
    await new Promise((r) => setTimeout(r, 0));
    expect(t.watch).toEqual(["start", "stop"]);
  });

  describe("a message the background does not answer", () => {
    beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }));
    afterEach(() => void vi.useRealTimers());
    const submitted = () => Promise.resolve({ outcome: "submitted" });
    /** The background's answers in turn, then "a worker's tab" for good. */
    const answering =
      (...first: Array<() => Promise<unknown>>) =>
      () =>
        (first.shift() ?? (() => Promise.resolve({ managed: true })))();
    const restarting = () =>
      Promise.reject(new Error("The message port closed before a response was received."));

    it("is sent again with backoff (1 s, 2 s, …) until it is answered, then nothing more", async () => {
      const t = setup(
        submitted,
        () => IDLE,
        answering(restarting, () => Promise.resolve(undefined)),
      );
      await vi.advanceTimersByTimeAsync(0);
      expect(t.posted).toHaveLength(1);
      expect(t.watch).toEqual([]);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(t.posted).toHaveLength(2);
      expect(t.watch).toEqual([]);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(t.posted).toEqual([HELLO, HELLO, HELLO]);
      expect(t.watch).toEqual(["start"]);
      expect(t.log.has(/not delivered: The message port closed.*sent again in 1 s/)).toBe(true);
      expect(t.log.has(/the background did not answer; sent again in [12] s/)).toBe(true);
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      expect(t.posted).toHaveLength(3);
    });

    it("is not sent again once a newer message or a submission supersedes it, the bridge stops, or the extension is gone", async () => {
      const newer = setup(submitted, () => IDLE, answering(restarting));
      await vi.advanceTimersByTimeAsync(0);
      await newer.ask({ type: "bg.watch" }); // the binding changed: a new hello, answered
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      expect(newer.posted).toHaveLength(2);
      expect(newer.watch).toEqual(["start"]);

      // A submission comes before the resend: the page is watched (bg.submit says so) and the old hello is stale.
      const submitting = setup(submitted, () => IDLE, answering(restarting));
      await vi.advanceTimersByTimeAsync(0);
      expect(await submitting.ask(order("c1"))).toEqual({ outcome: "submitted" });
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      expect(submitting.posted).toHaveLength(1);

      const stopped = setup(submitted, () => IDLE, answering(restarting));
      await vi.advanceTimersByTimeAsync(0);
      stopped.bridge.stop();
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      expect(stopped.posted).toHaveLength(1);

      const gone = setup(submitted, () => IDLE, answering(restarting));
      gone.runtime.id = undefined; // Chromium's context of an extension reloaded under the page
      await vi.advanceTimersByTimeAsync(10 * 60_000);
      expect(gone.posted).toHaveLength(1);
    });
  });

  it("a submission watches the page from its start to its end, whatever answer comes meanwhile", async () => {
    const submitted = deferred<unknown>();
    const answers: Array<ReturnType<typeof deferred<unknown>>> = [];
    const t = setup(
      () => submitted.promise,
      () => IDLE,
      () => {
        const d = deferred<unknown>();
        answers.push(d);
        return d.promise;
      },
    );
    const result = t.ask(order("c1"));
    await vi.waitFor(() => expect(t.submits).toHaveLength(1));
    expect(t.watch).toEqual(["start"]); // before the adapter was asked to submit
    answers[0]!.resolve({ managed: false }); // the hello's answer, older than the submission: stale
    await t.ask({ type: "bg.watch" });
    answers[1]!.resolve({ managed: false }); // the binding went meanwhile: stop, but after the submission
    await new Promise((r) => setTimeout(r, 0));
    expect(t.watch).toEqual(["start"]);
    submitted.resolve({ outcome: "submitted" });
    expect(await result).toEqual({ outcome: "submitted" });
    await vi.waitFor(() => expect(t.watch).toEqual(["start", "stop"]));
  });
});
