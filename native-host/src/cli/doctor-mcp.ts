// `orchestrator doctor`'s `mcp` check: is the port config.json names served by this data directory's backend, which
// accepts its token? Otherwise: is it free for the backend, held by another data directory's backend (which one, if
// it can be told), or held by another program.
import { existsSync, readFileSync } from "node:fs";
import { DEFAULT_MCP_PORT } from "../config/host-config.ts";
import { BROWSERS, homeDir, pathFor, userManifestTarget } from "./browsers.ts";
import type { ConfigRead } from "./connector.ts";
import { effectivePort, readConfig } from "./connector.ts";
import type { CliContext } from "./context.ts";
import { commandLine } from "./context.ts";
import type { LiveOwner } from "./doctor-backend.ts";
import { liveOwner } from "./doctor-backend.ts";
import type { Check } from "./doctor-check.ts";
import { probeMcp } from "./doctor-mcp-probe.ts";
import { parseLauncher } from "./launcher.ts";

const APP = "chatgpt-orchestrator";

export async function checkMcp(
  ctx: CliContext,
  dataDir: string,
  owner: LiveOwner | undefined,
  timeoutMs: number,
): Promise<Check> {
  const name = "mcp";
  const config = readConfig(dataDir);
  if (config.state === "invalid") {
    return { name, status: "SKIP", message: "skipped: config.json is invalid (see the config check)" };
  }
  // Before the first start there is no config.json yet: the backend will create it with the default port, unless
  // ORCHESTRATOR_MCP_PORT names another (0: any free port).
  const configured =
    config.state === "ok" ? config.port : ctx.env.ORCHESTRATOR_MCP_PORT === "0" ? 0 : DEFAULT_MCP_PORT;
  const port = effectivePort(configured, ctx.env);
  const token = config.state === "ok" ? config.token : undefined;
  const portSetting = `ORCHESTRATOR_MCP_PORT or "port" in ${config.file}`;
  if (port === 0) {
    return owner
      ? {
          name,
          status: "FAIL",
          message: "config.json has port 0: the running backend has not written the port it picked",
          fix: restartBackend(ctx),
        }
      : {
          name,
          status: "OK",
          message: "port 0: the backend picks a free port when it starts and writes it to config.json",
        };
  }
  const where = `http://127.0.0.1:${port}/mcp`;
  const answer = await probeMcp(port, token, timeoutMs);
  switch (answer.kind) {
    case "accepted":
      return owner
        ? {
            name,
            status: "OK",
            message: `this data directory's MCP server answers on ${where} and accepts its token`,
          }
        : {
            name,
            // This data directory's backend, once started, could not listen there.
            status: "FAIL",
            message:
              `a backend on ${where} accepts this data directory's token, but this data directory's backend is not ` +
              "running: most likely another data directory holds a copy of this config.json",
            fix: `stop that backend, or give one of them another port (${portSetting})`,
          };
    case "refused":
      return refusedCheck(ctx, dataDir, config, owner, port, token, timeoutMs);
    case "other":
      return {
        name,
        status: "FAIL",
        message: `another program holds port ${port} (it answered ${answer.detail}), so this data directory's backend cannot serve MCP there`,
        fix: `stop that program, or set ${portSetting} to a free port, then restart the backend`,
      };
    case "free": {
      if (!owner) {
        return {
          name,
          status: "OK",
          message: `port ${port} is free for the backend (none is running; it starts when the extension connects, or with ${commandLine(ctx, "serve")})`,
        };
      }
      const elsewhere =
        owner.mcpPort !== undefined && owner.mcpPort !== port
          ? ` (it says it listens on port ${owner.mcpPort})`
          : "";
      return {
        name,
        status: "FAIL",
        message: `the backend is running but nothing listens on ${where}${elsewhere}`,
        fix:
          owner.mcpPort === undefined || owner.mcpPort === port
            ? `read logs/host.log in the data directory, then ${restartBackend(ctx)}`
            : `it was started with another ORCHESTRATOR_MCP_PORT: run doctor and clients with ORCHESTRATOR_MCP_PORT=${owner.mcpPort}, or ${restartBackend(ctx)} without it`,
      };
    }
    case "timeout":
      return {
        name,
        status: "FAIL",
        message: `${where} did not answer within ${timeoutMs} ms`,
        fix: `check what listens on port ${port}`,
      };
    case "error":
      return {
        name,
        status: "FAIL",
        message: `${where}: ${answer.message}`,
        fix: `check what listens on port ${port}`,
      };
  }
}

/** The backend runs under the browser (native messaging) or `serve`; restarting it is restarting whichever started it. */
function restartBackend(ctx: CliContext): string {
  return `restart the backend: restart the browser, or stop and rerun ${commandLine(ctx, "serve")}`;
}

/** A ChatGPT Orchestrator server that refuses this data directory's token: whose is it? */
async function refusedCheck(
  ctx: CliContext,
  dataDir: string,
  config: ConfigRead,
  owner: LiveOwner | undefined,
  port: number,
  token: string | undefined,
  timeoutMs: number,
): Promise<Check> {
  const name = "mcp";
  const where = `http://127.0.0.1:${port}/mcp`;
  const moveAside = `or give this data directory another port: set ORCHESTRATOR_MCP_PORT or "port" in ${config.file}`;
  if (owner !== undefined && owner.mcpPort === port && token === undefined) {
    return {
      name,
      status: "FAIL",
      message: `this data directory's backend (pid ${owner.pid}) on ${where} wants its token, but config.json, which holds it, is missing`,
      fix: `${restartBackend(ctx)}; it writes a new config.json`,
    };
  }
  if (owner !== undefined && owner.mcpPort === port) {
    return {
      name,
      status: "FAIL",
      message: `this data directory's backend (pid ${owner.pid}) on ${where} refuses the token in config.json: the token was changed after the backend started`,
      fix: `${restartBackend(ctx)}, so it reads config.json again`,
    };
  }
  const other = await otherOwnerOf(ctx, dataDir, port, token, timeoutMs);
  const whose =
    other !== undefined
      ? `the backend of another data directory, ${other.dir} (${other.how}), holds port ${port}`
      : `a ChatGPT Orchestrator backend on port ${port} refuses this data directory's token: most likely another data directory's backend (ORCHESTRATOR_HOME differs), or the token was changed after it started`;
  const stop =
    other !== undefined
      ? `stop that backend, use its data directory (ORCHESTRATOR_HOME=${other.dir}), ${moveAside}`
      : `stop that backend, ${moveAside}`;
  return {
    name,
    status: "FAIL",
    message: token === undefined ? `${whose}, the port this data directory's backend would use` : whose,
    fix: stop,
  };
}

/**
 * The data directories this port may belong to: the default one (ORCHESTRATOR_HOME unset) and those the installed
 * launchers point at (what the browsers start). Told apart by the token each one's server accepts, or by the port its
 * running owner reports in status.json.
 */
async function otherOwnerOf(
  ctx: CliContext,
  dataDir: string,
  port: number,
  token: string | undefined,
  timeoutMs: number,
): Promise<{ dir: string; how: string } | undefined> {
  const p = pathFor(ctx.platform);
  const seen = new Set([p.resolve(dataDir)]);
  for (const dir of [defaultDataDir(ctx), ...launcherDataDirs(ctx)]) {
    const key = p.resolve(dir);
    if (seen.has(key)) continue;
    seen.add(key);
    const config = readConfig(dir);
    if (config.state === "ok" && config.token !== token) {
      if ((await probeMcp(port, config.token, timeoutMs)).kind === "accepted") {
        return { dir, how: "its server accepts that directory's token" };
      }
    }
    const owner = liveOwner(dir);
    if (owner?.mcpPort === port) return { dir, how: `its backend, pid ${owner.pid}, says it listens there` };
  }
  return undefined;
}

/** The data directory without ORCHESTRATOR_HOME (docs/cli.md, "Environment"), under the HOME doctor was given. */
function defaultDataDir(ctx: CliContext): string {
  const p = pathFor(ctx.platform);
  const home = homeDir(ctx);
  if (ctx.platform === "darwin") return p.join(home, "Library", "Application Support", APP);
  if (ctx.platform === "win32") return p.join(ctx.env.LOCALAPPDATA ?? p.join(home, "AppData", "Local"), APP);
  return p.join(ctx.env.XDG_DATA_HOME ?? p.join(home, ".local", "share"), APP);
}

/** The data directories of the launchers the browsers' manifests run. */
function launcherDataDirs(ctx: CliContext): string[] {
  const dirs: string[] = [];
  for (const browser of BROWSERS) {
    const file = userManifestTarget(browser, ctx).file;
    if (!existsSync(file)) continue;
    try {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { path?: unknown };
      if (typeof manifest.path !== "string" || !existsSync(manifest.path)) continue;
      const launcher = parseLauncher(readFileSync(manifest.path, "utf8"));
      if (launcher !== undefined) dirs.push(launcher.dataDir);
    } catch {
      continue; // an unreadable manifest is the manifest check's finding; here it only names no candidate
    }
  }
  return dirs;
}
