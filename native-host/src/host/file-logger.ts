// The host's logger: stdout is the native-messaging wire, so lines go to stderr and to logs/host.log.
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { StoreLogger } from "../store/store-types.ts";

export function fileLogger(dir: string, opts: { stderr?: boolean } = {}): StoreLogger {
  const logs = join(dir, "logs");
  mkdirSync(logs, { recursive: true, mode: 0o700 });
  const file = join(logs, "host.log");
  const write = (level: string, msg: string) => {
    const line = `${new Date().toISOString()} ${process.pid} ${level} ${msg}\n`;
    try {
      appendFileSync(file, line, { mode: 0o600 });
    } catch (e) {
      process.stderr.write(`log file unavailable (${String(e)}): ${line}`);
    }
    if (opts.stderr ?? true) process.stderr.write(line);
  };
  return { warn: (m) => write("WARN", m), info: (m) => write("INFO", m) };
}
