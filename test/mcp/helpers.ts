// Shared setup of the MCP tests: a real Engine on a temp directory, the server on a free port, SDK clients over HTTP,
// and raw HTTP requests for the transport checks.
import { randomBytes } from "node:crypto";
import { request as httpRequest, type OutgoingHttpHeaders } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Engine, type EngineOptions } from "../../native-host/src/engine/engine.ts";
import {
  startMcpServer,
  type McpServerHandle,
  type McpServerOptions,
} from "../../native-host/src/mcp/mcp-server.ts";
import { OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import { makeTempDir, recordingLogger, removeDir } from "../store/helpers.ts";
import { waitFor } from "../wait-for.ts";

export interface Harness {
  readonly dir: string;
  readonly backend: Engine;
  readonly server: McpServerHandle;
  readonly token: string;
  readonly warnings: string[];
  /** A connected SDK client; closed (and its session deleted) by `close()`. */
  client(url?: string): Promise<Client>;
  close(): Promise<void>;
}

export async function startHarness(
  extra: Partial<McpServerOptions> = {},
  store?: EngineOptions["store"],
): Promise<Harness> {
  const dir = makeTempDir("mcp");
  const { log, warnings } = recordingLogger();
  const backend = await Engine.open({ dir, log, ...(store ? { store } : {}) });
  const token = randomBytes(32).toString("hex");
  const server = await startMcpServer({ backend, operations: OPERATIONS, port: 0, token, log, ...extra });
  const clients: { client: Client; transport: StreamableHTTPClientTransport }[] = [];
  return {
    dir,
    backend,
    server,
    token,
    warnings,
    async client(url?: string) {
      const transport = new StreamableHTTPClientTransport(
        new URL(url ?? server.url),
        url ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } },
      );
      const client = new Client({ name: "mcp-test", version: "1.0.0" });
      await client.connect(transport);
      clients.push({ client, transport });
      return client;
    },
    async close() {
      for (const { client, transport } of clients) {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
      await server.close();
      try {
        await backend.close();
      } finally {
        removeDir(dir);
      }
    },
  };
}

/** Calls a tool and returns its parsed structured content; fails the test on an error result. */
export async function call<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

export async function callRaw(client: Client, name: string, args: unknown): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/**
 * One raw HTTP request with full control over Host and every other header (fetch forbids setting Host).
 * `body` may be a string or a number of bytes to stream without a Content-Length (chunked).
 */
export function raw(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: OutgoingHttpHeaders;
    body?: string | Buffer;
    chunked?: boolean;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "POST",
        path: options.path ?? "/mcp",
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on("error", reject);
      },
    );
    // The server may answer (413) and close before the whole body is sent; the answer is what matters.
    req.on("error", reject);
    if (options.body !== undefined) {
      if (options.chunked) {
        const body = typeof options.body === "string" ? Buffer.from(options.body) : options.body;
        for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
      } else {
        req.setHeader("content-length", Buffer.byteLength(options.body));
        req.write(options.body);
      }
    }
    req.end();
  });
}

/** Sends a request and resolves with the status and headers as soon as they arrive, then drops the connection. */
export function rawHead(
  port: number,
  options: { method?: string; path?: string; headers?: OutgoingHttpHeaders },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path ?? "/mcp",
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        agent: false,
      },
      (res) => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
        req.destroy();
      },
    );
    req.on("error", reject);
    req.end();
  });
}

export const INIT_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
} as const;

/** Resolves once `condition` holds (an in-process condition: polled on every timers phase); rejects after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  await waitFor(() => condition() || undefined, what, timeoutMs, 0);
}
