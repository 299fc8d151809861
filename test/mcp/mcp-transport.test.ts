// The session transport of the MCP endpoint (json-http-transport.ts) as a client sees it: what the SDK's Streamable
// HTTP transport answers in JSON mode, checked with raw HTTP where the SDK client cannot express the request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, INIT_BODY, MCP_HEADERS, raw, startHarness, type Harness, until } from "./helpers.ts";

let h: Harness;
let port: number;
let auth: Record<string, string>;

beforeAll(async () => {
  h = await startHarness();
  port = h.server.port;
  auth = { ...MCP_HEADERS, authorization: `Bearer ${h.token}` };
});
afterAll(() => h.close());

async function openSession(): Promise<Record<string, string>> {
  const init = await raw(port, { headers: auth, body: INIT_BODY });
  expect(init.status).toBe(200);
  expect(init.headers["content-type"]).toBe("application/json");
  const headers = {
    ...auth,
    "mcp-session-id": init.headers["mcp-session-id"] as string,
    "mcp-protocol-version": "2025-06-18",
  };
  const note = await raw(port, {
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  expect(note.status).toBe(202);
  expect(note.body).toBe("");
  return headers;
}

const toolCall = (id: number | string, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

interface Answer {
  id: number | string | null;
  result?: { structuredContent?: Record<string, unknown>; isError?: boolean };
  error?: { code: number; message: string };
}

describe("JSON-RPC over the session transport", () => {
  it("answers a request with one JSON object carrying the session id", async () => {
    const headers = await openSession();
    const res = await raw(port, { headers, body: JSON.stringify(toolCall("a-1", "run_list", {})) });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["mcp-session-id"]).toBe(headers["mcp-session-id"]);
    const answer = JSON.parse(res.body) as Answer;
    expect(answer).toMatchObject({
      jsonrpc: "2.0",
      id: "a-1",
      result: { structuredContent: { runs: expect.any(Array) as unknown } },
    });
  });

  it("answers a batch with an array in request order, once every request in it is done", async () => {
    const headers = await openSession();
    const batch = [
      toolCall(7, "run_create", { name: "batched" }),
      toolCall(8, "run_list", {}),
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
    ];
    const res = await raw(port, { headers, body: JSON.stringify(batch) });
    expect(res.status).toBe(200);
    const answers = JSON.parse(res.body) as Answer[];
    expect(answers.map((a) => a.id)).toEqual([7, 8]);
    expect(answers[0]!.result?.structuredContent).toMatchObject({ run: { name: "batched" } });
  });

  it("answers 202 with no body to notifications and responses only", async () => {
    const headers = await openSession();
    const res = await raw(port, {
      headers,
      body: JSON.stringify([
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } },
        { jsonrpc: "2.0", id: 5, result: {} },
      ]),
    });
    expect(res.status).toBe(202);
    expect(res.body).toBe("");
  });

  it("passes requests with _meta through the SDK's schema", async () => {
    const headers = await openSession();
    const body = {
      ...toolCall(3, "run_list", {}),
      params: { name: "run_list", arguments: {}, _meta: { progressToken: "p" } },
    };
    const res = await raw(port, { headers, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      id: 3,
      result: { structuredContent: { runs: expect.any(Array) as unknown } },
    });
  });

  it("answers the JSON-RPC method-not-found error for an unknown method", async () => {
    const headers = await openSession();
    const res = await raw(port, {
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "no/such" }),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ id: 4, error: { code: -32601 } });
  });

  it("refuses what is not a JSON-RPC message, oversized batches and misplaced initialize", async () => {
    const headers = await openSession();
    const expectRefusal = async (body: unknown, status: number, code: number, h2 = headers) => {
      const res = await raw(port, { headers: h2, body: JSON.stringify(body) });
      expect(res.status).toBe(status);
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code } });
    };
    await expectRefusal({ hello: 1 }, 400, -32700);
    await expectRefusal({ jsonrpc: "1.0", id: 1, method: "tools/list" }, 400, -32700);
    await expectRefusal({ jsonrpc: "2.0", id: 1.5, method: "tools/list" }, 400, -32700);
    await expectRefusal({ jsonrpc: "2.0", id: 1, method: "tools/list", extra: true }, 400, -32700);
    const big = Array.from({ length: 101 }, (_, i) => toolCall(i, "run_list", {}));
    await expectRefusal(big, 400, -32600);
    await expectRefusal(JSON.parse(INIT_BODY), 400, -32600);
    await expectRefusal([JSON.parse(INIT_BODY), toolCall(1, "run_list", {})], 400, -32600, auth);
  });

  it("needs Accept of JSON and event streams on POST, a JSON body, and event streams on GET", async () => {
    const headers = await openSession();
    const body = JSON.stringify(toolCall(1, "run_list", {}));
    const noAccept = await raw(port, { headers: { ...headers, accept: "application/json" }, body });
    expect(noAccept.status).toBe(406);
    const text = await raw(port, { headers: { ...headers, "content-type": "text/plain" }, body });
    expect(text.status).toBe(415);
    const charset = await raw(port, {
      headers: { ...headers, "content-type": "application/json; charset=utf-8" },
      body,
    });
    expect(charset.status).toBe(200);
    const get = await raw(port, { method: "GET", headers: { ...headers, accept: "application/json" } });
    expect(get.status).toBe(406);
  });

  it("ends a request parked in the session when the session is deleted", async () => {
    const headers = await openSession();
    const before = h.server.stats().inflightCalls;
    const parked = raw(port, {
      headers,
      body: JSON.stringify(
        toolCall(1, "events_wait", { cursor: h.backend.lastEventSeq(), timeoutMs: 20_000 }),
      ),
    });
    await until(() => h.server.stats().inflightCalls === before + 1, "the wait to be in progress");
    const del = await raw(port, { method: "DELETE", headers });
    expect(del.status).toBe(200);
    const res = await parked;
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: -32001 } });
    await until(() => h.server.stats().inflightCalls === before, "the wait to end");
  });

  it("answers a malformed tools/call with the SDK's invalid-params error", async () => {
    const headers = await openSession();
    const send = async (params: unknown) => {
      const res = await raw(port, {
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params }),
      });
      expect(res.status).toBe(200);
      return JSON.parse(res.body) as Answer;
    };
    for (const params of [{ arguments: {} }, { name: 7 }, { name: "run_list", arguments: [1] }]) {
      expect(await send(params)).toMatchObject({ id: 9, error: { code: -32602 } });
    }
    // Well-formed, but the arguments are wrong: a tool result, not a protocol error.
    expect(await send({ name: "run_list", arguments: { bogus: true } })).toMatchObject({
      id: 9,
      result: { isError: true },
    });
  });

  it("ends a parked call when the client sends notifications/cancelled for it, and never answers it", async () => {
    const headers = await openSession();
    const before = h.server.stats().inflightCalls;
    let answered = false;
    const parked = raw(port, {
      headers,
      body: JSON.stringify(
        toolCall("w-1", "events_wait", { cursor: h.backend.lastEventSeq(), timeoutMs: 20_000 }),
      ),
    }).then((res) => {
      answered = true;
      return res;
    });
    await until(() => h.server.stats().inflightCalls === before + 1, "the wait to be in progress");
    const cancel = await raw(port, {
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: "w-1", reason: "user" },
      }),
    });
    expect(cancel.status).toBe(202);
    await until(() => h.server.stats().inflightCalls === before, "the cancelled wait to end", 2_000);
    // The cancelled request stays unanswered until its session goes (as the SDK's transport does).
    expect(answered).toBe(false);
    await raw(port, { method: "DELETE", headers });
    expect((await parked).status).toBe(404);
  });

  it("serves the official SDK client end to end", async () => {
    const client = await h.client();
    const { run } = await call<{ run: { id: string } }>(client, "run_create", { name: "sdk" });
    const { runs } = await call<{ runs: { id: string }[] }>(client, "run_list");
    expect(runs.map((r) => r.id)).toContain(run.id);
  });
});
