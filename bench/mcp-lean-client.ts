// The benchmark's load generator: MCP sessions spoken as plain JSON-RPC over keep-alive node:http, so that on a small
// machine the generator's own CPU does not show up as server latency. It does what an MCP client must (initialize,
// notifications/initialized, Mcp-Session-Id and MCP-Protocol-Version on every later request, Accept of both JSON and
// event streams) and checks every answer; the official SDK client is what the tests use.
import { Agent, request } from "node:http";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

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
    private readonly agent: Agent,
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
  static async open(agent: Agent, url: URL, token: string): Promise<LeanMcpSession> {
    const session = new LeanMcpSession(agent, url, token);
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
   * A keep-alive connection the server closed while idle fails on reuse with ECONNRESET before the server read
   * anything: such a request is sent again once on a fresh connection (the pattern Node's http docs recommend).
   */
  private async send(method: "POST" | "DELETE", body: string | undefined): Promise<HttpAnswer> {
    try {
      return await this.sendOnce(method, body);
    } catch (e) {
      if ((e as { retryable?: boolean }).retryable) return this.sendOnce(method, body);
      throw e;
    }
  }

  private sendOnce(method: "POST" | "DELETE", body: string | undefined): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...this.baseHeaders };
      if (body !== undefined) headers["Content-Length"] = Buffer.byteLength(body);
      let answered = false;
      const req = request(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method,
          headers,
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const sid = res.headers["mcp-session-id"];
            resolve({
              status: res.statusCode ?? 0,
              sessionId: Array.isArray(sid) ? sid[0] : sid,
              contentType: res.headers["content-type"] ?? "",
              text: Buffer.concat(chunks).toString("utf8"),
            });
          });
        },
      );
      req.on("error", (e: NodeJS.ErrnoException) =>
        reject(Object.assign(e, { retryable: req.reusedSocket && !answered && e.code === "ECONNRESET" })),
      );
      req.end(body);
    });
  }
}

/** A keep-alive connection pool without a cap, so every parked long-poll has its own connection. */
export function leanAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });
}
