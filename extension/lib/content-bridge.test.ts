import { describe, expect, it, vi } from "vitest";
import { dispatch, FakeEvent, MemoryLogger } from "../../test/extension/fake-browser.ts";
import type { RuntimeMessageListener } from "./browser-api.ts";
import { startContentBridge, type AdapterSubmitRequest } from "./content-bridge.ts";

const ID = "abcdefghijklmnopabcdefghijklmnop";
const BG = { id: ID, url: `chrome-extension://${ID}/bg.js` };

function setup(submit: (r: AdapterSubmitRequest) => Promise<unknown>) {
  const onMessage = new FakeEvent<RuntimeMessageListener>();
  const posted: unknown[] = [];
  const submits: AdapterSubmitRequest[] = [];
  let report: (r: unknown) => void = () => undefined;
  const log = new MemoryLogger();
  const bridge = startContentBridge({
    api: {
      runtime: {
        id: ID,
        onMessage,
        sendMessage: (m) => (posted.push(m), Promise.resolve({ managed: true })),
      },
    },
    location: { href: "https://chatgpt.com/c/abc" },
    log,
    createAdapter: (onReport) => {
      report = onReport;
      return {
        start: () => undefined,
        stop: () => undefined,
        current: () => ({ state: "idle", url: "https://chatgpt.com/c/abc", layout: "classic" }),
        submit: (r) => (submits.push(r), submit(r)),
        hasMarker: (m) => m === "orc-present",
      };
    },
  });
  const ask = (message: unknown, sender = BG) => dispatch(onMessage.listeners, message, sender);
  return { bridge, posted, submits, report: (r: unknown) => report(r), log, ask };
}

const order = (commandId: string, mode = "send") => ({
  type: "bg.submit",
  commandId,
  text: "hi\n\n[ref: orc-1]",
  marker: "orc-1",
  mode,
});

describe("content bridge", () => {
  it("announces itself with the adapter's state, stripped to what may leave the page", async () => {
    const t = setup(() => Promise.resolve({ outcome: "submitted", url: "u" }));
    expect(t.posted).toEqual([
      { type: "content.hello", state: { state: "idle", url: "https://chatgpt.com/c/abc" } },
    ]);
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
});
