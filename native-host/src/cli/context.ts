// Everything a CLI command touches outside its arguments, injected so tests can use a temp HOME, a fake platform
// and a fake `reg.exe` without touching the real machine.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { resolveDataDir } from "../store/data-dir.ts";
import type { Browser } from "./browsers.ts";
import { pathFor } from "./browsers.ts";

export interface ExecResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program without a shell (arguments are passed as-is); never rejects for a non-zero exit. */
export type ExecFn = (file: string, args: readonly string[]) => Promise<ExecResult>;

export interface CliContext {
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  readonly cwd: string;
  /** Writes one line of output (stdout). */
  readonly out: (line: string) => void;
  /** Writes one line of diagnostics (stderr). */
  readonly err: (line: string) => void;
  readonly exec: ExecFn;
  /** The Node binary the launcher pins. */
  readonly nodePath: string;
  /** The project root (holds bin/orchestrator.js and manifests/). */
  readonly projectRoot: string;
  /** The file the launcher runs (default `bin/orchestrator.js`; the packaged host: its own bundle). */
  readonly cliEntry?: string;
  /** True when stdout is a terminal: `start` then runs the backend in the foreground. */
  readonly stdoutIsTTY?: boolean;
  /**
   * True in the packaged CLI (the npm tarball or the host bundle): there is no source tree, so commands that build
   * from it (`start`) are not offered.
   */
  readonly packaged?: boolean;
  /**
   * How the user runs this CLI where they are, for the fixes and next steps it prints: `npx orchestrator` in a clone,
   * `orchestrator` when installed on PATH, `node /path/orchestrator.mjs` from an unpacked bundle.
   */
  readonly invocation?: string;
  /** Where a browser's program is installed, if it is (default: findBrowser in browsers.ts); tests inject it. */
  readonly findBrowser?: (browser: Browser) => string | undefined;
}

export const PROJECT_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export const execFileResult: ExecFn = (file, args) =>
  new Promise((resolve) => {
    execFile(file, [...args], { windowsHide: true }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr: stderr || (error?.message ?? "") });
    });
  });

export function processContext(): CliContext {
  return {
    env: process.env,
    platform: process.platform,
    cwd: process.cwd(),
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    exec: execFileResult,
    nodePath: process.execPath,
    projectRoot: PROJECT_ROOT,
    stdoutIsTTY: process.stdout.isTTY,
  };
}

/** The data directory (docs/cli.md, "Environment"): ORCHESTRATOR_HOME, else the platform's user data folder. */
export function dataDirOf(ctx: CliContext): string {
  return pathFor(ctx.platform).resolve(ctx.cwd, resolveDataDir(ctx.env, ctx.platform));
}

/** `bin/orchestrator.js` of this project: what the launcher and MCP client configs run. */
export function cliEntry(ctx: CliContext): string {
  return ctx.cliEntry ?? pathFor(ctx.platform).join(ctx.projectRoot, "bin", "orchestrator.js");
}

/** The command line a user types here to run `orchestrator <args>` (see CliContext.invocation). */
export function commandLine(ctx: CliContext, args: string): string {
  return `${ctx.invocation ?? "npx orchestrator"} ${args}`;
}
