// `orchestrator status`: what the running backend wrote to status.json (owner, MCP, connected browsers, runs and
// workers in the popup's state words), read without creating or changing anything in the data directory.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { configPath } from "../config/host-config.ts";
import {
  STATUS_FILE,
  type HostStatus,
  type NotificationStatus,
  type RunSummary,
  type WorkerSummary,
} from "../host/status-file.ts";
import { readOwnerInfo } from "../store/owner-lock.ts";
import type { CliContext } from "./context.ts";
import { commandLine, dataDirOf } from "./context.ts";
import { ago } from "./doctor-backend.ts";
import { isPidAlive } from "./process-alive.ts";

export interface StatusReport {
  readonly dataDir: string;
  readonly owner: { readonly pid: number; readonly generation: number } | null;
  readonly mcpUrl: string | null;
  readonly mcpError: HostStatus["mcpError"];
  readonly executors: readonly string[];
  readonly lastExecutorContactAt: number | null;
  /** Active runs and their workers; null when no backend runs (the store is only read by its owner). */
  readonly runs: readonly RunSummary[] | null;
  readonly workers: readonly WorkerSummary[] | null;
  /** Each notification channel's last delivery (no secrets); null when no backend runs or it reports none. */
  readonly notifications: readonly NotificationStatus[] | null;
}

export function readStatusReport(ctx: CliContext): StatusReport {
  const dataDir = dataDirOf(ctx);
  const owner = existsSync(dataDir) ? readOwnerInfo(dataDir) : undefined;
  const alive = owner !== undefined && isPidAlive(owner.pid);
  const statusPath = join(dataDir, STATUS_FILE);
  const status = existsSync(statusPath)
    ? (JSON.parse(readFileSync(statusPath, "utf8")) as Partial<HostStatus>)
    : undefined;
  // A status.json of an earlier owner says nothing about this one (it rewrites the file as soon as it starts).
  const current = alive && status?.pid === owner.pid ? status : undefined;
  return {
    dataDir,
    owner: alive ? { pid: owner.pid, generation: owner.generation } : null,
    mcpUrl: current?.mcpUrl ?? null,
    mcpError: current?.mcpError ?? null,
    executors: current?.executors ?? [],
    lastExecutorContactAt: status?.lastExecutorContactAt ?? null,
    runs: current?.runs ?? null,
    workers: current?.workers ?? null,
    notifications: current?.notifications ?? null,
  };
}

/** The one line for an MCP server that did not start: a taken port names the port and both ways to change it. */
export function mcpErrorLine(error: NonNullable<HostStatus["mcpError"]>, dataDir: string): string {
  if (error.code === "EADDRINUSE") {
    return (
      `MCP port ${error.port} is taken by another program (or by the backend of another data directory). ` +
      `Fix: set ORCHESTRATOR_MCP_PORT=<a free port> (0 = any), or "port" in ${configPath(dataDir)}.`
    );
  }
  return `MCP server did not start: ${error.message} (see ${join(dataDir, "logs", "host.log")})`;
}

export function formatStatus(report: StatusReport, ctx: CliContext): string[] {
  const lines = [`Data directory: ${report.dataDir}`];
  if (report.owner === null) {
    lines.push(
      `Backend: not running (start it with \`${commandLine(ctx, "serve")}\`, or open the browser with the extension)`,
      "Runs and workers: backend not running",
    );
    return lines;
  }
  lines.push(`Backend: running (pid ${report.owner.pid})`);
  lines.push(
    `MCP: ${report.mcpUrl ?? (report.mcpError ? mcpErrorLine(report.mcpError, report.dataDir) : "not running")}`,
  );
  lines.push(`Executors connected: ${report.executors.length ? report.executors.join(", ") : "none"}`);
  lines.push(...notificationLines(report.notifications, Date.now()));
  if (report.runs === null || report.workers === null) {
    lines.push("Runs and workers: not reported by this backend (restart it to update)");
    return lines;
  }
  if (report.runs.length === 0) {
    lines.push("Runs: none active");
    return lines;
  }
  lines.push(`Runs: ${report.runs.length} active`);
  const width = Math.max(...report.workers.map((w) => w.label.length), 0);
  for (const run of report.runs) {
    const counts = Object.entries(run.counts).map(([label, n]) => `${n} ${label}`);
    lines.push(`  ${run.name || "(unnamed)"} (${run.id}): ${counts.join(", ") || "no workers"}`);
    for (const w of report.workers.filter((x) => x.runId === run.id)) {
      lines.push(`    ${w.label.padEnd(width)}  ${w.path}${w.name ? `  ${w.name}` : ""}  (${w.id})`);
    }
  }
  return lines;
}

/** One line per notification channel the backend delivers to (docs/operator-guide.md, "Notifications"). */
function notificationLines(channels: readonly NotificationStatus[] | null, now: number): string[] {
  const on = (channels ?? []).filter((c) => c.enabled);
  if (on.length === 0) return [];
  return [
    "Notifications:",
    ...on.map((c) => {
      const waiting = c.pending > 0 ? `, ${c.pending} waiting` : "";
      if (c.lastError !== null) return `  ${c.name} (${c.kind}): failing${waiting}: ${c.lastError}`;
      const last =
        c.lastDeliveredAt !== null ? `last delivered ${ago(now - c.lastDeliveredAt)}` : "nothing sent yet";
      return `  ${c.name} (${c.kind}): ${last}${waiting}`;
    }),
  ];
}
