// Runs the real `orchestrator` command (bin/orchestrator.js) as a child process in a temp HOME and data directory,
// for the CLI contract tests; optionally as an unprivileged user (root ignores file modes) or with stdout closed.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = path.join(ROOT, "bin", "orchestrator.js");

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliHome {
  readonly home: string;
  /** ORCHESTRATOR_HOME of every run: not created by the harness. */
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  run(args: readonly string[], opts?: RunOptions): Promise<CliResult>;
  spawn(args: readonly string[], env?: NodeJS.ProcessEnv): ChildProcess;
  cleanup(): void;
}

export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Close our end of the child's stdout before it writes: its writes then fail with EPIPE. */
  readonly closeStdout?: boolean;
  /** Run as user/group nobody (65534): for permission tests when the tests run as root. */
  readonly asNobody?: boolean;
}

/** A temp HOME (traversable by every user, for `asNobody`); the child sees no variable of the test runner but PATH. */
export function cliHome(): CliHome {
  const home = mkdtempSync(path.join(tmpdir(), "orchestrator-cli-"));
  chmodSync(home, 0o755);
  const dataDir = path.join(home, "data");
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, ORCHESTRATOR_HOME: dataDir };
  return {
    home,
    dataDir,
    env,
    run: (args, opts = {}) => runCli(args, { ...env, ...opts.env }, home, opts),
    spawn: (args, extra = {}) =>
      spawn(process.execPath, [BIN, ...args], {
        env: { ...env, ...extra },
        cwd: home,
        stdio: ["ignore", "pipe", "pipe"],
      }),
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  opts: RunOptions,
): Promise<CliResult> {
  const nobody = opts.asNobody === true && process.getuid?.() === 0;
  const [file, argv] = nobody
    ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, BIN, ...args]]
    : [process.execPath, [BIN, ...args]];
  return new Promise((resolve) => {
    const child = execFile(file, argv, { env, cwd }, (error, stdout, stderr) => {
      resolve({
        code: error === null ? 0 : typeof error.code === "number" ? error.code : -1,
        stdout,
        stderr,
      });
    });
    if (opts.closeStdout === true) child.stdout?.destroy();
  });
}

/** Resolves with the exit code once the child has ended. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** Collects a child's output as it arrives, so a test can wait for a line. */
export function collect(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return { stdout: () => out, stderr: () => err };
}
