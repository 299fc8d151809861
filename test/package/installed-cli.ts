// The npm tarball as a user gets it: installed with `npm install -g` into a temp prefix (offline, empty cache, temp
// HOME), and its `orchestrator` command run from outside the repository with only PATH, HOME and the data directory.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Node's folder first: npm and the bin's `#!/usr/bin/env node` must find the Node that runs the tests. */
const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;

function exec(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(file, [...args], { env, cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr: stderr || (error?.message ?? "") });
    });
  });
}

/**
 * `npm install -g --prefix <dir>/prefix <tgz> --offline`: with an empty cache and no network, only a package that
 * brings every dependency with it installs. Returns the `orchestrator` bin npm linked.
 */
export async function installGlobally(tarball: string, dir: string): Promise<string> {
  const prefix = path.join(dir, "prefix");
  const home = path.join(dir, "npm-home");
  mkdirSync(home, { recursive: true });
  // A clean environment: none of the npm_config_* of an outer `npm test` may point npm elsewhere.
  const env = {
    PATH,
    HOME: home,
    npm_config_cache: path.join(dir, "npm-cache"),
    npm_config_update_notifier: "false",
  };
  const args = ["install", "-g", "--prefix", prefix, tarball, "--offline", "--no-audit", "--no-fund"];
  const result = await exec("npm", args, env, home);
  if (result.code !== 0) throw new Error(`npm install -g failed (${result.code}): ${result.stderr}`);
  return path.join(prefix, "bin", "orchestrator");
}

/** Runs the installed CLI; `home` holds HOME and the data directory, `cwd` is a folder outside the repository. */
export class InstalledCli {
  readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly bin: string,
    readonly home: string,
    readonly dataDir: string,
    readonly cwd: string,
  ) {
    // Port 0: the backend takes any free port (other test files may run a backend at the same time).
    this.env = { PATH, HOME: home, ORCHESTRATOR_HOME: dataDir, ORCHESTRATOR_MCP_PORT: "0" };
    for (const folder of [home, cwd]) mkdirSync(folder, { recursive: true });
  }

  run(...args: string[]): Promise<CliRun> {
    return exec(this.bin, args, this.env, this.cwd);
  }

  /** A long-running command (`serve`); its stdout and stderr are collected into `output`. */
  spawn(...args: string[]): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
    const child = spawn(this.bin, args, { env: this.env, cwd: this.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    const exit = new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolve(code));
    });
    return { child, output: () => text, exit };
  }
}
