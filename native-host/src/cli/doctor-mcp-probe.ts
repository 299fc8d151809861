// Asks a loopback port "are you this data directory's MCP server?" the way an MCP client would: an `initialize` with
// `Authorization: Bearer <token>`, then the session it opened is closed again. Plain node:http, so every answer
// (a refusal, another program's page, a non-HTTP reply) can be told apart.
import type { IncomingHttpHeaders } from "node:http";
import { request } from "node:http";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { MCP_REALM, MCP_SERVER_NAME } from "../mcp/server-name.ts";

/** The answers worth reading are small; anything longer is not ours. */
const MAX_BODY_BYTES = 64 * 1024;

export type McpAnswer =
  /** Our server, and it took the token. */
  | { readonly kind: "accepted" }
  /** Our server (its 401 names our realm), but it refused the token (or none was sent). */
  | { readonly kind: "refused" }
  /** Something else answered: `detail` says what, for the message. */
  | { readonly kind: "other"; readonly detail: string }
  /** Nothing listens (connection refused). */
  | { readonly kind: "free" }
  | { readonly kind: "timeout" }
  | { readonly kind: "error"; readonly message: string };

interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

type Exchange =
  | { readonly kind: "answer"; readonly answer: HttpAnswer }
  | { readonly kind: "free" }
  | { readonly kind: "timeout" }
  | { readonly kind: "not-http" }
  | { readonly kind: "error"; readonly message: string };

export async function probeMcp(
  port: number,
  token: string | undefined,
  timeoutMs: number,
): Promise<McpAnswer> {
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "orchestrator-doctor", version: "1" },
    },
  });
  const sent = await exchange(port, "POST", { ...auth, "content-type": "application/json" }, body, timeoutMs);
  if (sent.kind === "not-http") return { kind: "other", detail: "a reply that is not HTTP" };
  if (sent.kind !== "answer") return sent;
  const { status, headers } = sent.answer;
  if (status === 401) {
    return String(headers["www-authenticate"] ?? "").includes(MCP_REALM)
      ? { kind: "refused" }
      : { kind: "other", detail: "HTTP 401 from a server that is not ChatGPT Orchestrator" };
  }
  if (status !== 200) return { kind: "other", detail: `HTTP ${status}` };
  const name = serverName(sent.answer);
  if (name !== MCP_SERVER_NAME) {
    return {
      kind: "other",
      detail: name === undefined ? "HTTP 200 that is not an MCP answer" : `an MCP server named "${name}"`,
    };
  }
  const session = headers["mcp-session-id"];
  if (typeof session === "string") {
    // Close the session this probe opened, so it does not linger until the server's idle sweep.
    const closed = await exchange(port, "DELETE", { ...auth, "mcp-session-id": session }, "", timeoutMs);
    if (closed.kind !== "answer" || closed.answer.status !== 200) {
      return { kind: "error", message: `the server took the token but did not close the probe's session` };
    }
  }
  return { kind: "accepted" };
}

/** `result.serverInfo.name` of an initialize answer, sent as JSON or as a server-sent event. */
function serverName(answer: HttpAnswer): string | undefined {
  const type = String(answer.headers["content-type"] ?? "");
  const json = type.includes("text/event-stream")
    ? answer.body
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .join("")
    : answer.body;
  try {
    const message = JSON.parse(json) as { result?: { serverInfo?: { name?: unknown } } } | null;
    const name = message?.result?.serverInfo?.name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined; // not JSON: the caller reports that it is not an MCP answer
  }
}

function exchange(
  port: number,
  method: "POST" | "DELETE",
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method,
        headers: {
          ...headers,
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        res.on("end", () =>
          resolve({
            kind: "answer",
            answer: {
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString("utf8"),
            },
          }),
        );
        res.on("error", (e) => resolve({ kind: "error", message: e.message }));
      },
    );
    req.on("timeout", () => {
      req.destroy();
      resolve({ kind: "timeout" });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "ECONNREFUSED") resolve({ kind: "free" });
      // Node's HTTP parser names its errors HPE_*: whatever listens does not speak HTTP.
      else if (e.code?.startsWith("HPE_") === true) resolve({ kind: "not-http" });
      else resolve({ kind: "error", message: e.message });
    });
    req.end(body);
  });
}
