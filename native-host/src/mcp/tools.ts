// The operations layer as MCP tools: one McpServer per session, every OperationDef registered as a tool, calls
// dispatched through invoke() so validation and refusals come back as `isError` results with a stable code.
import { PRODUCT_VERSION } from "../../../shared/product-version.ts";
import { isStoreError } from "../store/store-error.ts";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import type { Input } from "../core/inputs.ts";
import type { StoredEvent } from "../store/domain-repository.ts";
import {
  type Cancellation,
  type EventFilter,
  faultResult,
  type OperationResult,
  type OperationsContext,
} from "../operations/context.ts";
import { invoke, type OperationDef } from "../operations/registry.ts";
import { MCP_SERVER_NAME } from "./server-name.ts";

export interface McpLogger {
  warn(msg: string): void;
  info(msg: string): void;
}

export const SERVER_INFO = { name: MCP_SERVER_NAME, version: PRODUCT_VERSION } as const;

const INSTRUCTIONS =
  "Durable ChatGPT workers that keep going across turns. Create a run (run_create), spawn workers " +
  "(worker_spawn), report progress (worker_progress) and end them explicitly (worker_complete / worker_fail). " +
  "Follow changes with events_list / events_wait and pass the returned cursor to the next call. " +
  "When a worker's conversation grows too long or slow, it continues in a new one with worker_rollover and a " +
  "handoff brief.";

export interface ToolCalls {
  /** Tool calls in progress (all sessions). */
  inflight: number;
}

/** A cancelled call's result is never sent (the SDK drops it); this only ends the operation's wait early. */
class CallCancelled extends Error {
  readonly code = "CANCELLED";
}

/** What every session of one server shares: the operations, their schemas, the validator, the event-read cache. */
export interface ToolTable {
  readonly operations: ReadonlyMap<string, OperationDef>;
  /** Per operation, its input as the strict object invoke() parses with, so tools/list says additionalProperties: false. */
  readonly schemas: ReadonlyMap<string, z.ZodObject>;
  /** The SDK builds an Ajv instance per Server unless given one (~3 ms per session); ours never validates anyway. */
  readonly validator: AjvJsonSchemaValidator;
  readonly events: EventReads;
}

/** Built once per server; every session registers the same schemas. */
export function toolTable(operations: ReadonlyMap<string, OperationDef>): ToolTable {
  return {
    operations,
    schemas: new Map([...operations.values()].map((op) => [op.name, z.strictObject(op.input)])),
    validator: new AjvJsonSchemaValidator(),
    events: new EventReads(),
  };
}

/** Pages kept for one event sequence; past it the cache starts over (it only has to cover one wake). */
const MAX_CACHED_PAGES = 32;

/**
 * One event write wakes every parked events_wait, and they mostly ask the same question (same cursor, limit and
 * filter): the first read's page is shared with the others, which then also share one answer and its JSON. Pages are
 * kept only while the newest event sequence stays what it was when they were read, so a cached page can never hide a
 * newer event; the wake takes several turns of the event loop (chunks), so a per-turn cache would read again per chunk.
 * Archiving removes only events of runs that ended an hour before, so a page read before it is still true after.
 */
export class EventReads {
  private readonly pages = new Map<string, StoredEvent[]>();
  private seq = -1;
  private state: unknown;

  read(ctx: OperationsContext, cursor: number, limit: number, filter: EventFilter): StoredEvent[] {
    const seq = ctx.lastEventSeq();
    // The state's identity as well as the counter: after the store rolled back writes the disk refused, the counter
    // can climb back to a value it had, with other events behind it; the reloaded state is a new object.
    const state = ctx.state;
    if (seq !== this.seq || state !== this.state || this.pages.size >= MAX_CACHED_PAGES) {
      this.pages.clear();
      this.seq = seq;
      this.state = state;
    }
    const key = `${cursor}|${limit}|${filter.runId ?? ""}|${filter.workerId ?? ""}`;
    let page = this.pages.get(key);
    if (page === undefined) {
      page = ctx.eventsAfter(cursor, limit, filter);
      this.pages.set(key, page);
    }
    return page;
  }
}

/** Runs one tool call; `scopes` end its waits early (cancelled, connection dropped, session closed). */
export type ToolCaller = (
  name: string,
  args: unknown,
  scopes: readonly Cancellation[],
) => Promise<CallToolResult>;

/** The tool calls of one server, as the transport dispatches well-formed `tools/call` requests straight to them. */
export function toolCaller(
  backend: OperationsContext,
  table: ToolTable,
  log: McpLogger,
  calls: ToolCalls,
): ToolCaller {
  return (name, args, scopes) => callTool(backend, table, log, calls, name, args, scopes);
}

/**
 * Builds the McpServer of one session: initialize, tools/list, ping and the rest of the protocol. Well-formed tools/call
 * requests never reach it (the transport hands them to `toolCaller`); a malformed one gets the SDK's error from here.
 * `scopeOf` gives the cancellation of the HTTP request that carried a JSON-RPC request id.
 */
export function createSessionServer(
  backend: OperationsContext,
  table: ToolTable,
  log: McpLogger,
  calls: ToolCalls,
  scopeOf: (requestId: string | number) => Cancellation | undefined,
): McpServer {
  const { operations } = table;
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: table.validator,
  });
  for (const op of operations.values()) {
    // No outputSchema (the contract has one per operation): the SDK's client checks every result's structured content
    // against it, error results (`{ error }`) included, so a refusal would reach the caller as a schema error.
    // The SDK turns the zod input into the JSON Schema of tools/list and passes the annotations through untouched:
    // all four hints, always explicit (ToolAnnotations), and the title again for clients of the 2025-03-26 spec, which
    // read it from the annotations only. Calls do not reach this callback (tools/call is routed to invoke() below).
    server.registerTool(
      op.name,
      {
        title: op.title,
        description: op.description,
        inputSchema: table.schemas.get(op.name)!,
        annotations: { title: op.title, ...op.annotations },
      },
      (args: unknown, extra) => callTool(backend, table, log, calls, op.name, args, [extra.signal]),
    );
  }
  // The transport dispatches tools/call itself (toolCaller); this handler serves the same calls for any other transport.
  // tools/call goes straight to invoke(): one strict parse (an unknown or misspelt argument is refused, where the SDK
  // would silently strip it) and every failure as `CODE: message`, including INVALID_INPUT and an unknown tool name.
  // Registered through Protocol's own setRequestHandler rather than Server's override, which parses every call with
  // the full CallToolRequestSchema twice more and the result with CallToolResultSchema (a result toToolResult built).
  setProtocolRequestHandler(server, TOOLS_CALL, (request, extra) => {
    const http = scopeOf(extra.requestId);
    return callTool(
      backend,
      table,
      log,
      calls,
      request.params.name,
      request.params.arguments,
      http ? [extra.signal, http] : [extra.signal],
    );
  });
  return server;
}

/** The part of a tools/call request the handler reads; the arguments are then parsed strictly by invoke(). */
const TOOLS_CALL = z.object({
  method: z.literal("tools/call"),
  params: z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }),
});

type RequestHandler = Parameters<McpServer["server"]["setRequestHandler"]>[1];

function setProtocolRequestHandler(
  server: McpServer,
  schema: typeof TOOLS_CALL,
  handler: (
    request: z.infer<typeof TOOLS_CALL>,
    extra: Parameters<RequestHandler>[1],
  ) => Promise<CallToolResult>,
): void {
  (Protocol.prototype.setRequestHandler as (this: unknown, s: unknown, h: unknown) => void).call(
    server.server,
    schema,
    handler,
  );
}

async function callTool(
  backend: OperationsContext,
  table: ToolTable,
  log: McpLogger,
  calls: ToolCalls,
  name: string,
  args: unknown,
  scopes: readonly Cancellation[],
): Promise<CallToolResult> {
  calls.inflight += 1;
  try {
    return toToolResult(
      await invoke(table.operations, name, args, new CallContext(backend, table.events, scopes)),
    );
  } catch (error) {
    if (error instanceof CallCancelled)
      return toToolResult({ ok: false, error: { code: error.code, message: "" } });
    // A store fault (a full disk) is an expected outcome the store already logged: one line, no stack. Anything else
    // is a bug, and its stack is what finds it.
    const detail = isStoreError(error)
      ? `${error.code} ${error.message}`
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
    log.warn(`mcp: tool ${name} threw: ${detail}`);
    return toToolResult(faultResult(error));
  } finally {
    calls.inflight -= 1;
  }
}

/** The last frozen (shared) value turned into a result, and that result: see toToolResult. */
let sharedValue: object | undefined;
let sharedResult: CallToolResult | undefined;

/**
 * Success: the value as JSON text and as structured content. Failure: `isError` with `CODE: message`. A frozen value
 * is one an operation hands to many calls at once (events_wait woken by one write): they get one frozen result, which
 * the transport then serialises once for all of them.
 */
export function toToolResult(result: OperationResult): CallToolResult {
  if (result.ok) {
    const value = result.value;
    if (value === sharedValue) return sharedResult!;
    const out: CallToolResult = {
      content: [{ type: "text", text: JSON.stringify(value) }],
      structuredContent: value,
    };
    if (!Object.isFrozen(value)) return out;
    sharedValue = value;
    sharedResult = Object.freeze(out);
    return sharedResult;
  }
  const { code, message } = result.error;
  return {
    content: [{ type: "text", text: message ? `${code}: ${message}` : code }],
    structuredContent: { error: { code, message } },
    isError: true,
  };
}

/**
 * The backend seen by one call: identical, except that waiting for events also ends when the caller goes away
 * (MCP cancellation, session closed, HTTP connection dropped: any of `scopes` aborted). The wait then rejects, which
 * ends an events_wait loop at once instead of letting it spin until its deadline. Event reads go through the shared
 * page cache (EventReads). A class, so a call costs one small object and no closures.
 */
class CallContext implements OperationsContext {
  constructor(
    private readonly ctx: OperationsContext,
    private readonly events: EventReads,
    private readonly scopes: readonly Cancellation[],
  ) {}

  get state() {
    return this.ctx.state;
  }
  apply(input: Input) {
    return this.ctx.apply(input);
  }
  newId() {
    return this.ctx.newId();
  }
  now() {
    return this.ctx.now();
  }
  lastEventSeq() {
    return this.ctx.lastEventSeq();
  }
  eventsAfter(cursor: number, limit: number, filter: EventFilter) {
    return this.events.read(this.ctx, cursor, limit, filter);
  }
  async waitForEvent(cursor: number, timeoutMs: number, own: readonly Cancellation[] = []) {
    if (this.gone()) throw new CallCancelled("call cancelled");
    await this.ctx.waitForEvent(cursor, timeoutMs, own.length > 0 ? [...this.scopes, ...own] : this.scopes);
    if (this.gone()) throw new CallCancelled("call cancelled");
  }
  attempts(workerId: string) {
    return this.ctx.attempts(workerId);
  }
  inbox(workerId: string, afterSeq: number) {
    return this.ctx.inbox(workerId, afterSeq);
  }
  durable() {
    return this.ctx.durable();
  }
  storeHealth() {
    return this.ctx.storeHealth();
  }
  livenessEnv() {
    return this.ctx.livenessEnv();
  }

  private gone(): boolean {
    return this.scopes.some((s) => s.aborted);
  }
}
