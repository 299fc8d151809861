// The `orchestrator` command line (docs/cli.md): dispatches sub-commands; names and options are a fixed contract.
import { readFileSync } from "node:fs";
import { pathFor, UsageError } from "./browsers.ts";
import { explainFsError } from "./cli-errors.ts";
import { endQuietlyOnClosedPipe } from "./closed-pipe.ts";
import type { CliContext } from "./context.ts";
import { commandLine, processContext } from "./context.ts";

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
  /** Shown by `orchestrator <command> --help` (and `orchestrator help <command>`); `--help` never runs the command. */
  readonly usage: string;
  /** Absent: listed, but a later release adds it. */
  readonly run?: Run;
  /** Builds from the source tree: not offered by the packaged CLI (CliContext.packaged). */
  readonly sourceOnly?: boolean;
}

const BROWSER_OPTION = "--browser chrome|chromium|firefox|librewolf|all";

const COMMANDS: Record<string, Command> = {
  start: {
    summary: "build the extension, register the native host, start the backend (npm start)",
    usage: "orchestrator start [--no-build] [--no-browser] [--no-serve]",
    run: async (args, ctx) => (await import("./start.ts")).runStart(args, ctx),
    sourceOnly: true,
  },
  install: {
    summary: "write the native host manifests for each browser",
    usage: `orchestrator install [${BROWSER_OPTION}] [--extension-id ID]... [--profile-dir DIR] [--json]`,
    run: lazy("runInstall"),
  },
  uninstall: {
    summary: "remove the native host manifests and stop the backend (the data directory stays)",
    usage: `orchestrator uninstall [${BROWSER_OPTION}] [--profile-dir DIR] [--yes] [--json]`,
    run: lazy("runUninstall"),
  },
  serve: {
    summary: "run the backend in the foreground",
    usage: "orchestrator serve",
    run: hostCommand("runServeCommand"),
  },
  status: {
    summary: "print the backend, MCP URL, connected browsers, runs and workers",
    usage: "orchestrator status [--json]",
    run: hostCommand("runStatusCommand"),
  },
  mcp: {
    summary: "stdio MCP server proxying to the running backend",
    usage: "orchestrator mcp",
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
  notify: {
    summary: "send a test notification to the configured channels (ntfy, Telegram, webhook)",
    usage: "orchestrator notify test [--channel ID] [--json]",
    run: async (args, ctx) => (await import("./notify-command.ts")).runNotifyCommand(args, ctx),
  },
  repair: {
    summary: "open a data directory missing acknowledged transactions, recording the loss",
    usage: "orchestrator repair --accept-loss [--yes]",
    run: async (args, ctx) => (await import("./repair-command.ts")).runRepairCommand(args, ctx),
  },
  "native-host": {
    summary: "what the browser launches through native messaging",
    usage: "orchestrator native-host [<caller the browser passes>...]",
    run: hostCommand("runNativeHostCommand"),
  },
};

/** The commands this CLI offers: the packaged one has no source tree to build from. */
function offered(ctx: CliContext): [string, Command][] {
  return Object.entries(COMMANDS).filter(([, c]) => !(ctx.packaged === true && c.sourceOnly === true));
}

function usage(ctx: CliContext): string {
  return `Usage: orchestrator <command> [options]

Commands:
${offered(ctx)
  .map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}${c.run ? "" : " (not yet available)"}`)
  .join("\n")}
  version      print the version (also --version, -V)
  help         show this text (orchestrator <command> --help: its options)

Environment: ORCHESTRATOR_HOME (data directory), ORCHESTRATOR_MCP_PORT (MCP port; 0 = any free port).`;
}

function commandUsage(command: Command, ctx: CliContext): string {
  // The packaged CLI ships its docs beside the bundle; in a clone the path is relative to the checkout.
  const doc =
    ctx.packaged === true ? pathFor(ctx.platform).join(ctx.projectRoot, "docs", "cli.md") : "docs/cli.md";
  return `Usage: ${command.usage}\n\n${command.summary}. See ${doc}.`;
}

/** The version of package.json beside the CLI (the project's, or the packaged host folder's). */
function version(ctx: CliContext): string {
  const file = pathFor(ctx.platform).join(ctx.projectRoot, "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

const isHelp = (arg: string) => arg === "--help" || arg === "-h";

export async function main(argv: readonly string[], ctx: CliContext = processContext()): Promise<number> {
  const [name = "help", ...rest] = argv;
  // The native host's stdout is the browser's message channel; it handles its own end (host-commands.ts).
  if (name !== "native-host") endQuietlyOnClosedPipe();
  if (name === "--version" || name === "-V" || name === "version") {
    ctx.out(version(ctx));
    return 0;
  }
  if (name === "help" || isHelp(name)) {
    const topic = rest[0];
    const command = topic !== undefined && Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
    ctx.out(command ? commandUsage(command, ctx) : usage(ctx));
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    ctx.err(`orchestrator: unknown command '${name}'.\n\n${usage(ctx)}`);
    return 64;
  }
  if (ctx.packaged === true && command.sourceOnly === true) {
    ctx.err(
      `orchestrator ${name}: not in the packaged CLI (it builds the extension from a source checkout); ` +
        `register the host with \`${commandLine(ctx, "install")}\` and check it with \`${commandLine(ctx, "doctor")}\`.`,
    );
    return 2;
  }
  if (command.run === undefined) {
    ctx.err(`orchestrator ${name}: not yet available in this version (${command.summary}).`);
    return 2;
  }
  // Before anything runs: `--help` creates no data directory and starts no process.
  if (rest.some(isHelp)) {
    ctx.out(commandUsage(command, ctx));
    return 0;
  }
  try {
    return await command.run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      ctx.err(`orchestrator ${name}: ${(error as Error).message}`);
      ctx.err(`Usage: ${command.usage}`);
      return 64;
    }
    const explained = explainFsError(error, ctx);
    ctx.err(`orchestrator ${name}: ${explained ?? (error instanceof Error ? error.message : String(error))}`);
    return 1;
  }
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}
