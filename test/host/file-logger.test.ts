// logs/host.log stays bounded: repeated lines are rate limited by shape with a summary of what was left out, and the
// file rotates past its size cap into a fixed number of generations, each within the cap and owner-only.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileLogger } from "../../native-host/src/host/file-logger.ts";
import { messageShape, RepeatLimiter } from "../../native-host/src/host/log-rate-limit.ts";
import { makeTempDir, removeDir } from "../store/helpers.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));
function temp(): string {
  const dir = makeTempDir("file-logger");
  dirs.push(dir);
  return dir;
}
const hostLog = (dir: string, suffix = "") => join(dir, "logs", `host.log${suffix}`);
const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);

describe("messageShape", () => {
  it("keeps the source and kind of a line, drops the details and collapses numbers", () => {
    expect(messageShape("browser: dropped an invalid message: Invalid input: expected string")).toBe(
      "browser: dropped an invalid message",
    );
    expect(messageShape(`relay 12: bad frame #4031: frame is not UTF-8 JSON: Unexpected token 'x'`)).toBe(
      "relay #: bad frame ##",
    );
    expect(messageShape("executor exec-7 disconnected")).toBe("executor exec-# disconnected");
    expect(messageShape("command 3b241101-e2bb-4255-8caf-4136c566a962 waits for an executor")).toBe(
      "command # waits for an executor",
    );
  });
});

describe("RepeatLimiter", () => {
  it("passes N lines of a shape per window, then sums up the rest once the window ends", () => {
    let now = 0;
    const limiter = new RepeatLimiter({ perWindow: 3, windowMs: 1_000 }, () => now);
    const passed = Array.from({ length: 10 }, (_, i) => limiter.admit("WARN", `x: bad #${i}: why`));
    expect(passed.map((a) => a.pass)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(passed[3]!.endsInMs).toBe(1_000);
    expect(passed[4]!.endsInMs).toBeUndefined();
    // Another shape is counted apart.
    expect(limiter.admit("INFO", "other line").pass).toBe(true);
    expect(limiter.expired()).toEqual([]);
    now = 1_000;
    const next = limiter.admit("WARN", "x: bad #99: why");
    expect(next.pass).toBe(true);
    expect(next.summaries).toEqual([
      { level: "WARN", message: "suppressed 7 similar lines in 1 s (more than 3 per 1 s): x: bad ##" },
    ]);
    expect(limiter.drain()).toEqual([]);
  });
});

describe("fileLogger", () => {
  it("writes a flood of one shape as a few lines and says how many it left out", () => {
    const dir = temp();
    const log = fileLogger(dir, { stderr: false, repeatLimit: { perWindow: 5, windowMs: 60_000 } });
    for (let i = 0; i < 20_000; i++) log.warn(`browser: dropped an invalid message: issue ${i}`);
    log.info("executor exec-test disconnected");
    log.flush();
    const text = lines(hostLog(dir));
    expect(text).toHaveLength(5 + 1 + 1);
    expect(text.at(-1)).toMatch(
      /WARN suppressed 19995 similar lines in \d+ s \(more than 5 per 60 s\): browser: dropped an invalid message$/,
    );
    expect(statSync(hostLog(dir)).size).toBeLessThan(2_000);
  });

  it("rotates host.log past the cap into host.log.1..3, never more, each within the cap and 0600", () => {
    const dir = temp();
    const cap = 2_048;
    const log = fileLogger(dir, { stderr: false, maxBytes: cap, generations: 3, repeatLimit: false });
    const total = 400;
    for (let i = 0; i < total; i++) log.info(`line ${i} ${"x".repeat(i % 50)}`);
    expect(readdirSync(join(dir, "logs")).sort()).toEqual([
      "host.log",
      "host.log.1",
      "host.log.2",
      "host.log.3",
    ]);
    expect(existsSync(hostLog(dir, ".4"))).toBe(false);
    const files = [".3", ".2", ".1", ""].map((s) => hostLog(dir, s));
    for (const file of files) {
      expect(statSync(file).size, file).toBeLessThanOrEqual(cap);
      expect(statSync(file).size, file).toBeGreaterThan(cap / 2);
      expect(statSync(file).mode & 0o777, file).toBe(0o600);
    }
    // Oldest to newest, the generations hold consecutive lines ending with the last one written.
    const numbers = files.flatMap(lines).map((l) => Number(/ INFO line (\d+)/.exec(l)?.[1]));
    expect(numbers.at(-1)).toBe(total - 1);
    numbers.forEach((n, i) => expect(n).toBe(numbers[0]! + i));
  });

  it("sets an existing host.log that others could read to 0600", () => {
    const dir = temp();
    mkdirSync(join(dir, "logs"));
    writeFileSync(hostLog(dir), "old line\n", { mode: 0o644 });
    chmodSync(hostLog(dir), 0o644);
    fileLogger(dir, { stderr: false }).info("new line");
    expect(statSync(hostLog(dir)).mode & 0o777).toBe(0o600);
    expect(lines(hostLog(dir))).toHaveLength(2);
  });

  it("counts the existing file at start, so a new process rotates a full host.log before appending", () => {
    const dir = temp();
    const first = fileLogger(dir, { stderr: false, maxBytes: 1_000, repeatLimit: false });
    for (let i = 0; i < 9; i++) first.info(`first process line ${"y".repeat(i)}`);
    const before = statSync(hostLog(dir)).size;
    expect(before).toBeLessThanOrEqual(1_000);
    const second = fileLogger(dir, { stderr: false, maxBytes: before + 10, repeatLimit: false });
    second.info("second process line");
    expect(lines(hostLog(dir))).toHaveLength(1);
    expect(statSync(hostLog(dir, ".1")).size).toBe(before);
  });
});
