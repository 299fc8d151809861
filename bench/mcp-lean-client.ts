// The benchmark's load generator: MCP sessions spoken as plain JSON-RPC over keep-alive HTTP/1.1 with undici (Node's
// own fetch is built on it), so that on a small machine the generator's own CPU does not show up as server latency. It
// does what an MCP client must (initialize, notifications/initialized, Mcp-Session-Id and MCP-Protocol-Version on every
// later request, Accept of both JSON and event streams) and checks every answer; the official SDK client is what the
// tests use.
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { Pool } from "undici";

interface HttpAnswer {
  readonly status: number;
  readonly sessionId: string | undefined;
  readonly contentType: string;
  readonly text: string;
}

/** One JSON-RPC answer of the tools/call or initialize kind. */
interface RpcAnswer {
  readonly id?: number;
  readonly result?: { isError?: boolean; structuredContent?: unknown; protocolVersion?: string };
  readonly error?: { code: number; message: string };
}

export class LeanMcpSession {
  private nextId = 1;
  private baseHeaders: Record<string, string>;

  private constructor(
    private readonly pool: Pool,
    private readonly url: URL,
    token: string,
  ) {
    this.baseHeaders = {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    };
  }

  /** Opens a session: initialize, then the initialized notification (which the server answers with 202). */
  static async open(pool: Pool, url: URL, token: string): Promise<LeanMcpSession> {
    const session = new LeanMcpSession(pool, url, token);
    const init = await session.post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: session.nextId++,
        method: "initialize",
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "mcp-bench-lean", version: "1.0.0" },
        },
      }),
    );
    const answer = session.rpcAnswer(init, "initialize");
    if (!init.sessionId) throw new Error("initialize: no Mcp-Session-Id in the answer");
    session.baseHeaders = {
      ...session.baseHeaders,
      "Mcp-Session-Id": init.sessionId,
      "MCP-Protocol-Version": answer.result?.protocolVersion ?? LATEST_PROTOCOL_VERSION,
    };
    const initialized = await session.post(
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    );
    if (initialized.status !== 202) throw new Error(`initialized: HTTP ${initialized.status}`);
    return session;
  }

  /** Calls a tool; resolves with its structured content, rejects on any protocol or tool error. */
  async call<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    const http = await this.post(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${JSON.stringify({ name, arguments: args })}}`,
    );
    const answer = this.rpcAnswer(http, name);
    if (answer.id !== id) throw new Error(`${name}: answer for id ${String(answer.id)}, expected ${id}`);
    if (!answer.result || answer.result.isError) {
      throw new Error(`${name}: tool error ${JSON.stringify(answer.result?.structuredContent)}`);
    }
    return answer.result.structuredContent as T;
  }

  /** Ends the session on the server (DELETE), as a well-behaved client does. */
  async close(): Promise<void> {
    await this.send("DELETE", undefined);
  }

  private rpcAnswer(http: HttpAnswer, what: string): RpcAnswer {
    if (http.status !== 200) throw new Error(`${what}: HTTP ${http.status} ${http.text.slice(0, 200)}`);
    // The server answers in JSON mode; an event stream here would mean the bench measures something else.
    if (!http.contentType.startsWith("application/json")) {
      throw new Error(`${what}: expected a JSON answer, got '${http.contentType}'`);
    }
    const answer = JSON.parse(http.text) as RpcAnswer;
    if (answer.error) throw new Error(`${what}: JSON-RPC error ${answer.error.code} ${answer.error.message}`);
    return answer;
  }

  private post(body: string): Promise<HttpAnswer> {
    return this.send("POST", body);
  }

  /**
   * A keep-alive connection the server closed while idle fails on reuse with UND_ERR_SOCKET. undici retries only
   * idempotent requests itself, so a POST is sent again here, once, on a fresh connection. That assumes what holds in
   * this benchmark: the host closes connections only when idle (keep-alive timeout), so the first send never reached
   * it; an error counted by the phase would show otherwise.
   */
  private async send(method: "POST" | "DELETE", body: string | undefined): Promise<HttpAnswer> {
    try {
      return await this.sendOnce(method, body);
    } catch (e) {
      if ((e as { code?: string }).code === "UND_ERR_SOCKET") return this.sendOnce(method, body);
      throw e;
    }
  }

  private async sendOnce(method: "POST" | "DELETE", body: string | undefined): Promise<HttpAnswer> {
    const res = await this.pool.request({ path: this.url.pathname, method, headers: this.baseHeaders, body });
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    return {
      status: res.statusCode,
      sessionId: header("mcp-session-id"),
      contentType: header("content-type") ?? "",
      text: await res.body.text(),
    };
  }
}

/**
 * A keep-alive connection pool for one server without a cap, one request per connection at a time (no pipelining), so
 * every parked long-poll has its own connection.
 */
export function leanPool(url: URL): Pool {
  return new Pool(url.origin, { connections: null, pipelining: 1 });
}
