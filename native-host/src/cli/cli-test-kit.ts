// Test support for the CLI: a context rooted in a temp HOME (never the real one) that records output.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CliContext, ExecFn } from "./context.ts";
import { PROJECT_ROOT } from "./context.ts";
import { main } from "./main.ts";

export interface TestCli {
  readonly home: string;
  readonly dataDir: string;
  readonly ctx: CliContext;
  readonly out: string[];
  readonly err: string[];
  /** Runs `orchestrator <args>` in-process; clears the recorded output first. */
  run(...args: string[]): Promise<number>;
  cleanup(): void;
}

const noExec: ExecFn = (file) => Promise.reject(new Error(`unexpected exec of ${file}`));

export function testCli(overrides: Partial<CliContext> = {}, env: NodeJS.ProcessEnv = {}): TestCli {
  const home = mkdtempSync(path.join(tmpdir(), "orchestrator-cli-"));
  const dataDir = path.join(home, "data");
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    env: { HOME: home, ORCHESTRATOR_HOME: dataDir, ...env },
    platform: "linux",
    cwd: home,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    exec: noExec,
    nodePath: process.execPath,
    projectRoot: PROJECT_ROOT,
    ...overrides,
  };
  return {
    home,
    dataDir,
    ctx,
    out,
    err,
    run: (...args) => {
      out.length = 0;
      err.length = 0;
      return main(args, ctx);
    },
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

/** A loopback port nothing listens on right now (bound, read, released). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
