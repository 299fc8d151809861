// Shared helpers of the store tests: temp data directories, waiting on a condition with a deadline, a recording logger,
// and child processes that run a once-built bundle of store-child.ts with plain `node` (far faster to start than tsx).
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { JOURNAL_HEADER_BYTES } from "../../native-host/src/store/file-headers.ts";
import { scanFrames } from "../../native-host/src/store/frame-codec.ts";
import { TX_PAYLOAD_PREFIX } from "../../native-host/src/store/record-codec.ts";
import type { StoreLogger } from "../../native-host/src/store/store-types.ts";
import type { ChildConfig } from "./store-child.ts";
import { waitFor as waitForCondition } from "../wait-for.ts";
import type { StoreFaultPoint } from "../../native-host/src/store/store-types.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `orch-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Where a journal's records end (the file goes on with preallocated zeros). */
export function journalRecordsEnd(path: string): number {
  const scan = scanFrames(readFileSync(path), JOURNAL_HEADER_BYTES, TX_PAYLOAD_PREFIX, {
    zeroFilledTail: true,
  });
  if (scan.kind === "corrupt") throw new Error(`${path} is corrupt at byte ${scan.badOffset}`);
  return scan.end;
}

/** Overwrites bytes of a file in place at `offset`. */
export function writeAt(path: string, offset: number, bytes: Buffer): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

export interface RecordingLogger {
  log: StoreLogger;
  warnings: string[];
  infos: string[];
}

export function recordingLogger(): RecordingLogger {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { log: { warn: (m) => warnings.push(m), info: (m) => infos.push(m) }, warnings, infos };
}

/**
 * A disk that fails on demand: from `failFromNow()` on, every batch fails with an operating-system error (EIO by
 * default: written, then its fdatasync fails; ENOSPC: the write itself is refused), and so does every retry of the
 * store, until `heal()`. Pass `faultHook` in the store options.
 */
export function failingDisk(): {
  faultHook: (point: StoreFaultPoint) => void;
  failFromNow: (code?: "EIO" | "ENOSPC") => void;
  heal: () => void;
} {
  let failing: "EIO" | "ENOSPC" | undefined;
  const refuse = (code: string) => {
    throw Object.assign(new Error(`${code}: injected by the test`), { code });
  };
  return {
    faultHook: (point) => {
      if (failing === undefined || point === "journal-probe") {
        if (failing !== undefined) refuse(failing);
        return;
      }
      if (failing === "ENOSPC" && point === "journal-writing") refuse("ENOSPC");
      if (failing === "EIO" && point === "journal-written") refuse("EIO");
    },
    failFromNow: (code = "EIO") => {
      failing = code;
    },
    heal: () => {
      failing = undefined;
    },
  };
}

/** Polls `condition` until it holds; fails with `what` once the deadline passes. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await waitForCondition(condition, what, timeoutMs, 2);
}

export interface ChildBundle {
  /** The bundled store-child entry point (sql.js stays external and resolves from the repo's node_modules). */
  path: string;
  dispose(): void;
}

/** Bundles store-child.ts into .tmp/ inside the repo (so `sql.js` resolves), ~0.3 s once per test file. */
export async function buildChildBundle(): Promise<ChildBundle> {
  const outDir = join(REPO_ROOT, ".tmp", `store-child-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(outDir, { recursive: true });
  await build({
    configFile: false,
    logLevel: "silent",
    build: {
      ssr: join(REPO_ROOT, "test/store/store-child.ts"),
      outDir,
      emptyOutDir: true,
      minify: false,
      target: "node20",
      rollupOptions: { output: { format: "es", entryFileNames: "store-child.mjs" } },
    },
  });
  return { path: join(outDir, "store-child.mjs"), dispose: () => removeDir(outDir) };
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running store-child with its stdout split into lines. */
export class Child {
  readonly lines: string[] = [];
  stderr = "";
  readonly exited: Promise<ChildExit>;
  private exit: ChildExit | undefined;
  private readonly listeners = new Set<() => void>();

  private constructor(readonly proc: ChildProcess) {
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      this.lines.push(line);
      for (const l of this.listeners) l();
    });
    proc.stderr!.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => {
      // 'close' (not 'exit'): fires after stdout is drained, so no line is lost.
      proc.once("close", (code, signal) => {
        this.exit = { code, signal };
        for (const l of this.listeners) l();
        resolve(this.exit);
      });
    });
  }

  /** `wrapper` runs the child through another command first (e.g. `unshare -n`), which must exec its arguments. */
  static spawn(bundle: ChildBundle, config: ChildConfig, wrapper: readonly string[] = []): Child {
    const argv = [process.execPath, bundle.path, JSON.stringify(config)];
    const [command, ...args] = [...wrapper, ...argv];
    const proc = spawn(command!, args, { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] });
    return new Child(proc);
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  /** Resolves with the first line (from `from` on) matching `pattern`; rejects if the child exits first or on timeout. */
  waitLine(pattern: RegExp, timeoutMs = 15_000, from = 0): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error(`no line matching ${pattern} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const check = (): void => {
        const line = this.lines.slice(from).find((l) => pattern.test(l));
        if (line !== undefined) done(undefined, line);
        else if (this.exit)
          done(new Error(`child exited (${JSON.stringify(this.exit)}) before a line matching ${pattern}`));
      };
      const done = (error: Error | undefined, line?: string): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        if (error)
          reject(new Error(`${error.message}\nstdout: ${this.lines.join("\n")}\nstderr: ${this.stderr}`));
        else resolve(line!);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Registers a callback for every line from now on. */
  onLine(fn: (line: string) => void): void {
    let seen = this.lines.length;
    this.listeners.add(() => {
      while (seen < this.lines.length) fn(this.lines[seen++]!);
    });
  }

  kill(): void {
    this.proc.kill("SIGKILL");
  }

  /** Closes stdin (a "hold" child then closes its store and exits). */
  endInput(): void {
    this.proc.stdin!.end();
  }
}
