// `orchestrator doctor`: one line per check (OK / WARN / FAIL) with the fix. Exit code 1 if anything FAILs.
import { accessSync, constants, existsSync, readFileSync, statfsSync, statSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import type { Browser, ManifestTarget } from "./browsers.ts";
import { pathFor, resolveTargets } from "./browsers.ts";
import { readConfig, effectivePort } from "./connector.ts";
import type { CliContext } from "./context.ts";
import { dataDirOf } from "./context.ts";
import { checkManifestContent } from "./host-manifest.ts";
import type { ExtensionIds } from "./install.ts";
import { readRegistryDefault } from "./install.ts";
import { parseLauncher } from "./launcher.ts";

export type CheckStatus = "OK" | "WARN" | "FAIL";

export interface Check {
  /** Stable identifier: `data-dir`, `config`, `manifest:<browser|profile>`, `manifests`, `owner`, `mcp`, … */
  readonly name: string;
  readonly status: CheckStatus;
  readonly message: string;
  readonly fix?: string;
}

export interface DoctorOptions {
  readonly browsers: readonly Browser[];
  readonly profileDir?: string | undefined;
  readonly extensionIds: ExtensionIds;
  /** How long the MCP port may take to answer. */
  readonly probeTimeoutMs?: number;
  /** Injected clock for "last contact … ago". */
  readonly now?: () => number;
}

export const OWNER_FILE = "owner.json";
export const STATUS_FILE = "status.json";
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

/** Below this the next snapshot may not fit; below a megabyte the journal's next records may not either. */
const LOW_SPACE_BYTES = 64 * 1024 * 1024;
const NO_SPACE_BYTES = 1024 * 1024;

/**
 * Whether the backend can save changes: the running owner's own word (status.json's `storage`, written when its disk
 * refused data and again when it healed) and the free space on the data directory's disk.
 */
function checkStorage(dataDir: string, ownerAlive: boolean): Check {
  const name = "storage";
  const fix = "free space on that disk (or fix it); the backend starts saving again by itself within 10 s";
  if (!existsSync(dataDir)) return { name, status: "WARN", message: `skipped: ${dataDir} does not exist` };
  if (ownerAlive) {
    const storage = readStatus(dataDir)?.storage as { writable?: unknown; message?: unknown } | undefined;
    if (storage?.writable === false) {
      return {
        name,
        status: "FAIL",
        message: `the backend cannot save changes: ${String(storage.message)}`,
        fix,
      };
    }
  }
  const fs = statfsSync(dataDir);
  const free = fs.bavail * fs.bsize;
  const words = `${(free / 1024 / 1024).toFixed(1)} MiB free on the disk holding ${dataDir}`;
  if (free < NO_SPACE_BYTES)
    return { name, status: "FAIL", message: `${words}: changes cannot be saved`, fix };
  if (free < LOW_SPACE_BYTES) return { name, status: "WARN", message: `${words}: little room left`, fix };
  return { name, status: "OK", message: words };
}

function readStatus(dataDir: string): Record<string, unknown> | undefined {
  try {
    const raw = JSON.parse(readFileSync(path.join(dataDir, STATUS_FILE), "utf8")) as unknown;
    return raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // missing or unreadable: checkExecutor reports the file itself
  }
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

function installCommand(profileDir: string | undefined, browser?: string, extra = ""): string {
  const where =
    profileDir !== undefined ? ` --profile-dir ${profileDir}` : browser ? ` --browser ${browser}` : "";
  return `orchestrator install${where}${extra}`;
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

async function checkManifest(
  ctx: CliContext,
  target: ManifestTarget,
  options: DoctorOptions,
  dataDir: string,
): Promise<{ present: boolean; check: Check }> {
  const name = `manifest:${target.label}`;
  const strict = options.extensionIds.explicit.has(target.family);
  const idOption = strict ? ` --extension-id ${options.extensionIds[target.family]}` : "";
  const fix = installCommand(
    options.profileDir,
    target.label === "profile" ? undefined : target.label,
    idOption,
  );
  if (!existsSync(target.file)) {
    return {
      present: false,
      check: {
        name,
        status: "WARN",
        message: `not installed (${target.file})`,
        fix: target.label === "profile" ? fix : `${fix}, if you use ${target.label}`,
      },
    };
  }
  const p = pathFor(ctx.platform);
  const { manifest, problems } = checkManifestContent(
    readFileSync(target.file, "utf8"),
    target.family,
    { id: options.extensionIds[target.family], strict },
    (x) => p.isAbsolute(x),
  );
  if (manifest !== undefined && p.isAbsolute(manifest.path))
    problems.push(...checkHostPath(ctx, manifest.path, dataDir));
  if (target.registryKey !== undefined) {
    const value = await readRegistryDefault(ctx.exec, target.registryKey);
    if (value !== target.file) {
      problems.push({
        severity: "fail",
        message: `registry ${target.registryKey} ${value === undefined ? "is missing" : `points to ${value}`}`,
      });
    }
  }
  const failed = problems.some((x) => x.severity === "fail");
  const status: CheckStatus = failed ? "FAIL" : problems.length > 0 ? "WARN" : "OK";
  const allowed = manifest?.allowed_origins ?? manifest?.allowed_extensions ?? [];
  const message =
    problems.length === 0
      ? `${target.file} allows ${allowed.join(", ")} and runs ${manifest?.path ?? "?"}`
      : `${target.file}: ${problems.map((x) => x.message).join("; ")}`;
  return {
    present: true,
    check: status === "OK" ? { name, status, message } : { name, status, message, fix },
  };
}

/** The executable the browser will start: exists, is executable, and (if it is our launcher) its targets exist. */
function checkHostPath(
  ctx: CliContext,
  hostPath: string,
  dataDir: string,
): { severity: "fail" | "warn"; message: string }[] {
  if (!existsSync(hostPath)) return [{ severity: "fail", message: `path ${hostPath} does not exist` }];
  if (ctx.platform !== "win32") {
    try {
      accessSync(hostPath, constants.X_OK);
    } catch {
      return [{ severity: "fail", message: `path ${hostPath} is not executable` }];
    }
  }
  let launcher;
  try {
    launcher = parseLauncher(readFileSync(hostPath, "utf8"));
  } catch {
    launcher = undefined;
  }
  if (launcher === undefined) return [];
  const problems: { severity: "fail" | "warn"; message: string }[] = [];
  if (!existsSync(launcher.node))
    problems.push({ severity: "fail", message: `launcher's Node ${launcher.node} is gone` });
  if (!existsSync(launcher.entry)) {
    problems.push({ severity: "fail", message: `launcher's CLI ${launcher.entry} is gone` });
  }
  if (path.resolve(launcher.dataDir) !== path.resolve(dataDir)) {
    problems.push({
      severity: "warn",
      message: `launcher uses data directory ${launcher.dataDir}, not ${dataDir} (ORCHESTRATOR_HOME differs)`,
    });
  }
  return problems;
}

interface OwnerRecord {
  pid: number;
  generation: number;
  startedAt: string;
}

function readOwner(dataDir: string): OwnerRecord | "missing" | "invalid" {
  const file = path.join(dataDir, OWNER_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "invalid";
  }
  const v = raw as Partial<OwnerRecord> | null;
  return v !== null &&
    typeof v === "object" &&
    Number.isSafeInteger(v.pid) &&
    Number.isSafeInteger(v.generation) &&
    typeof v.startedAt === "string"
    ? (v as OwnerRecord)
    : "invalid";
}

export function isPidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function checkOwner(dataDir: string): { alive: boolean; check: Check } {
  const name = "owner";
  const owner = readOwner(dataDir);
  const startHint = "it starts when the extension connects, or run orchestrator serve";
  if (owner === "missing") {
    return {
      alive: false,
      check: {
        name,
        status: "WARN",
        message: "no backend has run with this data directory yet",
        fix: startHint,
      },
    };
  }
  if (owner === "invalid") {
    return {
      alive: false,
      check: {
        name,
        status: "FAIL",
        message: `${path.join(dataDir, OWNER_FILE)} is not a valid owner record`,
        fix: "stop every orchestrator process, then delete owner.json",
      },
    };
  }
  const alive = isPidAlive(owner.pid);
  return {
    alive,
    check: alive
      ? {
          name,
          status: "OK",
          message: `backend running: pid ${owner.pid}, generation ${owner.generation}, since ${owner.startedAt}`,
        }
      : {
          name,
          status: "WARN",
          message: `no backend running (last owner pid ${owner.pid}, generation ${owner.generation}, has exited)`,
          fix: startHint,
        },
  };
}

export type ProbeResult =
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "refused" }
  | { readonly kind: "timeout" }
  | { readonly kind: "error"; readonly message: string };

/** POST /mcp without a token: a healthy server answers 401. */
export function probeMcp(port: number, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
        },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        resolve({ kind: "status", status: res.statusCode ?? 0 });
      },
    );
    req.on("timeout", () => {
      req.destroy();
      resolve({ kind: "timeout" });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      resolve(e.code === "ECONNREFUSED" ? { kind: "refused" } : { kind: "error", message: e.message });
    });
    req.end(body);
  });
}

async function checkMcp(
  ctx: CliContext,
  dataDir: string,
  backendAlive: boolean,
  timeoutMs: number,
): Promise<Check> {
  const name = "mcp";
  const config = readConfig(dataDir);
  if (config.state !== "ok") {
    return { name, status: "WARN", message: "skipped: no valid config.json, so no port to check" };
  }
  const port = effectivePort(config.port, ctx.env);
  if (port === 0) {
    return {
      name,
      status: backendAlive ? "FAIL" : "WARN",
      message: "config.json has port 0: the backend has not written the port it picked",
      fix: backendAlive ? "restart the backend" : "start the backend (orchestrator serve)",
    };
  }
  const where = `http://127.0.0.1:${port}/mcp`;
  const probe = await probeMcp(port, timeoutMs);
  switch (probe.kind) {
    case "status":
      if (probe.status === 401)
        return { name, status: "OK", message: `MCP server is up and requires the token (${where})` };
      return {
        name,
        status: "FAIL",
        message:
          probe.status >= 200 && probe.status < 300
            ? `${where} answered ${probe.status} without a token`
            : `${where} answered HTTP ${probe.status}, not 401: another program may be using port ${port}`,
        fix: `stop whatever listens on ${port}, or set another "port" in ${config.file} and restart the backend`,
      };
    case "refused":
      return backendAlive
        ? {
            name,
            status: "FAIL",
            message: `the backend is running but nothing listens on ${where}`,
            fix: "see the backend log in the data directory; restart the browser or orchestrator serve",
          }
        : {
            name,
            status: "WARN",
            message: `nothing listens on ${where} (no backend running)`,
            fix: "open the browser with the extension, or run orchestrator serve",
          };
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
        message: `${where}: ${probe.message}`,
        fix: `check what listens on port ${port}`,
      };
  }
}

function checkExecutor(dataDir: string, now: () => number): Check {
  const name = "executor";
  const file = path.join(dataDir, STATUS_FILE);
  const fix = "open Chrome/Chromium or Firefox with the ChatGPT Orchestrator extension enabled";
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT"
      ? { name, status: "WARN", message: "no executor has connected yet", fix }
      : { name, status: "WARN", message: `${file} is unreadable (${(e as Error).message})` };
  }
  // Epoch milliseconds (what the host writes) or an ISO string; null until the first contact.
  const at = (raw as { lastExecutorContactAt?: unknown } | null)?.lastExecutorContactAt;
  const time = typeof at === "number" ? at : typeof at === "string" ? Date.parse(at) : NaN;
  if (!Number.isFinite(time)) return { name, status: "WARN", message: "no executor has connected yet", fix };
  const iso = new Date(time).toISOString();
  return { name, status: "OK", message: `last executor contact ${iso} (${ago(now() - time)})` };
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}
