// The server side of one MCP session over Streamable HTTP in JSON-response mode, as an SDK `Transport` written
// straight against node:http. It replaces the SDK's WebStandardStreamableHTTPServerTransport, whose web Request /
// Response / ReadableStream per answer and zod passes per message were most of a tool call's CPU (docs/mcp.md,
// "Performance"). Semantics follow that transport (SDK 1.32.2): see mcp-server.ts for the HTTP checks around it.
// Well-formed tools/call requests go straight to the tool caller; everything else goes through the SDK's Protocol.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { CallScope } from "./call-scope.ts";
import type { ToolCaller } from "./tools.ts";

/** The SDK transport's limit on messages in one batch. */
export const MAX_BATCH_SIZE = 100;
/** A comment line on the GET event stream this often keeps proxies from closing it (the SDK's default). */
const SSE_KEEP_ALIVE_MS = 15_000;

/** A JSON-RPC error answer without an id, as the transport spec asks for refused HTTP requests. */
export function writeRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

const isRequestId = (id: unknown): id is RequestId =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Accepts exactly what the SDK's JSONRPCMessageSchema accepts. The common shapes (a request or notification without
 * `_meta`, a result, an error) are checked by hand and pass through as they are; anything else goes to the schema.
 */
export function toJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (isPlainObject(value)) {
    const m = value;
    if (m.jsonrpc === "2.0" && typeof m.method === "string") {
      let simple = true;
      for (const key in m) {
        if (key !== "jsonrpc" && key !== "method" && key !== "id" && key !== "params") simple = false;
      }
      const params = m.params;
      const plainParams = params === undefined || (isPlainObject(params) && !("_meta" in params));
      if (simple && plainParams && (!("id" in m) || isRequestId(m.id))) return m as JSONRPCMessage;
    }
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } =>
  "method" in m && "id" in m;

const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } =>
  ("result" in m || "error" in m) && "id" in m && m.id !== undefined;

interface ToolCallRequest {
  readonly id: RequestId;
  readonly params: { readonly name: string; readonly arguments?: Record<string, unknown> };
}

/**
 * A tools/call request: the call if its params have the shape of the spec's CallToolRequest (a name, arguments an
 * object if present), "invalid" if they do not, undefined for any other message.
 */
function asToolCall(m: JSONRPCMessage): ToolCallRequest | "invalid" | undefined {
  if (!("method" in m) || m.method !== "tools/call" || !("id" in m)) return undefined;
  const params = (m as { params?: unknown }).params;
  if (!isPlainObject(params) || typeof params.name !== "string") return "invalid";
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return "invalid";
  return m as unknown as ToolCallRequest;
}

/** The request id a `notifications/cancelled` names, if the message is one. */
function cancelledId(m: JSONRPCMessage): RequestId | undefined {
  if (!("method" in m) || m.method !== "notifications/cancelled" || "id" in m) return undefined;
  const params = (m as { params?: unknown }).params;
  const id = isPlainObject(params) ? params.requestId : undefined;
  return isRequestId(id) ? id : undefined;
}

/** Whether a message is an initialize request (the zod check runs only on messages that claim to be one). */
export function isInitialize(m: JSONRPCMessage): boolean {
  return "method" in m && m.method === "initialize" && isInitializeRequest(m);
}

/** `Accept` must allow both JSON and event streams on POST (the client cannot know which one it gets). */
export function acceptsPost(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && accept.includes("application/json") && accept.includes("text/event-stream");
}

/** `Content-Type: application/json`, parameters (charset) allowed, case-insensitive. */
export function isJsonContentType(req: IncomingMessage): boolean {
  const ct = req.headers["content-type"];
  if (ct === "application/json") return true;
  return ct !== undefined && ct.split(";", 1)[0]!.trim().toLowerCase() === "application/json";
}

/** An `MCP-Protocol-Version` header, when present, must name a version the SDK speaks. */
export function protocolVersionError(req: IncomingMessage): string | undefined {
  const version = req.headers["mcp-protocol-version"];
  if (version === undefined) return undefined;
  if (typeof version === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`;
}

/**
 * One POST that carried JSON-RPC requests: its answer is written once every request in it has its response, as one
 * object (or an array for a batch). If the connection drops first, waits of its calls end (the scope is aborted).
 */
class Exchange {
  readonly scope = new CallScope();
  private readonly responses = new Map<RequestId, string>();
  answered = false;

  constructor(
    readonly res: ServerResponse,
    readonly ids: readonly RequestId[],
    private readonly batch: boolean,
  ) {}

  /** Records one response (already serialised); true once the HTTP answer has been written. */
  add(id: RequestId, json: string, sessionId: string): boolean {
    this.responses.set(id, json);
    if (this.responses.size < this.ids.length) return false;
    this.answered = true;
    if (this.res.destroyed) return true;
    const body = this.batch ? `[${this.ids.map((i) => this.responses.get(i)!).join(",")}]` : json;
    const headers = { "Content-Type": "application/json", "mcp-session-id": sessionId };
    // One string: Node writes the head and the body in a single send (a Buffer body would cost a writev of two).
    this.res.writeHead(200, headers);
    this.res.end(body);
    return true;
  }
}

/** The transport of one session. mcp-server.ts routes a session's HTTP requests here after its own checks. */
export class JsonHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private readonly exchanges = new Map<RequestId, Exchange>();
  /** Tool calls dispatched here and still running, by request id, so notifications/cancelled can end them. */
  private readonly running = new Map<RequestId, CallScope>();
  private stream: ServerResponse | undefined;
  private closed = false;

  /**
   * `url` is the endpoint's canonical URL, so a token carried in the path never reaches request handlers. `toolCall` is
   * where well-formed tools/call requests go, bypassing Protocol's dispatch.
   */
  constructor(
    private readonly url: URL,
    readonly sessionId: string,
    private readonly toolCall: ToolCaller,
  ) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The HTTP request that carried a JSON-RPC request still being handled. */
  scopeOf(id: RequestId): CallScope | undefined {
    return this.exchanges.get(id)?.scope;
  }

  /**
   * Handles the validated messages of one POST: notifications and responses only are answered 202 at once; otherwise
   * the answer is written when the last request in it has been answered through send().
   */
  handlePost(req: IncomingMessage, res: ServerResponse, messages: JSONRPCMessage[], batch: boolean): void {
    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers, url: this.url } };
    const ids: RequestId[] = [];
    for (const m of messages) if (isRequest(m)) ids.push(m.id);
    if (ids.length === 0) {
      for (const m of messages) this.dispatch(m, extra, undefined);
      res.writeHead(202);
      res.end();
      return;
    }
    const exchange = new Exchange(res, ids, batch);
    for (const id of ids) this.exchanges.set(id, exchange);
    res.once("close", () => {
      if (exchange.answered) return;
      exchange.scope.abort();
      // A call cancelled or cut off is never answered: forget its ids so they cannot leak.
      for (const id of ids) if (this.exchanges.get(id) === exchange) this.exchanges.delete(id);
    });
    for (const m of messages) this.dispatch(m, extra, exchange);
  }

  /**
   * A well-formed tools/call goes straight to the tool caller, which answers through send() as Protocol would (same
   * response object, so the same bytes); Protocol's dispatch parsed each message with three zod schemas and made an
   * AbortController per request. A malformed one is answered -32602 (invalid params) here. Everything else goes to
   * Protocol.
   */
  private dispatch(m: JSONRPCMessage, extra: MessageExtraInfo, exchange: Exchange | undefined): void {
    const call = exchange ? asToolCall(m) : undefined;
    if (call === undefined) {
      const cancelled = cancelledId(m);
      if (cancelled !== undefined) this.running.get(cancelled)?.abort();
      this.onmessage?.(m, extra);
      return;
    }
    if (call === "invalid") {
      const { id } = m as { id: RequestId };
      const message =
        "Invalid params: tools/call needs a string 'name' and, if present, an object 'arguments'";
      void this.send({ jsonrpc: "2.0", id, error: { code: -32602, message } });
      return;
    }
    const { id, params } = call;
    const scope = new CallScope();
    this.running.set(id, scope);
    const settle = (response: JSONRPCMessage) => {
      if (this.running.get(id) === scope) this.running.delete(id);
      // A cancelled call is never answered (as Protocol does); its exchange goes when the client closes the request.
      if (!scope.aborted) void this.send(response);
    };
    this.toolCall(params.name, params.arguments, [exchange!.scope, scope]).then(
      (result) => settle({ result, jsonrpc: "2.0", id }),
      (error: unknown) => {
        // The caller turns every failure into an isError result; a throw here is a fault, answered as Protocol would.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        const message = error instanceof Error ? error.message : "Internal error";
        settle({ jsonrpc: "2.0", id, error: { code: -32603, message } });
      },
    );
  }

  /** GET: the session's one standalone event stream (server-initiated messages; ours sends none today). */
  handleGet(res: ServerResponse): void {
    if (this.stream !== undefined) {
      writeRpcError(res, 409, -32000, "Conflict: Only one SSE stream is allowed per session");
      return;
    }
    const headers: Record<string, string> = {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
      "mcp-session-id": this.sessionId,
    };
    res.writeHead(200, headers);
    res.flushHeaders();
    this.stream = res;
    const keepAlive = setInterval(() => res.write(": keepalive\n\n"), SSE_KEEP_ALIVE_MS);
    keepAlive.unref();
    res.once("close", () => {
      clearInterval(keepAlive);
      if (this.stream === res) this.stream = undefined;
    });
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isResponse(message)) {
      const exchange = this.exchanges.get(message.id);
      // Its HTTP request is gone (dropped connection, closed session): nobody is left to read the answer.
      if (exchange === undefined) return Promise.resolve();
      this.exchanges.delete(message.id);
      exchange.add(message.id, serialise(message), this.sessionId);
      return Promise.resolve();
    }
    // In JSON-response mode a message about a request has no stream to travel on (the SDK drops it too); one that is
    // not about a request goes to the GET stream if the client opened one.
    if (options?.relatedRequestId === undefined && this.stream !== undefined && !this.stream.destroyed) {
      this.stream.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.stream?.end();
    this.stream = undefined;
    for (const scope of this.running.values()) scope.abort();
    this.running.clear();
    const open = new Set(this.exchanges.values());
    this.exchanges.clear();
    for (const exchange of open) {
      // The session ended under a request still being handled: its client learns so instead of hanging.
      exchange.scope.abort();
      writeRpcError(exchange.res, 404, -32001, "Session not found");
    }
    this.onclose?.();
    return Promise.resolve();
  }
}

/** The last frozen result serialised, and its JSON (many woken waits answer with one shared result in a row). */
let sharedResult: object | undefined;
let sharedJson = "";

/** A response as JSON; a frozen (shared, immutable) result is serialised once and spliced into each answer. */
function serialise(message: JSONRPCMessage): string {
  const result = (message as { result?: unknown }).result;
  if (typeof result !== "object" || result === null || !Object.isFrozen(result))
    return JSON.stringify(message);
  if (result !== sharedResult) {
    sharedJson = JSON.stringify(result);
    sharedResult = result;
  }
  // The key order Protocol builds responses in, so the bytes are what JSON.stringify(message) would write.
  const rest = JSON.stringify({ ...message, result: undefined });
  return `{"result":${sharedJson},${rest.slice(1)}`;
}
