// `orchestrator doctor`'s checks of the backend, from the files it keeps in the data directory: the owner record (is
// it running), the executors (is a browser connected), and storage. The MCP port is doctor-mcp.ts's. A backend that
// is not running is no fault: the browser starts it when the extension connects.
import { existsSync, readFileSync, statfsSync } from "node:fs";
import path from "node:path";
import type { CliContext } from "./context.ts";
import { commandLine } from "./context.ts";
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
  if (!existsSync(dataDir)) {
    return { name, status: "SKIP", message: `skipped: ${dataDir} does not exist (see the data-dir check)` };
  }
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

/** The backend running for a data directory: its owner record names a live process. */
export interface LiveOwner {
  readonly pid: number;
  readonly generation: number;
  readonly startedAt: string;
  /** The MCP port it reports in status.json, if any. */
  readonly mcpPort: number | undefined;
}

export function liveOwner(dataDir: string): LiveOwner | undefined {
  const owner = readOwner(dataDir);
  if (typeof owner === "string" || !isPidAlive(owner.pid)) return undefined;
  const status = readStatus(dataDir);
  // Only the live owner's own status.json says where it listens; an older one may be left from an earlier owner.
  const url = status?.pid === owner.pid && typeof status.mcpUrl === "string" ? status.mcpUrl : undefined;
  const port = Number(/^http:\/\/127\.0\.0\.1:(\d+)\//.exec(url ?? "")?.[1]);
  return { ...owner, mcpPort: Number.isInteger(port) && port > 0 ? port : undefined };
}

export function checkOwner(ctx: CliContext, dataDir: string): { owner: LiveOwner | undefined; check: Check } {
  const name = "owner";
  const record = readOwner(dataDir);
  const starts = `it starts when the browser's extension connects, or with ${commandLine(ctx, "serve")}`;
  if (record === "missing") {
    return {
      owner: undefined,
      check: { name, status: "OK", message: `no backend has run with this data directory yet (${starts})` },
    };
  }
  if (record === "invalid") {
    return {
      owner: undefined,
      check: {
        name,
        status: "FAIL",
        message: `${path.join(dataDir, OWNER_FILE)} is not a valid owner record`,
        fix: "stop every orchestrator process, then delete owner.json",
      },
    };
  }
  const owner = liveOwner(dataDir);
  return {
    owner,
    check: owner
      ? {
          name,
          status: "OK",
          message: `backend running: pid ${owner.pid}, generation ${owner.generation}, since ${owner.startedAt}`,
        }
      : {
          name,
          status: "OK",
          message: `no backend running (the last one, pid ${record.pid}, generation ${record.generation}, has exited; ${starts})`,
        },
  };
}

/**
 * Whether a browser extension (the executor) is connected. While the backend runs without one, tools that need a
 * ChatGPT tab wait: a warning. While none runs, the last contact is history, and none yet is the normal first state.
 */
export function checkExecutor(dataDir: string, owner: LiveOwner | undefined, now: () => number): Check {
  const name = "executor";
  const file = path.join(dataDir, STATUS_FILE);
  const fix = "open Chrome/Chromium or Firefox with the ChatGPT Orchestrator extension enabled";
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
      return { name, status: "WARN", message: `${file} is unreadable (${(e as Error).message})` };
    }
    raw = {};
  }
  const status = (raw ?? {}) as { lastExecutorContactAt?: unknown; executors?: unknown };
  // Epoch milliseconds (what the host writes) or an ISO string; null until the first contact.
  const at = status.lastExecutorContactAt;
  const time = typeof at === "number" ? at : typeof at === "string" ? Date.parse(at) : NaN;
  const last = Number.isFinite(time)
    ? `last executor contact ${new Date(time).toISOString()} (${ago(now() - time)})`
    : undefined;
  if (owner === undefined) {
    return last !== undefined
      ? { name, status: "OK", message: last }
      : {
          name,
          status: "SKIP",
          message:
            "no executor has connected yet: the extension connects when the browser starts the backend",
        };
  }
  const connected = Array.isArray(status.executors) ? status.executors.length : 0;
  if (connected > 0) {
    return {
      name,
      status: "OK",
      message: `${connected} executor(s) connected; ${last ?? "no contact time yet"}`,
    };
  }
  return {
    name,
    status: "WARN",
    message: `the backend runs but no browser extension is connected (${last ?? "none has connected yet"}): tools that need a ChatGPT tab wait`,
    fix,
  };
}

/** A duration in the words of doctor's messages: `5 min ago`. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}
