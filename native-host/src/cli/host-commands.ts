// The process-running CLI commands: `native-host` (launched by the browser), `serve` and `status`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileLogger } from "../host/file-logger.ts";
import { ownerOptionsFromEnv } from "../host/host-entry.ts";
import { runNativeHost, runServe } from "../host/native-host-command.ts";
import { STATUS_FILE, type HostStatus } from "../host/status-file.ts";
import { readOwnerInfo } from "../store/owner-lock.ts";
import type { CliContext } from "./context.ts";
import { isPidAlive } from "./process-alive.ts";

/**
 * The browser passes its caller as arguments (Chrome: the extension origin; Firefox: the manifest path and
 * the add-on id); stdin/stdout carry the framed messages, so nothing may be printed to stdout here.
 */
export async function runNativeHostCommand(_args: readonly string[], ctx: CliContext): Promise<number> {
  const options = ownerOptionsFromEnv(ctx.env);
  // A closed browser end of stdout is normal at shutdown; the session ends through stdin.
  process.stdout.on("error", (e: Error) => options.log.info(`stdout closed: ${e.message}`));
  try {
    return await logFailure(options.dir, () =>
      runNativeHost({ ...options, input: process.stdin, output: process.stdout }),
    );
  } finally {
    // After an unrecoverable frame stdin is still open; release it so the process can exit.
    process.stdin.destroy();
  }
}

export async function runServeCommand(_args: readonly string[], ctx: CliContext): Promise<number> {
  const options = ownerOptionsFromEnv(ctx.env);
  return logFailure(options.dir, () =>
    runServe({
      ...options,
      onReady: (url) => {
        ctx.out(`ChatGPT Orchestrator backend running (pid ${process.pid}), data in ${options.dir}`);
        ctx.out(
          url ? `MCP: ${url} (see \`orchestrator connector\`)` : "MCP server not running (see logs/host.log)",
        );
        ctx.out("Press Ctrl+C to stop.");
      },
    }),
  );
}

/**
 * A failure that ends the host (e.g. a damaged store file refused at start) also goes to logs/host.log: the CLI prints
 * it on stderr, which nobody sees when the browser launched the host. Not on stderr twice.
 */
async function logFailure(dir: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    fileLogger(dir, { stderr: false }).warn(
      `stopped: ${error instanceof Error ? error.message : String(error)}`,
    );
    throw error;
  }
}

export function runStatusCommand(args: readonly string[], ctx: CliContext): Promise<number> {
  const dir = ownerOptionsFromEnv(ctx.env, { warn: ctx.err, info: () => undefined }).dir;
  const owner = readOwnerInfo(dir);
  const alive = owner !== undefined && isPidAlive(owner.pid);
  const statusPath = join(dir, STATUS_FILE);
  const status = existsSync(statusPath)
    ? (JSON.parse(readFileSync(statusPath, "utf8")) as HostStatus)
    : undefined;
  const report = {
    dataDir: dir,
    owner: alive ? { pid: owner.pid, generation: owner.generation } : null,
    mcpUrl: alive ? (status?.mcpUrl ?? null) : null,
    executors: alive ? (status?.executors ?? []) : [],
    lastExecutorContactAt: status?.lastExecutorContactAt ?? null,
  };
  if (args.includes("--json")) ctx.out(JSON.stringify(report, null, 2));
  else {
    ctx.out(`Data directory: ${dir}`);
    ctx.out(alive ? `Backend: running (pid ${owner.pid})` : "Backend: not running");
    ctx.out(`MCP: ${report.mcpUrl ?? "-"}`);
    ctx.out(`Executors connected: ${report.executors.length ? report.executors.join(", ") : "none"}`);
  }
  return Promise.resolve(0);
}
