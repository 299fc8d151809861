// The sub-commands behind `orchestrator install|uninstall|connector|doctor`: option parsing and output.
// Loaded on demand by main.ts, so `help` and the native host do not pay for what they do not use.
import { existsSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { BROWSERS, parseBrowsers, userManifestTarget } from "./browsers.ts";
import { connectorInfo, formatConnector } from "./connector.ts";
import type { CliContext } from "./context.ts";
import { commandLine, dataDirOf } from "./context.ts";
import { directoryBytes, humanBytes, removeCommand } from "./data-dir-size.ts";
import { runDoctorReport } from "./doctor.ts";
import { install, resolveExtensionIds, uninstall } from "./install.ts";
import { runningBackend, stopBackend, type StopOutcome } from "./stop-backend.ts";

const TARGET_OPTIONS = {
  browser: { type: "string", multiple: true },
  "extension-id": { type: "string", multiple: true },
  "profile-dir": { type: "string" },
  json: { type: "boolean" },
} as const;

function parseTargetArgs(args: readonly string[]) {
  const { values } = parseArgs({
    args: [...args],
    options: TARGET_OPTIONS,
    strict: true,
    allowPositionals: false,
  });
  const browsers = parseBrowsers(values.browser);
  return {
    browsers,
    extensionIds: resolveExtensionIds(values["extension-id"], browsers),
    profileDir: values["profile-dir"],
    json: values.json === true,
  };
}

export async function runInstall(args: readonly string[], ctx: CliContext): Promise<number> {
  const options = parseTargetArgs(args);
  const report = await install(ctx, options);
  if (options.json) {
    ctx.out(JSON.stringify(report, null, 2));
    return 0;
  }
  const width = Math.max(8, ...report.manifests.map((m) => m.label.length));
  ctx.out(`Data directory: ${report.dataDir}`);
  ctx.out(`${report.launcher.status.padEnd(9)} ${"launcher".padEnd(width)} ${report.launcher.file}`);
  for (const m of report.manifests) {
    ctx.out(`${m.status.padEnd(9)} ${m.label.padEnd(width)} ${m.file} (allows ${m.allowed.join(", ")})`);
    if (m.registry) ctx.out(`${m.registry.status.padEnd(9)} ${"".padEnd(width)} registry ${m.registry.key}`);
  }
  for (const warning of report.warnings) ctx.err(`warning: ${warning}`);
  ctx.out(`Next: load the extension, then check everything with \`${commandLine(ctx, "doctor")}\`.`);
  return 0;
}

export async function runUninstall(args: readonly string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      browser: TARGET_OPTIONS.browser,
      "profile-dir": TARGET_OPTIONS["profile-dir"],
      json: TARGET_OPTIONS.json,
      yes: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  const report = await uninstall(ctx, {
    browsers: parseBrowsers(values.browser),
    profileDir: values["profile-dir"],
  });
  // After the manifests are gone: a browser can no longer start a new backend once this one stops. While another
  // browser still has the host registered (a partial uninstall), that browser may be using the backend: it stays.
  const dataDir = dataDirOf(ctx);
  const stillRegistered = BROWSERS.filter((b) => existsSync(userManifestTarget(b, ctx).file));
  const running = stillRegistered.length > 0 ? await runningBackend(dataDir) : undefined;
  const backend: StopOutcome | { readonly state: "in-use"; readonly pid: number } =
    running !== undefined
      ? { state: "in-use", pid: running }
      : await stopBackend(dataDir, (pid) => confirmStop(pid, values.yes === true));
  const bytes = directoryBytes(dataDir);
  const kept = {
    path: dataDir,
    exists: existsSync(dataDir),
    bytes,
    removeWith: removeCommand(dataDir, ctx.platform),
  };
  if (values.json === true) {
    ctx.out(JSON.stringify({ ...report, backend, dataDir: kept }, null, 2));
    return backend.state === "still-running" ? 1 : 0;
  }
  const width = Math.max(...report.manifests.map((m) => m.label.length));
  for (const m of report.manifests) {
    ctx.out(`${m.status === "removed" ? "removed" : "absent "} ${m.label.padEnd(width)} ${m.file}`);
    if (m.registry) ctx.out(`${m.registry.status.padEnd(7)} ${"".padEnd(width)} registry ${m.registry.key}`);
  }
  switch (backend.state) {
    case "stopped":
      ctx.out(`stopped the backend (pid ${backend.pids.join(", ")})`);
      break;
    case "kept":
      ctx.out(`left the backend running (pid ${backend.pid}); it stops when its browser closes`);
      break;
    case "still-running":
      ctx.err(
        `orchestrator uninstall: the backend (pid ${backend.pid}) did not stop; end that process yourself`,
      );
      break;
    case "in-use":
      ctx.out(
        `left the backend running (pid ${backend.pid}): ${stillRegistered.join(", ")} still ` +
          `${stillRegistered.length === 1 ? "has" : "have"} the native host registered; ` +
          `\`${commandLine(ctx, "uninstall")}\` removes every browser's and stops it`,
      );
      break;
    case "not-running":
      break;
  }
  if (kept.exists) {
    ctx.out(
      `Kept the data directory ${dataDir} (${humanBytes(bytes)}): your runs, workers, logs and the MCP token. ` +
        "Nothing in it was deleted.",
    );
    ctx.out(`To remove it too: ${kept.removeWith}`);
  }
  return backend.state === "still-running" ? 1 : 0;
}

/** In a terminal, asks first (Enter means yes); `--yes` or no terminal (a script) stops it without asking. */
async function confirmStop(pid: number, yes: boolean): Promise<boolean> {
  if (yes || !process.stdin.isTTY) return true;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`Stop the running backend (pid ${pid})? [Y/n] `)).trim().toLowerCase();
    return answer === "" || answer === "y" || answer === "yes";
  } finally {
    rl.close();
  }
}

export function runConnector(args: readonly string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { json: TARGET_OPTIONS.json },
    strict: true,
    allowPositionals: false,
  });
  const info = connectorInfo(ctx);
  if (values.json === true) ctx.out(JSON.stringify(info, null, 2));
  else formatConnector(info).forEach((line) => ctx.out(line));
  return Promise.resolve(0);
}

export function runDoctor(args: readonly string[], ctx: CliContext): Promise<number> {
  const options = parseTargetArgs(args);
  return runDoctorReport(ctx, options, options.json);
}
