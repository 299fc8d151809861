// The host's logger: stdout is the native-messaging wire, so lines go to stderr and to logs/host.log. Synchronous on
// purpose (a line is on disk before the next frame is handled, and nothing is lost at exit); repeated lines are rate
// limited (log-rate-limit.ts) and host.log rotates past a size cap, so no peer can fill the disk through it.
import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { StoreLogger } from "../store/store-types.ts";
import { DEFAULT_REPEAT_LIMIT, type LogLine, type RepeatLimit, RepeatLimiter } from "./log-rate-limit.ts";

export const DEFAULT_LOG_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_LOG_GENERATIONS = 3;
/** A longer message (a stack, a quoted payload) is cut: one line must not take a whole generation. */
const MAX_MESSAGE_CHARS = 16 * 1024;
/** Other processes (relays, the CLI) append to the same file: our count is checked against the file this often. */
const RESTAT_BYTES = 64 * 1024;

export interface FileLoggerOptions {
  /** Also write each line to stderr (default true). */
  readonly stderr?: boolean;
  /** host.log is rotated before it would pass this size (default 5 MiB). */
  readonly maxBytes?: number;
  /** Rotated files kept: host.log.1 (newest) … host.log.<generations> (default 3). */
  readonly generations?: number;
  /** Lines of one shape written per window (default 10 per minute); `false` writes every line. */
  readonly repeatLimit?: RepeatLimit | false;
  readonly now?: () => number;
}

export interface FileLogger extends StoreLogger {
  /** Writes the summaries of every window that suppressed lines (done at process exit too). */
  flush(): void;
}

/** Loggers that may hold suppressed counts: summed up when the process exits, so the log says what it left out. */
const live = new Set<FileLogger>();
let exitHooked = false;

export function fileLogger(dir: string, opts: FileLoggerOptions = {}): FileLogger {
  const logs = join(dir, "logs");
  mkdirSync(logs, { recursive: true, mode: 0o700 });
  const file = join(logs, "host.log");
  const maxBytes = opts.maxBytes ?? DEFAULT_LOG_MAX_BYTES;
  const generations = opts.generations ?? DEFAULT_LOG_GENERATIONS;
  const now = opts.now ?? Date.now;
  const limiter =
    opts.repeatLimit === false ? undefined : new RepeatLimiter(opts.repeatLimit ?? DEFAULT_REPEAT_LIMIT, now);
  // One stat at start; after that the size is counted in memory (appending stays one syscall per line).
  let size = currentSize(file);
  if (size > 0) tighten(file);
  let sinceStat = 0;

  const rotate = () => {
    try {
      rmSync(`${file}.${generations}`, { force: true });
      for (let n = generations - 1; n >= 1; n--) renameIfPresent(`${file}.${n}`, `${file}.${n + 1}`);
      renameIfPresent(file, `${file}.1`);
    } catch (e) {
      process.stderr.write(`log rotation failed (${String(e)})\n`);
    }
    size = currentSize(file);
  };

  const append = (line: string) => {
    const bytes = Buffer.byteLength(line);
    if (size + bytes > maxBytes || sinceStat >= RESTAT_BYTES) {
      // Another process may have written or rotated since: decide on the file's real size.
      size = currentSize(file);
      sinceStat = 0;
      if (size > 0 && size + bytes > maxBytes) rotate();
    }
    try {
      appendFileSync(file, line, { mode: 0o600 });
      size += bytes;
      sinceStat += bytes;
    } catch (e) {
      process.stderr.write(`log file unavailable (${String(e)}): ${line}`);
    }
    if (opts.stderr ?? true) process.stderr.write(line);
  };

  const format = ({ level, message }: LogLine) => {
    const text =
      message.length > MAX_MESSAGE_CHARS
        ? `${message.slice(0, MAX_MESSAGE_CHARS)}… (${message.length - MAX_MESSAGE_CHARS} more characters)`
        : message;
    return `${new Date(now()).toISOString()} ${process.pid} ${level} ${text}\n`;
  };

  const flushExpired = () => limiter?.expired().forEach((l) => append(format(l)));

  const write = (level: string, message: string) => {
    if (!limiter) return append(format({ level, message }));
    const admission = limiter.admit(level, message);
    for (const summary of admission.summaries) append(format(summary));
    if (admission.pass) append(format({ level, message }));
    // Say how many were left out when the window ends, even if no line of that shape follows.
    if (admission.endsInMs !== undefined) setTimeout(flushExpired, admission.endsInMs + 1).unref();
  };

  const logger: FileLogger = {
    warn: (m) => write("WARN", m),
    info: (m) => write("INFO", m),
    flush: () => limiter?.drain().forEach((l) => append(format(l))),
  };
  if (limiter) {
    live.add(logger);
    if (!exitHooked) {
      exitHooked = true;
      process.once("exit", () => live.forEach((l) => l.flush()));
    }
  }
  return logger;
}

function currentSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** A host.log made by an older version or by hand may be readable by others; it can quote what peers sent. */
function tighten(file: string): void {
  try {
    if (process.platform !== "win32" && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch {
    // Not ours to change (another user's file): appending still works or reports itself.
  }
}
