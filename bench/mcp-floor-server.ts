// The floor under bench:mcp's figures: a do-nothing server that speaks just enough of the same HTTP exchanges (MCP
// session header, 202 for notifications, canned tool results, events_wait parked until the next write) to take the
// bench's exact load in its own process. What it measures is the machine: loopback, process wake-ups, scheduling.
// Run by mcp-bench.ts as `node --import tsx bench/mcp-floor-server.ts`; prints its port on stdout.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** About the size of the host's worker_get answer, so the bytes on the wire are comparable. */
const WORKER = {
  id: "w-floor",
  runId: "r-floor",
  path: "/root/w0",
  state: "running",
  stateText: "Running: working on its assignment",
  objective: "floor",
  policy: { autoResume: true, maxAttempts: 50, keepaliveMinutes: 20, floorMinutes: 15 },
  current: null,
  resumes: 0,
};

let sessions = 0;
/** Parked events_wait answers, released together by the next worker_progress. */
let parked: { res: ServerResponse; id: unknown; sid: string }[] = [];
let seq = 0;

function answer(res: ServerResponse, sid: string, id: unknown, value: object): void {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value },
  });
  res.writeHead(200, { "Content-Type": "application/json", "mcp-session-id": sid });
  res.end(body);
}

function toolResult(name: string, args: Record<string, unknown>): object {
  switch (name) {
    case "run_create":
      return { run: { id: "r-floor" } };
    case "worker_spawn":
      return { worker: { ...WORKER, path: args.path } };
    case "events_list":
      return { events: [], cursor: seq };
    case "worker_progress":
      seq += 1;
      return { worker: WORKER };
    default:
      return { worker: WORKER, attempts: [] };
  }
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.method === "DELETE") {
      res.writeHead(200);
      res.end();
      return;
    }
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      id?: unknown;
      method: string;
      params?: { name?: string; arguments?: Record<string, unknown> };
    };
    if (message.id === undefined) {
      res.writeHead(202);
      res.end();
      return;
    }
    const header = req.headers["mcp-session-id"];
    const sid = typeof header === "string" ? header : `floor-${++sessions}`;
    if (message.method === "initialize") {
      const value = {
        protocolVersion: "2025-06-18",
        capabilities: {},
        serverInfo: { name: "floor", version: "1" },
      };
      res.writeHead(200, { "Content-Type": "application/json", "mcp-session-id": sid });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: value }));
      return;
    }
    const name = message.params?.name ?? "";
    if (name === "events_wait") {
      parked.push({ res, id: message.id, sid });
      return;
    }
    const value = toolResult(name, message.params?.arguments ?? {});
    answer(res, sid, message.id, value);
    if (name === "worker_progress" && parked.length > 0) {
      const woken = parked;
      parked = [];
      const event = { events: [{ seq, type: "worker.progress" }], cursor: seq, timedOut: false };
      for (const w of woken) answer(w.res, w.sid, w.id, event);
    }
  });
});

server.listen(0, "127.0.0.1", () => {
  console.log((server.address() as AddressInfo).port);
});
