// Transport security of the MCP endpoint (docs/mcp.md, "Security checks"; S1–S6 name the cases): Host, Origin,
// token, body size, bind address, sessions. Raw HTTP so every header is under the test's control.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpServer } from "../../native-host/src/mcp/mcp-server.ts";
import { OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import {
  INIT_BODY,
  MCP_HEADERS,
  raw,
  rawHead,
  type RawResponse,
  startHarness,
  type Harness,
  until,
} from "./helpers.ts";

let h: Harness;
let port: number;
let auth: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ allowedOrigins: ["https://allowed.example"] });
  port = h.server.port;
  auth = { ...MCP_HEADERS, authorization: `Bearer ${h.token}` };
});
afterAll(() => h.close());

function expectNoCors(res: RawResponse): void {
  for (const name of Object.keys(res.headers)) expect(name.toLowerCase()).not.toMatch(/^access-control-/);
}

/** Opens a session by hand: initialize, then the initialized notification. Returns its id. */
async function openSession(): Promise<string> {
  const init = await raw(port, { headers: auth, body: INIT_BODY });
  expect(init.status).toBe(200);
  const id = init.headers["mcp-session-id"];
  expect(typeof id).toBe("string");
  const sessionHeaders = { ...auth, "mcp-session-id": id as string, "mcp-protocol-version": "2025-06-18" };
  const note = await raw(port, {
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  expect(note.status).toBe(202);
  return id as string;
}

function toolCall(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
}

function sessionHeaders(id: string): Record<string, string> {
  return { ...auth, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
}

describe("S4 bind", () => {
  it("listens on 127.0.0.1 only", () => {
    const address = h.server.address();
    expect(address.address).toBe("127.0.0.1");
    expect(address.family).toBe("IPv4");
    expect(address.port).toBe(port);
    expect(h.server.url).toBe(`http://127.0.0.1:${port}/mcp`);
  });

  it("refuses to listen anywhere else", async () => {
    await expect(
      startMcpServer({
        backend: h.backend,
        operations: OPERATIONS,
        host: "0.0.0.0" as "127.0.0.1",
        port: 0,
        token: h.token,
        log: { warn: () => undefined, info: () => undefined },
      }),
    ).rejects.toThrow(/127\.0\.0\.1 only/);
  });
});

describe("S1 Host (DNS rebinding)", () => {
  it("refuses a foreign Host with 403 before reading the body, and nothing runs", async () => {
    const seq = h.backend.lastEventSeq();
    const sessions = h.server.stats().sessions;
    for (const host of [
      `evil.test:${port}`,
      `127.0.0.1:${port + 1}`,
      "127.0.0.1",
      `127.0.0.1.evil.test:${port}`,
    ]) {
      const res = await raw(port, { headers: { ...auth, host }, body: INIT_BODY });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
      expectNoCors(res);
    }
    expect(h.server.stats().sessions).toBe(sessions);
    expect(h.backend.lastEventSeq()).toBe(seq);
    // Reported once, not once per request.
    expect(h.warnings.filter((w) => w.includes("refused")).length).toBe(1);
  });

  it("accepts 127.0.0.1:<port> and localhost:<port>", async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await raw(port, { headers: { ...auth, host }, body: INIT_BODY });
      expect(res.status, host).toBe(200);
    }
  });
});

describe("S2 Origin", () => {
  it.each([
    "https://evil.test",
    "http://127.0.0.1.evil.com",
    "null",
    `http://127.0.0.1:${1}`,
    "https://allowed.example.evil",
  ])("refuses Origin %s with 403 and no CORS headers", async (origin) => {
    const res = await raw(port, { headers: { ...auth, origin }, body: INIT_BODY });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ id: null, error: { code: -32000 } });
    expectNoCors(res);
  });

  it("refuses a CORS preflight without CORS headers", async () => {
    const res = await raw(port, {
      method: "OPTIONS",
      headers: { origin: "https://evil.test", "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(403);
    expectNoCors(res);
  });

  it("accepts an origin on the explicit allowlist (exact parsed match)", async () => {
    const res = await raw(port, { headers: { ...auth, origin: "https://allowed.example" }, body: INIT_BODY });
    expect(res.status).toBe(200);
    expectNoCors(res);
  });

  it("rejects a malformed allowlist entry at startup", async () => {
    await expect(
      startMcpServer({
        backend: h.backend,
        operations: OPERATIONS,
        port: 0,
        token: h.token,
        log: { warn: () => undefined, info: () => undefined },
        allowedOrigins: ["https://ok.example/path"],
      }),
    ).rejects.toThrow(/not an origin/);
  });
});

describe("S3 token", () => {
  const wrongLast = () => h.token.slice(0, -1) + (h.token.endsWith("0") ? "1" : "0");

  it("answers 401 for a missing, wrong or last-character-different token on every method", async () => {
    const sessionId = await openSession();
    const cases: Record<string, string>[] = [
      {},
      { authorization: "Bearer nope" },
      { authorization: `Bearer ${wrongLast()}` },
      { authorization: `Basic ${h.token}` },
      { authorization: `Bearer ${h.token}x` },
    ];
    for (const headers of cases) {
      for (const method of ["POST", "GET", "DELETE"]) {
        const res = await raw(port, {
          method,
          headers: { ...MCP_HEADERS, "mcp-session-id": sessionId, ...headers },
          ...(method === "POST" ? { body: toolCall(1, "run_list", {}) } : {}),
        });
        expect(res.status, `${method} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
        expectNoCors(res);
      }
    }
    // The session survived every refused DELETE.
    const ok = await raw(port, { headers: sessionHeaders(sessionId), body: toolCall(1, "run_list", {}) });
    expect(ok.status).toBe(200);
  });

  it("accepts the token in the path, and refuses a wrong one there", async () => {
    const good = await raw(port, { path: `/mcp/${h.token}`, headers: MCP_HEADERS, body: INIT_BODY });
    expect(good.status).toBe(200);
    const bad = await raw(port, { path: `/mcp/${wrongLast()}`, headers: MCP_HEADERS, body: INIT_BODY });
    expect(bad.status).toBe(401);
    // A right path token does not excuse a wrong header.
    const mixed = await raw(port, {
      path: `/mcp/${h.token}`,
      headers: { ...MCP_HEADERS, authorization: "Bearer wrong" },
      body: INIT_BODY,
    });
    expect(mixed.status).toBe(401);
  });

  it("serves the official SDK client through the connector URL", async () => {
    expect(h.server.connectorUrl).toBe(`http://127.0.0.1:${port}/mcp/${h.token}`);
    const client = await h.client(h.server.connectorUrl);
    const { tools } = await client.listTools();
    expect(tools.length).toBe(OPERATIONS.size);
  });

  it("answers 404 for other paths (after Host and Origin)", async () => {
    expect((await raw(port, { path: "/", headers: auth, body: INIT_BODY })).status).toBe(404);
    expect((await raw(port, { path: `/mcpx`, headers: auth, body: INIT_BODY })).status).toBe(404);
    expect((await raw(port, { path: `/mcp/a/b`, headers: auth, body: INIT_BODY })).status).toBe(404);
    expect((await raw(port, { path: "/", headers: { ...auth, host: "evil.test" } })).status).toBe(403);
  });
});

describe("body size", () => {
  const big = "x".repeat(2 * 1024 * 1024);

  it("answers 413 to a 2 MiB body with Content-Length", async () => {
    const res = await raw(port, { headers: auth, body: big });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ id: null, error: { message: /Payload Too Large/ } });
  });

  it("answers 413 to a 2 MiB chunked body (counted as it streams)", async () => {
    const res = await raw(port, { headers: auth, body: big, chunked: true });
    expect(res.status).toBe(413);
  });

  it("answers 413 through fetch as well", async () => {
    const res = await fetch(h.server.url, { method: "POST", headers: auth, body: big });
    expect(res.status).toBe(413);
  });

  it("answers 400 (JSON-RPC parse error) to a body that is not JSON", async () => {
    const res = await raw(port, { headers: auth, body: "{not json" });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: -32700 } });
  });
});

describe("S5/S6 sessions", () => {
  it("keeps two sessions apart when both use JSON-RPC id 0 concurrently", async () => {
    const [a, b] = await Promise.all([openSession(), openSession()]);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [ra, rb] = await Promise.all([
      raw(port, { headers: sessionHeaders(a), body: toolCall(0, "run_create", { name: "run-of-A" }) }),
      raw(port, { headers: sessionHeaders(b), body: toolCall(0, "run_create", { name: "run-of-B" }) }),
    ]);
    const bodyA = JSON.parse(ra.body) as {
      id: number;
      result: { structuredContent: { run: { name: string } } };
    };
    const bodyB = JSON.parse(rb.body) as {
      id: number;
      result: { structuredContent: { run: { name: string } } };
    };
    expect(bodyA.id).toBe(0);
    expect(bodyB.id).toBe(0);
    expect(bodyA.result.structuredContent.run.name).toBe("run-of-A");
    expect(bodyB.result.structuredContent.run.name).toBe("run-of-B");
  });

  it("answers 404 to an unknown session id and 400 to a non-initialize request without one", async () => {
    const unknown = await raw(port, {
      headers: sessionHeaders("3b241101-e2bb-4255-8caf-4136c566a962"),
      body: toolCall(1, "run_list", {}),
    });
    expect(unknown.status).toBe(404);
    const none = await raw(port, { headers: auth, body: toolCall(1, "run_list", {}) });
    expect(none.status).toBe(400);
    const getNone = await raw(port, { method: "GET", headers: { ...auth, accept: "text/event-stream" } });
    expect(getNone.status).toBe(400);
  });

  it("refuses an unsupported MCP-Protocol-Version with 400", async () => {
    const id = await openSession();
    const res = await raw(port, {
      headers: { ...sessionHeaders(id), "mcp-protocol-version": "1999-01-01" },
      body: toolCall(1, "run_list", {}),
    });
    expect(res.status).toBe(400);
  });

  it("ends a session on DELETE; its id is then unknown (404)", async () => {
    const id = await openSession();
    const before = h.server.stats().sessions;
    const del = await raw(port, { method: "DELETE", headers: sessionHeaders(id) });
    expect(del.status).toBe(200);
    expect(h.server.stats().sessions).toBe(before - 1);
    const after = await raw(port, { headers: sessionHeaders(id), body: toolCall(1, "run_list", {}) });
    expect(after.status).toBe(404);
  });

  it("serves the session's event stream on GET, and frees it when the client goes away", async () => {
    const id = await openSession();
    const head = await rawHead(port, { headers: { ...sessionHeaders(id), accept: "text/event-stream" } });
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toBe("text/event-stream");
    expect(head.headers["mcp-session-id"]).toBe(id);
    // Only one stream per session: a second GET is refused while the first is open, accepted after it is gone.
    await until(() => h.server.stats().sessions > 0, "session");
    let second = await rawHead(port, { headers: { ...sessionHeaders(id), accept: "text/event-stream" } });
    const deadline = Date.now() + 5_000;
    while (second.status === 409 && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      second = await rawHead(port, { headers: { ...sessionHeaders(id), accept: "text/event-stream" } });
    }
    expect(second.status).toBe(200);
  });

  it("answers 405 to other methods", async () => {
    const res = await raw(port, { method: "PUT", headers: auth, body: "{}" });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, POST, DELETE");
  });
});

/**
 * One request written byte for byte on a TCP socket: node:http and fetch cannot send a header twice. `lines` are the
 * request line and headers; resolves with the status and JSON body once the server closes the connection.
 */
function rawSocket(lines: readonly string[], body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString();
      const split = text.indexOf("\r\n\r\n");
      const top = text.slice(0, split);
      let body = text.slice(split + 4);
      // The server answers without Content-Length (chunked): join the chunks' data.
      if (/^transfer-encoding: chunked$/im.test(top)) {
        let joined = "";
        for (;;) {
          const eol = body.indexOf("\r\n");
          const size = parseInt(body.slice(0, eol), 16);
          if (!(size > 0)) break;
          joined += body.slice(eol + 2, eol + 2 + size);
          body = body.slice(eol + 2 + size + 2);
        }
        body = joined;
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(top)?.[1] ?? 0), body });
    });
    const head = [...lines, `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close"];
    socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
  });
}

describe("repeated headers", () => {
  const post = (headers: readonly string[]) => [
    "POST /mcp HTTP/1.1",
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Authorization: Bearer ${h.token}`,
    ...headers,
  ];

  it("serves a request written on the raw socket with each header once", async () => {
    const res = await rawSocket(post([`Host: 127.0.0.1:${port}`]), INIT_BODY);
    expect(res.status).toBe(200);
  });

  it("answers 400 to two Host headers, even when both name the listener, and nothing runs", async () => {
    const seq = h.backend.lastEventSeq();
    const sessions = h.server.stats().sessions;
    for (const hosts of [
      [`127.0.0.1:${port}`, `127.0.0.1:${port}`],
      [`127.0.0.1:${port}`, `evil.test:${port}`],
      [`evil.test:${port}`, `localhost:${port}`],
    ]) {
      const res = await rawSocket(post(hosts.map((v) => `Host: ${v}`)), INIT_BODY);
      expect(res.status, hosts.join(" + ")).toBe(400);
      expect(JSON.parse(res.body)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: "Bad Request: 2 Host headers, send exactly one" },
      });
    }
    expect(h.server.stats().sessions).toBe(sessions);
    expect(h.backend.lastEventSeq()).toBe(seq);
  });

  it("answers 400, not 404, to two Mcp-Session-Id headers, even both naming the open session", async () => {
    const id = await openSession();
    const base = post([`Host: 127.0.0.1:${port}`, "MCP-Protocol-Version: 2025-06-18"]);
    const once = await rawSocket([...base, `Mcp-Session-Id: ${id}`], toolCall(1, "run_list", {}));
    expect(once.status).toBe(200);
    for (const second of [id, "3b241101-e2bb-4255-8caf-4136c566a962"]) {
      const res = await rawSocket(
        [...base, `Mcp-Session-Id: ${id}`, `Mcp-Session-Id: ${second}`],
        toolCall(2, "run_list", {}),
      );
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: "Bad Request: 2 Mcp-Session-Id headers, send exactly one" },
      });
    }
  });

  it("answers 400 to two Authorization headers (Node would read only the first)", async () => {
    const lines = post([`Host: 127.0.0.1:${port}`, "Authorization: Bearer wrong-token-of-some-length"]);
    const res = await rawSocket(lines, INIT_BODY);
    expect(res.status).toBe(400);
    expect(res.body).toContain("2 Authorization headers");
  });
});

describe("session limits", () => {
  it("closes the least recently used idle session when the limit is reached, and idle ones after sessionIdleMs", async () => {
    const small = await startHarness({ maxSessions: 2, sessionIdleMs: 300 });
    try {
      const headers = { ...MCP_HEADERS, authorization: `Bearer ${small.token}` };
      const open = async () => {
        const res = await raw(small.server.port, { headers, body: INIT_BODY });
        expect(res.status).toBe(200);
        return res.headers["mcp-session-id"] as string;
      };
      const first = await open();
      await open();
      await open();
      expect(small.server.stats().sessions).toBe(2);
      const res = await raw(small.server.port, {
        headers: { ...headers, "mcp-session-id": first },
        body: toolCall(1, "run_list", {}),
      });
      expect(res.status).toBe(404);
      // The sweep runs every 150 ms; both remaining sessions are idle past 300 ms soon after.
      const deadline = Date.now() + 5_000;
      while (small.server.stats().sessions > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(small.server.stats().sessions).toBe(0);
    } finally {
      await small.close();
    }
  });
});
