// `orchestrator doctor`: one line per check (OK / WARN / FAIL) with the fix. Exit code 1 if anything FAILs.
// The checks of this machine's setup live here; doctor-manifests.ts checks the browsers' native host manifests and
// doctor-backend.ts the running backend (owner, MCP port, executor contact, storage).
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { resolveTargets } from "./browsers.ts";
import { readConfig } from "./connector.ts";
import type { CliContext } from "./context.ts";
import { dataDirOf } from "./context.ts";
import { checkExecutor, checkMcp, checkOwner, checkStorage } from "./doctor-backend.ts";
import type { Check, DoctorOptions } from "./doctor-check.ts";
import { checkManifest, installCommand } from "./doctor-manifests.ts";

export type { Check, CheckStatus, DoctorOptions } from "./doctor-check.ts";

const MIN_NODE = [20, 19] as const;

export async function doctor(ctx: CliContext, options: DoctorOptions): Promise<Check[]> {
  const dataDir = dataDirOf(ctx);
  const checks: Check[] = [checkNode(ctx), checkDataDir(dataDir), checkConfig(ctx, dataDir)];

  const targets = resolveTargets(options.browsers, options.profileDir, ctx);
  const manifestChecks: Check[] = [];
  let present = 0;
  for (const target of targets) {
    const result = await checkManifest(ctx, target, options, dataDir);
    if (result.present) present++;
    manifestChecks.push(result.check);
  }
  checks.push(...manifestChecks);
  if (present === 0) {
    checks.push({
      name: "manifests",
      status: "FAIL",
      message: "no native host manifest is installed, so no browser can start the host",
      fix: installCommand(options.profileDir),
    });
  }

  const owner = checkOwner(dataDir);
  checks.push(owner.check);
  checks.push(await checkMcp(ctx, dataDir, owner.alive, options.probeTimeoutMs ?? 2_000));
  checks.push(checkExecutor(dataDir, options.now ?? Date.now));
  checks.push(checkStorage(dataDir, owner.alive));
  return checks;
}

export function formatChecks(dataDir: string, checks: readonly Check[]): string[] {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.map(
    (c) => `${c.status.padEnd(4)} ${c.name.padEnd(width)}  ${c.message}${c.fix ? ` (fix: ${c.fix})` : ""}`,
  );
  const fails = checks.filter((c) => c.status === "FAIL").length;
  const warns = checks.filter((c) => c.status === "WARN").length;
  return [
    `orchestrator doctor: data directory ${dataDir}`,
    ...lines,
    fails === 0 && warns === 0 ? "All checks passed." : `${fails} FAIL, ${warns} WARN.`,
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
        fix: `install Node ${MIN_NODE.join(".")} or newer, then rerun orchestrator install`,
      };
}

function checkDataDir(dataDir: string): Check {
  const name = "data-dir";
  if (!existsSync(dataDir)) {
    return {
      name,
      status: "FAIL",
      message: `${dataDir} does not exist`,
      fix: "orchestrator install (creates it), or set ORCHESTRATOR_HOME to the directory you use",
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

function checkConfig(ctx: CliContext, dataDir: string): Check {
  const name = "config";
  const config = readConfig(dataDir);
  switch (config.state) {
    case "missing":
      return {
        name,
        status: "WARN",
        message: `${config.file} does not exist yet (the backend creates it on first start)`,
        fix: "orchestrator connector (creates it with a new token)",
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
