// The MCP endpoint of the owner process (docs/mcp.md): Streamable HTTP on 127.0.0.1 only, `/mcp` with a Bearer token
// or `/mcp/<token>` for connectors that cannot send headers. One McpServer + one transport per MCP session, so JSON-RPC
// ids of different clients can never meet (CVE-2026-25536). Plain node:http: the checks must run before any body byte
// is read, and express would only add a second body parser and a CORS temptation. The session transport is our own
// (json-http-transport.ts): the SDK's web-standard one cost most of a call's CPU.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { OperationsContext } from "../operations/context.ts";
import type { OperationDef } from "../operations/registry.ts";
import {
  checkDeclaredLength,
  checkHost,
  checkOrigin,
  checkSingleHeaders,
  DEFAULT_MAX_BODY_BYTES,
  matchRoute,
  normalizeOrigins,
  readBody,
  type Refusal,
  TokenCheck,
} from "./http-guards.ts";
import {
  acceptsPost,
  isInitialize,
  isJsonContentType,
  JsonHttpTransport,
  MAX_BATCH_SIZE,
  protocolVersionError,
  toJsonRpcMessage,
  writeRpcError,
} from "./json-http-transport.ts";
import { createSessionServer, type McpLogger, type ToolCalls, toolCaller, toolTable } from "./tools.ts";

export type { McpLogger } from "./tools.ts";

export interface McpServerOptions {
  readonly backend: OperationsContext;
  readonly operations: ReadonlyMap<string, OperationDef>;
  /** Loopback only; anything else is refused at startup. */
  readonly host?: "127.0.0.1";
  /** 0 = any free port (read the chosen one from the result). */
  readonly port: number;
  readonly token: string;
  readonly log: McpLogger;
  /** Origins (scheme://host[:port]) allowed to call from a browser page; default none. */
  readonly allowedOrigins?: readonly string[];
  /** Largest accepted request body; default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Most concurrent MCP sessions; past it the least recently used idle one is closed. Default 1000. */
  readonly maxSessions?: number;
  /** A session without requests for this long is closed (its client re-initializes on 404). Default 30 min. */
  readonly sessionIdleMs?: number;
}

export interface McpServerHandle {
  readonly port: number;
  /** `http://127.0.0.1:<port>/mcp`: send `Authorization: Bearer <token>`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>/mcp/<token>`: for ChatGPT connectors, which cannot send headers. Secret. */
  readonly connectorUrl: string;
  /** The token in force. */
  readonly token: string;
  /** Accepts only `token` from the next request on; open sessions must present it too. */
  rotateToken(token: string): void;
  /** The listening socket's address (always 127.0.0.1). */
  address(): AddressInfo;
  /** Open MCP sessions and tool calls in progress. */
  stats(): { sessions: number; inflightCalls: number };
  /** Closes every session (ending long-polls), then the listener. */
  close(): Promise<void>;
}

interface Session {
  readonly server: McpServer;
  readonly transport: JsonHttpTransport;
  readonly id: string;
  lastUsed: number;
  /** HTTP requests of this session still open (a GET event stream counts). */
  open: number;
}

const LOOPBACK = "127.0.0.1";

export async function startMcpServer(options: McpServerOptions): Promise<McpServerHandle> {
  const host: string = options.host ?? LOOPBACK;
  if (host !== LOOPBACK) throw new Error(`MCP server listens on ${LOOPBACK} only (asked for '${host}')`);
  const tokenCheck = new TokenCheck(options.token);
  const allowedOrigins = normalizeOrigins(options.allowedOrigins ?? []);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxSessions = options.maxSessions ?? 1000;
  const sessionIdleMs = options.sessionIdleMs ?? 30 * 60_000;
  const { backend, operations, log } = options;

  const sessions = new Map<string, Session>();
  const calls: ToolCalls = { inflight: 0 };
  const table = toolTable(operations);
  const callTool = toolCaller(backend, table, log, calls);
  let port = 0;
  let canonicalUrl = "";
  let closing = false;

  // A hostile page can make a browser send refused requests in a loop: report the first at once, then one summary a minute.
  let lastRefusalLog = -Infinity;
  let unreported = 0;
  const noteRefusal = (req: IncomingMessage, refusal: Refusal): void => {
    const now = Date.now();
    if (now - lastRefusalLog < 60_000) {
      unreported += 1;
      return;
    }
    const more = unreported > 0 ? ` (and ${unreported} more refused since the last report)` : "";
    log.warn(`mcp: refused ${req.method ?? "?"} with ${refusal.status}: ${refusal.message}${more}`);
    lastRefusalLog = now;
    unreported = 0;
  };

  const refuse = (res: ServerResponse, refusal: Refusal, closeConnection = false): void => {
    if (res.headersSent) return;
    res.writeHead(refusal.status, {
      "Content-Type": "application/json",
      ...refusal.headers,
      ...(closeConnection ? { Connection: "close" } : {}),
    });
    // JSON-RPC error without an id, as the transport spec asks for refused requests.
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: refusal.message }, id: null }));
  };

  const closeSession = (session: Session): void => {
    sessions.delete(session.id);
    session.transport.close().catch((e: unknown) => log.warn(`mcp: closing a session failed: ${String(e)}`));
  };

  const newSession = async (): Promise<Session> => {
    const id = randomUUID();
    const transport = new JsonHttpTransport(new URL(canonicalUrl), id, callTool);
    const server = createSessionServer(backend, table, log, calls, (requestId) =>
      transport.scopeOf(requestId),
    );
    const session: Session = { server, transport, id, lastUsed: Date.now(), open: 0 };
    server.server.onclose = () => {
      if (sessions.get(session.id) === session) sessions.delete(session.id);
    };
    await server.connect(transport);
    sessions.set(session.id, session);
    return session;
  };

  /** Makes room for one more session: closes the least recently used one that has no request open. */
  const admitSession = (): boolean => {
    if (sessions.size < maxSessions) return true;
    let victim: Session | undefined;
    for (const s of sessions.values())
      if (s.open === 0 && (!victim || s.lastUsed < victim.lastUsed)) victim = s;
    if (!victim) return false;
    log.info(`mcp: session limit ${maxSessions} reached, closing the least recently used idle session`);
    closeSession(victim);
    return true;
  };

  /** Counts an open HTTP request of a session until its connection is done with it. */
  const track = (session: Session, res: ServerResponse): void => {
    session.lastUsed = Date.now();
    session.open += 1;
    res.once("close", () => {
      session.open -= 1;
      session.lastUsed = Date.now();
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal =
      checkSingleHeaders(req) ??
      checkHost(req.headers, port) ??
      checkOrigin(req.headers, allowedOrigins) ??
      (matchRoute(req.url) ? undefined : { status: 404, message: "Not Found: the MCP endpoint is /mcp" });
    if (refusal) {
      noteRefusal(req, refusal);
      return refuse(res, refusal, true);
    }
    const authRefusal = tokenCheck.check(req.headers, matchRoute(req.url)!);
    if (authRefusal) {
      noteRefusal(req, authRefusal);
      return refuse(res, authRefusal, true);
    }
    if (closing) return writeRpcError(res, 503, -32000, "Service Unavailable: shutting down");

    const method = req.method ?? "";
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      return writeRpcError(res, 405, -32000, "Method Not Allowed", { Allow: "GET, POST, DELETE" });
    }
    if (method === "POST") {
      const declared = checkDeclaredLength(req.headers, maxBodyBytes);
      if (declared) return refuseBody(req, res, declared);
    }
    const sessionId = req.headers["mcp-session-id"];
    // Repeated copies were refused above (checkSingleHeaders); this only narrows the type.
    if (Array.isArray(sessionId)) return writeRpcError(res, 400, -32000, "Bad Request: one Mcp-Session-Id");
    const existing = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && (!existing || existing.transport.isClosed)) {
      return writeRpcError(res, 404, -32001, "Session not found");
    }

    if (method === "GET") {
      if (!req.headers.accept?.includes("text/event-stream")) {
        return writeRpcError(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream");
      }
      if (!existing) return writeRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      const versionError = protocolVersionError(req);
      if (versionError) return writeRpcError(res, 400, -32000, versionError);
      track(existing, res);
      return existing.transport.handleGet(res);
    }
    if (method === "DELETE") {
      if (!existing) return writeRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      const versionError = protocolVersionError(req);
      if (versionError) return writeRpcError(res, 400, -32000, versionError);
      sessions.delete(existing.id);
      res.writeHead(200);
      res.end();
      await existing.transport.close();
      return;
    }

    if (!acceptsPost(req)) {
      return writeRpcError(
        res,
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    }
    if (!isJsonContentType(req)) {
      return writeRpcError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    const read = await readBody(req, maxBodyBytes);
    if (!read.ok) return refuseBody(req, res, read.refusal);
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch {
      return writeRpcError(res, 400, -32700, "Parse error: invalid JSON");
    }
    const batch = Array.isArray(body);
    const raw = batch ? (body as unknown[]) : [body];
    if (raw.length > MAX_BATCH_SIZE) {
      return writeRpcError(
        res,
        400,
        -32600,
        `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
      );
    }
    const messages: JSONRPCMessage[] = [];
    for (const value of raw) {
      const message = toJsonRpcMessage(value);
      if (message === undefined)
        return writeRpcError(res, 400, -32700, "Parse error: Invalid JSON-RPC message");
      messages.push(message);
    }
    const initializing = messages.some(isInitialize);
    if (initializing && existing) {
      return writeRpcError(res, 400, -32600, "Invalid Request: Server already initialized");
    }
    if (initializing && messages.length > 1) {
      return writeRpcError(res, 400, -32600, "Invalid Request: Only one initialization request is allowed");
    }
    let session = existing;
    if (!session) {
      if (!initializing)
        return writeRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      if (!admitSession())
        return writeRpcError(res, 503, -32000, "Service Unavailable: too many MCP sessions");
      session = await newSession();
    } else {
      const versionError = protocolVersionError(req);
      if (versionError) return writeRpcError(res, 400, -32000, versionError);
    }
    track(session, res);
    session.transport.handlePost(req, res, messages, batch);
  };

  /** Answers 413 with Connection: close, then discards whatever the client still sends (never buffered). */
  const refuseBody = (req: IncomingMessage, res: ServerResponse, refusal: Refusal): void => {
    refuse(res, refusal, true);
    req.resume();
    setTimeout(() => req.destroy(), 5_000).unref();
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.warn(
        `mcp: request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      if (!res.headersSent) writeRpcError(res, 500, -32603, "Internal error");
      else res.destroy();
    });
  });
  // A long-poll holds a request for up to 25 s; everything else is quick.
  http.requestTimeout = 60_000;
  http.headersTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    http.once("error", onError);
    http.listen({ host: LOOPBACK, port: options.port, exclusive: true }, () => {
      http.off("error", onError);
      resolve();
    });
  });
  http.on("error", (e) => log.warn(`mcp: server error: ${String(e)}`));
  port = (http.address() as AddressInfo).port;
  canonicalUrl = `http://${LOOPBACK}:${port}/mcp`;

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - sessionIdleMs;
      for (const s of [...sessions.values()]) if (s.open === 0 && s.lastUsed < cutoff) closeSession(s);
    },
    Math.min(60_000, Math.max(100, Math.floor(sessionIdleMs / 2))),
  );
  sweep.unref();

  const url = canonicalUrl;
  log.info(`mcp: listening on ${url}`);
  let token = options.token;
  return {
    port,
    url,
    get connectorUrl() {
      return `${url}/${encodeURIComponent(token)}`;
    },
    get token() {
      return token;
    },
    rotateToken(next: string) {
      tokenCheck.replace(next);
      token = next;
      log.info("mcp: token rotated");
    },
    address: () => http.address() as AddressInfo,
    stats: () => ({ sessions: sessions.size, inflightCalls: calls.inflight }),
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(sweep);
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      sessions.clear();
      http.closeAllConnections();
      await closed;
      log.info("mcp: closed");
    },
  };
}
