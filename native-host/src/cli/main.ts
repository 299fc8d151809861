// The `orchestrator` command line: dispatches sub-commands and reports which ones later releases will add.
import { resolveDataDir } from "../store/data-dir.ts";

const PLANNED: Record<string, string> = {
  install: "writes the native host manifests for each browser",
  uninstall: "removes the native host manifests",
  serve: "runs the backend in the foreground",
  status: "prints owner, MCP URL, executors, runs and workers",
  mcp: "stdio MCP server proxying to the running backend",
  connector: "prints what to paste into an MCP client",
  "native-host": "what the browser launches through native messaging",
};

const USAGE = `Usage: orchestrator <command>

Commands:
  start        build, register and start everything (npm start)
${Object.entries(PLANNED)
  .map(([name, what]) => `  ${name.padEnd(12)} ${what} (not yet available)`)
  .join("\n")}
  help         show this text`;

export async function main(argv: readonly string[]): Promise<number> {
  const [command = "help", ...rest] = argv;
  if (command === "help" || command === "--help" || command === "-h") {
    console.log(USAGE);
    return 0;
  }
  if (command === "start") return start(rest);
  if (command in PLANNED) {
    console.error(`orchestrator ${command}: not yet available in this version (${PLANNED[command]}).`);
    return 2;
  }
  console.error(`orchestrator: unknown command '${command}'.\n\n${USAGE}`);
  return 64;
}

function start(_args: readonly string[]): Promise<number> {
  const dir = resolveDataDir(process.env);
  console.log(
    [
      "ChatGPT Orchestrator 0.1.0",
      `Data directory: ${dir}`,
      "",
      "Ready now: the durable continuation core and the crash-safe store (see docs/).",
      "Not yet: the browser extension build, native host registration, the backend process and MCP server.",
      "Run `npm test` to exercise what exists.",
    ].join("\n"),
  );
  return Promise.resolve(0);
}
