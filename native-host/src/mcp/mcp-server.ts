// The MCP endpoint of the owner process (architecture §6): Streamable HTTP on 127.0.0.1 only, `/mcp` with a Bearer token
// or `/mcp/<token>` for connectors that cannot send headers. One McpServer + one transport per MCP session, so JSON-RPC
// ids of different clients can never meet (CVE-2026-25536). Plain node:http: the checks must run before any body byte
// is read, and express would only add a second body parser and a CORS temptation. The SDK's web-standard transport is
// driven directly (node-adapter.ts) with the body we already parsed.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { OperationsContext } from "../operations/context.ts";
import type { OperationDef } from "../operations/registry.ts";
import {
  checkDeclaredLength,
  checkHost,
  checkOrigin,
  DEFAULT_MAX_BODY_BYTES,
  matchRoute,
  normalizeOrigins,
  readBody,
  type Refusal,
  TokenCheck,
} from "./http-guards.ts";
import { transportRequest, writeResponse } from "./node-adapter.ts";
import { createSessionServer, HttpScope, type McpLogger, type ToolCalls, toolTable } from "./tools.ts";

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
  readonly transport: WebStandardStreamableHTTPServerTransport;
  id: string | undefined;
  lastUsed: number;
  /** HTTP requests of this session still open (a GET event stream counts). */
  open: number;
  /** The open POST that carried each JSON-RPC request still being handled. */
  readonly scopes: Map<string | number, HttpScope>;
}

const LOOPBACK = "127.0.0.1";

/**
 * The id of a message shaped like a JSON-RPC request, else undefined. Only says which HTTP request carried which id
 * (for dropped connections); the SDK transport validates every message fully, so a zod pass here would be a second.
 */
function requestId(message: unknown): string | number | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { id, method } = message as { id?: unknown; method?: unknown };
  return typeof method === "string" && (typeof id === "string" || typeof id === "number") ? id : undefined;
}

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

  const rpcError = (res: ServerResponse, status: number, code: number, message: string): void => {
    if (res.headersSent) return;
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
  };

  const closeSession = (session: Session): void => {
    if (session.id !== undefined) sessions.delete(session.id);
    session.transport.close().catch((e: unknown) => log.warn(`mcp: closing a session failed: ${String(e)}`));
  };

  const newSession = (): Session => {
    const scopes = new Map<string | number, HttpScope>();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      // Plain JSON answers: no event stream per POST, which is cheaper and what a long-poll needs anyway.
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        session.id = id;
        sessions.set(id, session);
      },
    });
    const server = createSessionServer(backend, table, log, calls, (id) => scopes.get(id));
    const session: Session = { server, transport, id: undefined, lastUsed: Date.now(), open: 0, scopes };
    server.server.onclose = () => {
      if (session.id !== undefined && sessions.get(session.id) === session) sessions.delete(session.id);
    };
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

  const dispatch = async (
    req: IncomingMessage,
    res: ServerResponse,
    session: Session,
    body?: unknown,
  ): Promise<void> => {
    session.lastUsed = Date.now();
    session.open += 1;
    const ids: (string | number)[] = [];
    const scope = new HttpScope();
    if (body !== undefined) {
      for (const message of Array.isArray(body) ? (body as unknown[]) : [body]) {
        const id = requestId(message);
        if (id !== undefined) {
          session.scopes.set(id, scope);
          ids.push(id);
        }
      }
    }
    const closed = new Promise<undefined>((resolve) =>
      res.once("close", () => {
        session.open -= 1;
        session.lastUsed = Date.now();
        if (!res.writableFinished) scope.drop();
        for (const id of ids) if (session.scopes.get(id) === scope) session.scopes.delete(id);
        resolve(undefined);
      }),
    );
    // A request the client cancelled is never answered by the SDK; stop waiting once the connection is gone.
    const response = await Promise.race([
      session.transport.handleRequest(transportRequest(req, canonicalUrl), { parsedBody: body }),
      closed,
    ]);
    if (response && !res.destroyed) await writeResponse(response, res);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal =
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
    if (closing) return rpcError(res, 503, -32000, "Service Unavailable: shutting down");

    const method = req.method ?? "";
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      res.setHeader("Allow", "GET, POST, DELETE");
      return rpcError(res, 405, -32000, "Method Not Allowed");
    }
    if (method === "POST") {
      const declared = checkDeclaredLength(req.headers, maxBodyBytes);
      if (declared) return refuseBody(req, res, declared);
    }
    const sessionId = req.headers["mcp-session-id"];
    if (Array.isArray(sessionId)) return rpcError(res, 400, -32000, "Bad Request: one Mcp-Session-Id");
    const existing = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && !existing) return rpcError(res, 404, -32001, "Session not found");

    if (method !== "POST") {
      if (!existing) return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return dispatch(req, res, existing);
    }

    const read = await readBody(req, maxBodyBytes);
    if (!read.ok) return refuseBody(req, res, read.refusal);
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch {
      return rpcError(res, 400, -32700, "Parse error: invalid JSON");
    }
    if (existing) return dispatch(req, res, existing, body);
    if (!isInitializeRequest(body)) {
      return rpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    if (!admitSession()) return rpcError(res, 503, -32000, "Service Unavailable: too many MCP sessions");
    const session = newSession();
    await session.server.connect(session.transport);
    await dispatch(req, res, session, body);
    // A refused initialize never got an id: nothing refers to its server any more.
    if (session.id === undefined) await session.server.close();
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
      if (!res.headersSent) rpcError(res, 500, -32603, "Internal error");
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
