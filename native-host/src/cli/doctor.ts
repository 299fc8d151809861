// `orchestrator doctor`: one line per check (OK / SKIP / WARN / FAIL) with the fix, or `--json` for scripts; exit
// code 1 if anything FAILs. The checks of this machine's setup live here; doctor-manifests.ts checks the browsers'
// native host manifests, doctor-backend.ts the backend's files (owner, executor, storage), doctor-mcp.ts the MCP port,
// doctor-notifications.ts the notification channels.
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { resolveTargets } from "./browsers.ts";
import { readConfig } from "./connector.ts";
import type { CliContext } from "./context.ts";
import { commandLine, dataDirOf } from "./context.ts";
import type { LiveOwner } from "./doctor-backend.ts";
import { checkExecutor, checkOwner, checkStorage } from "./doctor-backend.ts";
import type { Check, DoctorOptions, DoctorReport } from "./doctor-check.ts";
import { summarize } from "./doctor-check.ts";
import { checkManifest, installCommand } from "./doctor-manifests.ts";
import { checkMcp } from "./doctor-mcp.ts";
import { checkNotifications } from "./doctor-notifications.ts";

export type { Check, CheckStatus, DoctorOptions, DoctorReport, DoctorSummary } from "./doctor-check.ts";

const MIN_NODE = [20, 19] as const;

/** Runs every check and prints the report (text or JSON); the exit code is 1 when a check FAILs. */
export async function runDoctorReport(
  ctx: CliContext,
  options: DoctorOptions,
  json: boolean,
): Promise<number> {
  const checks = await doctor(ctx, options);
  const summary = summarize(checks);
  const dataDir = dataDirOf(ctx);
  if (json) {
    const report: DoctorReport = { ok: summary.fail === 0, dataDir, checks, summary };
    ctx.out(JSON.stringify(report, null, 2));
  } else {
    formatChecks(dataDir, checks).forEach((line) => ctx.out(line));
  }
  return summary.fail === 0 ? 0 : 1;
}

export async function doctor(ctx: CliContext, options: DoctorOptions): Promise<Check[]> {
  const dataDir = dataDirOf(ctx);
  const owner = checkOwner(ctx, dataDir);
  const checks: Check[] = [
    checkNode(ctx),
    checkDataDir(ctx, dataDir),
    checkConfig(ctx, dataDir, owner.owner),
  ];

  const targets = resolveTargets(options.browsers, options.profileDir, ctx);
  let present = 0;
  for (const target of targets) {
    const result = await checkManifest(ctx, target, options, dataDir);
    if (result.present) present++;
    checks.push(result.check);
  }
  if (present === 0) {
    checks.push({
      name: "manifests",
      status: "FAIL",
      message: "no native host manifest is installed, so no browser can start the host",
      fix: installCommand(ctx, options.profileDir),
    });
  }

  checks.push(owner.check);
  checks.push(await checkMcp(ctx, dataDir, owner.owner, options.probeTimeoutMs ?? 2_000));
  checks.push(checkExecutor(dataDir, owner.owner, options.now ?? Date.now));
  checks.push(checkStorage(dataDir, owner.owner !== undefined));
  checks.push(checkNotifications(ctx, dataDir, owner.owner, options.now ?? Date.now));
  return checks;
}

export function formatChecks(dataDir: string, checks: readonly Check[]): string[] {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.map(
    (c) => `${c.status.padEnd(4)} ${c.name.padEnd(width)}  ${c.message}${c.fix ? ` (fix: ${c.fix})` : ""}`,
  );
  const { fail, warn, skip } = summarize(checks);
  const skipped = skip > 0 ? ` (${skip} skipped: not applicable here)` : "";
  return [
    `orchestrator doctor: data directory ${dataDir}`,
    ...lines,
    fail === 0 && warn === 0
      ? `All checks passed${skipped}.`
      : `${fail} FAIL, ${warn} WARN${skip > 0 ? `, ${skip} SKIP` : ""}.`,
  ];
}

function checkNode(ctx: CliContext): Check {
  const version = process.versions.node;
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return ok
    ? { name: "node", status: "OK", message: `Node ${version} at ${ctx.nodePath}` }
    : {
        name: "node",
        status: "FAIL",
        message: `Node ${version} is older than ${MIN_NODE.join(".")}`,
        fix: `install Node ${MIN_NODE.join(".")} or newer, then rerun ${commandLine(ctx, "install")}`,
      };
}

function checkDataDir(ctx: CliContext, dataDir: string): Check {
  const name = "data-dir";
  if (!existsSync(dataDir)) {
    return {
      name,
      status: "FAIL",
      message: `${dataDir} does not exist`,
      fix: `${commandLine(ctx, "install")} (creates it), or set ORCHESTRATOR_HOME to the directory you use`,
    };
  }
  if (!statSync(dataDir).isDirectory()) {
    return {
      name,
      status: "FAIL",
      message: `${dataDir} is not a directory`,
      fix: `move it away or set ORCHESTRATOR_HOME`,
    };
  }
  try {
    accessSync(dataDir, constants.W_OK);
  } catch {
    return {
      name,
      status: "FAIL",
      message: `${dataDir} is not writable`,
      fix: `chown/chmod it so you can write it`,
    };
  }
  return { name, status: "OK", message: `${dataDir} exists and is writable` };
}

function checkConfig(ctx: CliContext, dataDir: string, owner: LiveOwner | undefined): Check {
  const name = "config";
  const config = readConfig(dataDir);
  switch (config.state) {
    case "missing":
      // Normal before the first start. While a backend runs, its token is nowhere an MCP client can read it.
      return owner === undefined
        ? {
            name,
            status: "SKIP",
            message: `${config.file} does not exist yet: the backend creates it (MCP port and token) on its first start; ${commandLine(ctx, "connector")} creates it now`,
          }
        : {
            name,
            status: "FAIL",
            message: `${config.file} is missing while the backend (pid ${owner.pid}) runs: MCP clients cannot read its token`,
            fix: `restart the backend (restart the browser, or stop and rerun ${commandLine(ctx, "serve")}); it writes a new one`,
          };
    case "invalid":
      return {
        name,
        status: "FAIL",
        message: `${config.file} is invalid: ${config.error}`,
        fix: `correct it, or delete it to get a new port/token`,
      };
    case "ok":
      if (ctx.platform !== "win32" && config.mode !== 0o600) {
        return {
          name,
          status: "FAIL",
          message: `${config.file} has mode 0${config.mode.toString(8)}: others can read the MCP token`,
          fix: `chmod 600 ${config.file}`,
        };
      }
      return {
        name,
        status: "OK",
        message: `${config.file} is valid${ctx.platform === "win32" ? "" : " (mode 0600)"}, MCP port ${config.port}`,
      };
  }
}
