// `orchestrator doctor`'s checks of the running backend, from the files it keeps in the data directory: the owner
// record (is it running), the MCP port (does it answer as ours), the last executor contact, and storage.
import { existsSync, readFileSync, statfsSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { effectivePort, readConfig } from "./connector.ts";
import type { CliContext } from "./context.ts";
import type { Check } from "./doctor-check.ts";
import { isPidAlive } from "./process-alive.ts";

/** Read directly rather than through the store and host modules, so doctor works even where they cannot load. */
const OWNER_FILE = "owner.json";
const STATUS_FILE = "status.json";

/** Below this the next snapshot may not fit; below a megabyte the journal's next records may not either. */
const LOW_SPACE_BYTES = 64 * 1024 * 1024;
const NO_SPACE_BYTES = 1024 * 1024;

/**
 * Whether the backend can save changes: the running owner's own word (status.json's `storage`, written when its disk
 * refused data and again when it healed) and the free space on the data directory's disk.
 */
export function checkStorage(dataDir: string, ownerAlive: boolean): Check {
  const name = "storage";
  const fix = "free space on that disk (or fix it); the backend starts saving again by itself within 10 s";
  if (!existsSync(dataDir)) return { name, status: "WARN", message: `skipped: ${dataDir} does not exist` };
  if (ownerAlive) {
    const storage = readStatus(dataDir)?.storage as { writable?: unknown; message?: unknown } | undefined;
    if (storage?.writable === false) {
      return {
        name,
        status: "FAIL",
        message: `the backend cannot save changes: ${String(storage.message)}`,
        fix,
      };
    }
  }
  const fs = statfsSync(dataDir);
  const free = fs.bavail * fs.bsize;
  const words = `${(free / 1024 / 1024).toFixed(1)} MiB free on the disk holding ${dataDir}`;
  if (free < NO_SPACE_BYTES)
    return { name, status: "FAIL", message: `${words}: changes cannot be saved`, fix };
  if (free < LOW_SPACE_BYTES) return { name, status: "WARN", message: `${words}: little room left`, fix };
  return { name, status: "OK", message: words };
}

function readStatus(dataDir: string): Record<string, unknown> | undefined {
  try {
    const raw = JSON.parse(readFileSync(path.join(dataDir, STATUS_FILE), "utf8")) as unknown;
    return raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // missing or unreadable: checkExecutor reports the file itself
  }
}

interface OwnerRecord {
  pid: number;
  generation: number;
  startedAt: string;
}

function readOwner(dataDir: string): OwnerRecord | "missing" | "invalid" {
  const file = path.join(dataDir, OWNER_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "invalid";
  }
  const v = raw as Partial<OwnerRecord> | null;
  return v !== null &&
    typeof v === "object" &&
    Number.isSafeInteger(v.pid) &&
    Number.isSafeInteger(v.generation) &&
    typeof v.startedAt === "string"
    ? (v as OwnerRecord)
    : "invalid";
}

export function checkOwner(dataDir: string): { alive: boolean; check: Check } {
  const name = "owner";
  const owner = readOwner(dataDir);
  const startHint = "it starts when the extension connects, or run orchestrator serve";
  if (owner === "missing") {
    return {
      alive: false,
      check: {
        name,
        status: "WARN",
        message: "no backend has run with this data directory yet",
        fix: startHint,
      },
    };
  }
  if (owner === "invalid") {
    return {
      alive: false,
      check: {
        name,
        status: "FAIL",
        message: `${path.join(dataDir, OWNER_FILE)} is not a valid owner record`,
        fix: "stop every orchestrator process, then delete owner.json",
      },
    };
  }
  const alive = isPidAlive(owner.pid);
  return {
    alive,
    check: alive
      ? {
          name,
          status: "OK",
          message: `backend running: pid ${owner.pid}, generation ${owner.generation}, since ${owner.startedAt}`,
        }
      : {
          name,
          status: "WARN",
          message: `no backend running (last owner pid ${owner.pid}, generation ${owner.generation}, has exited)`,
          fix: startHint,
        },
  };
}

export type ProbeResult =
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "refused" }
  | { readonly kind: "timeout" }
  | { readonly kind: "error"; readonly message: string };

/** POST /mcp without a token: a healthy server answers 401. */
export function probeMcp(port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
        },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        resolve({ kind: "status", status: res.statusCode ?? 0 });
      },
    );
    req.on("timeout", () => {
      req.destroy();
      resolve({ kind: "timeout" });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      resolve(e.code === "ECONNREFUSED" ? { kind: "refused" } : { kind: "error", message: e.message });
    });
    req.end(body);
  });
}

export async function checkMcp(
  ctx: CliContext,
  dataDir: string,
  backendAlive: boolean,
  timeoutMs: number,
): Promise<Check> {
  const name = "mcp";
  const config = readConfig(dataDir);
  if (config.state !== "ok") {
    return { name, status: "WARN", message: "skipped: no valid config.json, so no port to check" };
  }
  const port = effectivePort(config.port, ctx.env);
  if (port === 0) {
    return {
      name,
      status: backendAlive ? "FAIL" : "WARN",
      message: "config.json has port 0: the backend has not written the port it picked",
      fix: backendAlive ? "restart the backend" : "start the backend (orchestrator serve)",
    };
  }
  const where = `http://127.0.0.1:${port}/mcp`;
  const probe = await probeMcp(port, timeoutMs);
  switch (probe.kind) {
    case "status":
      if (probe.status === 401)
        return { name, status: "OK", message: `MCP server is up and requires the token (${where})` };
      return {
        name,
        status: "FAIL",
        message:
          probe.status >= 200 && probe.status < 300
            ? `${where} answered ${probe.status} without a token`
            : `${where} answered HTTP ${probe.status}, not 401: another program may be using port ${port}`,
        fix: `stop whatever listens on ${port}, or set another "port" in ${config.file} and restart the backend`,
      };
    case "refused":
      return backendAlive
        ? {
            name,
            status: "FAIL",
            message: `the backend is running but nothing listens on ${where}`,
            fix: "see the backend log in the data directory; restart the browser or orchestrator serve",
          }
        : {
            name,
            status: "WARN",
            message: `nothing listens on ${where} (no backend running)`,
            fix: "open the browser with the extension, or run orchestrator serve",
          };
    case "timeout":
      return {
        name,
        status: "FAIL",
        message: `${where} did not answer within ${timeoutMs} ms`,
        fix: `check what listens on port ${port}`,
      };
    case "error":
      return {
        name,
        status: "FAIL",
        message: `${where}: ${probe.message}`,
        fix: `check what listens on port ${port}`,
      };
  }
}

export function checkExecutor(dataDir: string, now: () => number): Check {
  const name = "executor";
  const file = path.join(dataDir, STATUS_FILE);
  const fix = "open Chrome/Chromium or Firefox with the ChatGPT Orchestrator extension enabled";
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT"
      ? { name, status: "WARN", message: "no executor has connected yet", fix }
      : { name, status: "WARN", message: `${file} is unreadable (${(e as Error).message})` };
  }
  // Epoch milliseconds (what the host writes) or an ISO string; null until the first contact.
  const at = (raw as { lastExecutorContactAt?: unknown } | null)?.lastExecutorContactAt;
  const time = typeof at === "number" ? at : typeof at === "string" ? Date.parse(at) : NaN;
  if (!Number.isFinite(time)) return { name, status: "WARN", message: "no executor has connected yet", fix };
  const iso = new Date(time).toISOString();
  return { name, status: "OK", message: `last executor contact ${iso} (${ago(now() - time)})` };
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}
