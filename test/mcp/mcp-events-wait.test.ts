// events_wait over MCP: immediate answer when events exist past the cursor, a parked call woken by another client's
// write, a timeout with timedOut: true, and a call whose caller goes away releasing its wait at once.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type Harness, MCP_HEADERS, startHarness, until } from "./helpers.ts";

let h: Harness;
let waiter: Client;
let writer: Client;
let runId: string;
let workerId: string;

interface WaitOut {
  events: { seq: number; type: string; workerId?: string }[];
  cursor: number;
  timedOut: boolean;
}

beforeAll(async () => {
  h = await startHarness();
  waiter = await h.client();
  writer = await h.client();
  runId = (await call<{ run: { id: string } }>(writer, "run_create", { name: "waits" })).run.id;
  workerId = (
    await call<{ worker: { id: string } }>(writer, "worker_spawn", { runId, path: "/root", objective: "o" })
  ).worker.id;
});
afterAll(() => h.close());

describe("events_wait", () => {
  it("answers at once when events exist after the cursor", async () => {
    const started = Date.now();
    const out = await call<WaitOut>(waiter, "events_wait", { cursor: 0, timeoutMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(out.timedOut).toBe(false);
    expect(out.events[0]!.seq).toBe(1);
    expect(out.cursor).toBe(out.events.at(-1)!.seq);
  });

  it("parks until another client's write appends an event, then answers with it", async () => {
    const cursor = h.backend.lastEventSeq();
    const started = Date.now();
    const parked = call<WaitOut>(waiter, "events_wait", { cursor, timeoutMs: 20_000 });
    let settled = false;
    void parked.finally(() => (settled = true));
    await until(() => h.server.stats().inflightCalls === 1, "the wait to be in progress");
    expect(settled).toBe(false);
    await call(writer, "worker_progress", { workerId, summary: "step" });
    const out = await parked;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out.timedOut).toBe(false);
    expect(out.events.map((e) => e.type)).toEqual(["worker.progress"]);
    expect(out.events[0]!.seq).toBe(cursor + 1);
    expect(out.cursor).toBe(cursor + 1);
  });

  it("wakes many parked sessions with one write", async () => {
    const clients = await Promise.all(Array.from({ length: 10 }, () => h.client()));
    const cursor = h.backend.lastEventSeq();
    const parked = clients.map((c) => call<WaitOut>(c, "events_wait", { cursor, timeoutMs: 20_000 }));
    await until(() => h.server.stats().inflightCalls === clients.length, "all waits in progress");
    await call(writer, "message_send", { toWorkerId: workerId, body: "wake up" });
    const outs = await Promise.all(parked);
    for (const out of outs) {
      expect(out.timedOut).toBe(false);
      expect(out.events[0]!.seq).toBe(cursor + 1);
    }
  });

  it("times out with timedOut: true and the same cursor", async () => {
    const cursor = h.backend.lastEventSeq();
    const started = Date.now();
    const out = await call<WaitOut>(waiter, "events_wait", { cursor, timeoutMs: 200 });
    const elapsed = Date.now() - started;
    expect(out).toEqual({ events: [], cursor, timedOut: true });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(5_000);
  });

  it("keeps waiting through events that do not match its filter", async () => {
    const other = (
      await call<{
        worker: { id: string };
      }>(writer, "worker_spawn", { runId, path: "/root/other", objective: "o" })
    ).worker.id;
    const cursor = h.backend.lastEventSeq();
    const parked = call<WaitOut>(waiter, "events_wait", { cursor, workerId, timeoutMs: 20_000 });
    await until(() => h.server.stats().inflightCalls === 1, "the filtered wait to be in progress");
    await call(writer, "worker_progress", { workerId: other });
    await call(writer, "worker_progress", { workerId, summary: "mine" });
    const out = await parked;
    expect(out.events.every((e) => e.workerId === workerId)).toBe(true);
    expect(out.events.length).toBeGreaterThan(0);
    expect(out.events[0]!.seq).toBeGreaterThan(cursor + 1);
  });

  it("releases the wait when the caller cancels (MCP cancellation)", async () => {
    const cursor = h.backend.lastEventSeq();
    const abort = new AbortController();
    const parked = waiter.callTool(
      { name: "events_wait", arguments: { cursor, timeoutMs: 20_000 } },
      undefined,
      { signal: abort.signal },
    );
    await until(() => h.server.stats().inflightCalls === 1, "the wait to be in progress");
    abort.abort();
    await expect(parked).rejects.toThrow();
    await until(() => h.server.stats().inflightCalls === 0, "the cancelled wait to end", 2_000);
  });

  it("releases the wait when the HTTP connection drops", async () => {
    const sessionRes = await fetch(h.server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, authorization: `Bearer ${h.token}` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    });
    const sessionId = sessionRes.headers.get("mcp-session-id")!;
    await sessionRes.text();
    const cursor = h.backend.lastEventSeq();
    const abort = new AbortController();
    const parked = fetch(h.server.url, {
      method: "POST",
      signal: abort.signal,
      headers: {
        ...MCP_HEADERS,
        authorization: `Bearer ${h.token}`,
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "events_wait", arguments: { cursor, timeoutMs: 20_000 } },
      }),
    });
    await until(() => h.server.stats().inflightCalls === 1, "the wait to be in progress");
    abort.abort();
    await expect(parked).rejects.toThrow();
    await until(() => h.server.stats().inflightCalls === 0, "the dropped wait to end", 2_000);
  });

  it("ends parked waits when the server closes", async () => {
    const own = await (await import("./helpers.ts")).startHarness();
    try {
      const c = await own.client();
      const parked = c.callTool({
        name: "events_wait",
        arguments: { cursor: own.backend.lastEventSeq(), timeoutMs: 20_000 },
      });
      void parked.catch(() => undefined);
      await until(() => own.server.stats().inflightCalls === 1, "the wait to be in progress");
      await own.server.close();
      expect(own.server.stats()).toEqual({ sessions: 0, inflightCalls: 0 });
    } finally {
      await own.close();
    }
  });
});
