// The `orchestrator` command line (docs/cli.md): dispatches sub-commands; names and options are a fixed contract.
import { UsageError } from "./browsers.ts";
import type { CliContext } from "./context.ts";
import { processContext } from "./context.ts";

type Run = (args: readonly string[], ctx: CliContext) => Promise<number>;

/** A command implemented in commands.ts, imported only when it runs. */
function lazy(name: "runInstall" | "runUninstall" | "runConnector" | "runDoctor"): Run {
  return async (args, ctx) => (await import("./commands.ts"))[name](args, ctx);
}

/** A process-running command of host-commands.ts, imported only when it runs. */
function hostCommand(name: "runServeCommand" | "runStatusCommand" | "runNativeHostCommand"): Run {
  return async (args, ctx) => (await import("./host-commands.ts"))[name](args, ctx);
}

interface Command {
  readonly summary: string;
  /** Shown by `orchestrator <command> --help`. */
  readonly usage?: string;
  /** Absent: listed, but a later release adds it. */
  readonly run?: Run;
}

const BROWSER_OPTION = "--browser chrome|chromium|firefox|librewolf|all";

const COMMANDS: Record<string, Command> = {
  start: {
    summary: "build the extension, register the native host, start the backend (npm start)",
    usage: "orchestrator start [--no-build] [--no-browser] [--no-serve]",
    run: async (args, ctx) => (await import("./start.ts")).runStart(args, ctx),
  },
  install: {
    summary: "write the native host manifests for each browser",
    usage: `orchestrator install [${BROWSER_OPTION}] [--extension-id ID]... [--profile-dir DIR] [--json]`,
    run: lazy("runInstall"),
  },
  uninstall: {
    summary: "remove the native host manifests",
    usage: `orchestrator uninstall [${BROWSER_OPTION}] [--profile-dir DIR] [--json]`,
    run: lazy("runUninstall"),
  },
  serve: { summary: "run the backend in the foreground", run: hostCommand("runServeCommand") },
  status: {
    summary: "print owner, MCP URL, executors, runs and workers",
    usage: "orchestrator status [--json]",
    run: hostCommand("runStatusCommand"),
  },
  mcp: {
    summary: "stdio MCP server proxying to the running backend",
    run: async (args, ctx) => (await import("./mcp-stdio-proxy.ts")).runMcpProxyCommand(args, ctx),
  },
  connector: {
    summary: "print what to paste into an MCP client (URLs, token, tunnel)",
    usage: "orchestrator connector [--json]",
    run: lazy("runConnector"),
  },
  doctor: {
    summary: "check the installation and say how to fix what is wrong",
    usage: `orchestrator doctor [${BROWSER_OPTION}] [--extension-id ID]... [--profile-dir DIR] [--json]`,
    run: lazy("runDoctor"),
  },
  repair: {
    summary: "open a data directory missing acknowledged transactions, recording the loss",
    usage: "orchestrator repair --accept-loss [--yes]",
    run: async (args, ctx) => (await import("./repair-command.ts")).runRepairCommand(args, ctx),
  },
  "native-host": {
    summary: "what the browser launches through native messaging",
    run: hostCommand("runNativeHostCommand"),
  },
};

const USAGE = `Usage: orchestrator <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}${c.run ? "" : " (not yet available)"}`)
  .join("\n")}
  help         show this text (orchestrator <command> --help: its options)

Environment: ORCHESTRATOR_HOME (data directory), ORCHESTRATOR_MCP_PORT (MCP port; 0 = any free port).`;

export async function main(argv: readonly string[], ctx: CliContext = processContext()): Promise<number> {
  const [name = "help", ...rest] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    ctx.out(USAGE);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    ctx.err(`orchestrator: unknown command '${name}'.\n\n${USAGE}`);
    return 64;
  }
  if (command.run === undefined) {
    ctx.err(`orchestrator ${name}: not yet available in this version (${command.summary}).`);
    return 2;
  }
  if (command.usage !== undefined && (rest.includes("--help") || rest.includes("-h"))) {
    ctx.out(`Usage: ${command.usage}\n\n${command.summary}. See docs/cli.md.`);
    return 0;
  }
  try {
    return await command.run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      ctx.err(`orchestrator ${name}: ${(error as Error).message}`);
      if (command.usage !== undefined) ctx.err(`Usage: ${command.usage}`);
      return 64;
    }
    ctx.err(`orchestrator ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}
