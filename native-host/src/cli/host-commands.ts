// The process-running CLI commands: `native-host` (launched by the browser), `serve` and `status`.
import { parseArgs } from "node:util";
import { fileLogger } from "../host/file-logger.ts";
import { ownerOptionsFromEnv } from "../host/host-entry.ts";
import { runNativeHost, runServe } from "../host/native-host-command.ts";
import { readOwnerInfo } from "../store/owner-lock.ts";
import type { CliContext } from "./context.ts";
import { commandLine } from "./context.ts";
import { formatStatus, mcpErrorLine, readStatusReport } from "./status-report.ts";

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

export async function runServeCommand(args: readonly string[], ctx: CliContext): Promise<number> {
  parseArgs({ args: [...args], options: {}, strict: true, allowPositionals: false });
  const options = ownerOptionsFromEnv(ctx.env);
  return logFailure(options.dir, () =>
    runServe({
      ...options,
      onLocked: () => {
        const owner = readOwnerInfo(options.dir);
        ctx.err(
          `orchestrator serve: a backend already runs for ${options.dir}${owner ? ` (pid ${owner.pid})` : ""}; ` +
            `see \`${commandLine(ctx, "status")}\``,
        );
      },
      onReady: ({ mcpUrl, mcpError }) => {
        ctx.out(`ChatGPT Orchestrator backend running (pid ${process.pid}), data in ${options.dir}`);
        if (mcpUrl) ctx.out(`MCP: ${mcpUrl} (see \`${commandLine(ctx, "connector")}\`)`);
        else if (mcpError) ctx.err(`orchestrator serve: ${mcpErrorLine(mcpError, options.dir)}`);
        else ctx.out("MCP server not running (see logs/host.log)");
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
  const { values } = parseArgs({
    args: [...args],
    options: { json: { type: "boolean" } },
    strict: true,
    allowPositionals: false,
  });
  const report = readStatusReport(ctx);
  if (values.json === true) ctx.out(JSON.stringify(report, null, 2));
  else formatStatus(report, ctx).forEach((line) => ctx.out(line));
  return Promise.resolve(0);
}
