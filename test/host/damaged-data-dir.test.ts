// The real host executable on a damaged data directory: a bad snapshot or journal header is refused naming the file with
// both store files left as they were; a torn journal tail is cut with a warning and the host serves; a second owner exits.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { JOURNAL_FILE, SNAPSHOT_FILE } from "../../native-host/src/store/durable-store.ts";
import { JOURNAL_HEADER_BYTES } from "../../native-host/src/store/file-headers.ts";
import { journalRecordsEnd, writeAt } from "../store/helpers.ts";
import { waitFor } from "../wait-for.ts";
import { connectMcp, removeHome, spawnServe, tempHome, tool } from "./host-harness.ts";

const ROOT = join(import.meta.dirname, "..", "..");
/** How long a host may take to start and refuse, or to start and be ready (one start is ~0.7 s). */
const DEADLINE_MS = 10_000;

/** A spawned host whose output is collected; `done` is set once it exited and its pipes are drained. */
interface Host {
  readonly child: ChildProcess;
  readonly out: { stdout: string; stderr: string };
  done?: { code: number | null; signal: NodeJS.Signals | null };
}

function watch(child: ChildProcess): Host {
  const host: Host = { child, out: { stdout: "", stderr: "" } };
  child.stdout?.on("data", (c: Buffer) => (host.out.stdout += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (host.out.stderr += c.toString()));
  child.once("close", (code, signal) => (host.done = { code, signal }));
  return host;
}

function serve(home: string): Host {
  return watch(spawnServe(home));
}

/** What the browser launches; stdin stays open (as the browser's port) so only a refusal makes it exit. */
function nativeHost(home: string): Host {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin", "orchestrator.js"), "native-host", "chrome-extension://test/"],
    {
      cwd: ROOT,
      env: { ...process.env, ORCHESTRATOR_HOME: home, ORCHESTRATOR_MCP_PORT: "0" },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  return watch(child);
}

function exitOf(host: Host, what: string): Promise<NonNullable<Host["done"]>> {
  return waitFor(() => host.done, `${what} to exit`, DEADLINE_MS, 10);
}

function ready(host: Host): Promise<true> {
  return waitFor(
    () => {
      if (host.done)
        throw new Error(`the host exited early: ${JSON.stringify(host.done)}\n${host.out.stderr}`);
      return host.out.stdout.includes("Press Ctrl+C to stop.");
    },
    "`orchestrator serve` to be ready",
    DEADLINE_MS,
    10,
  );
}

async function stop(host: Host): Promise<void> {
  if (!host.done) host.child.kill("SIGTERM");
  const { code } = await exitOf(host, "the host after SIGTERM");
  expect(code, host.out.stderr).toBe(0);
}

/** Content hash, size and mtime of a file: "untouched" means all three are equal afterwards. */
function fingerprint(path: string): string {
  const { size, mtimeMs } = statSync(path);
  return `${createHash("sha256").update(readFileSync(path)).digest("hex")} ${size} ${mtimeMs}`;
}

function flipByte(path: string, offset: number): void {
  const bytes = readFileSync(path);
  bytes[offset] = bytes[offset]! ^ 0xff;
  writeFileSync(path, bytes);
}

function runNames(listed: unknown): string[] {
  return (listed as { runs: { name: string }[] }).runs.map((r) => r.name).sort();
}

describe("the host on a damaged data directory", () => {
  /**
   * Built once by the real host: a run committed before a clean stop (so it is in the snapshot), then a run committed
   * by a second life that is SIGKILLed (so it is only in the journal's records). Each test damages a copy.
   */
  let fixture: string;
  const homes: string[] = [];
  const running: Host[] = [];

  beforeAll(async () => {
    fixture = tempHome();
    const first = serve(fixture);
    await ready(first);
    const mcp1 = await connectMcp(fixture);
    await tool(mcp1, "run_create", { name: "in-snapshot" });
    await mcp1.close();
    await stop(first);
    expect(existsSync(join(fixture, SNAPSHOT_FILE))).toBe(true);

    const second = serve(fixture);
    await ready(second);
    // ready() means status.json already names this life's MCP URL (it is written before the banner).
    const mcp2 = await connectMcp(fixture);
    await tool(mcp2, "run_create", { name: "in-journal" });
    await mcp2.close();
    second.child.kill("SIGKILL");
    await exitOf(second, "the SIGKILLed host");
    expect(journalRecordsEnd(join(fixture, JOURNAL_FILE))).toBeGreaterThan(JOURNAL_HEADER_BYTES);
  }, 30_000);

  afterEach(async () => {
    for (const host of running.splice(0)) {
      if (!host.done) host.child.kill("SIGKILL");
      await exitOf(host, "a leftover host");
    }
    homes.splice(0).forEach(removeHome);
  });
  afterAll(() => removeHome(fixture));

  /** A fresh copy of the fixture, without the status file a dead owner left behind. */
  function copyFixture(): string {
    const home = tempHome();
    homes.push(home);
    cpSync(fixture, home, {
      recursive: true,
      filter: (src) => !["status.json", "owner.sock"].includes(src.slice(fixture.length + 1)),
    });
    return home;
  }

  describe.each([
    ["snapshot", SNAPSHOT_FILE, 20],
    ["journal", JOURNAL_FILE, 17],
  ] as const)("a damaged %s header", (what, file, offset) => {
    it.each([
      ["serve", serve],
      ["native-host", nativeHost],
    ] as const)(
      "makes `orchestrator %s` refuse to start, naming the file and leaving both store files untouched",
      async (command, start) => {
        const home = copyFixture();
        const damaged = join(home, file);
        flipByte(damaged, offset); // inside the header's checksummed bytes, as in test/store/bad-input.test.ts
        const store = [join(home, SNAPSHOT_FILE), join(home, JOURNAL_FILE)];
        const before = store.map(fingerprint);

        const host = start(home);
        running.push(host);
        const { code } = await exitOf(host, `orchestrator ${command} on a damaged ${what}`);
        expect(code, host.out.stderr).toBe(1);
        expect(host.out.stderr).toContain(
          `orchestrator ${command}: ${what} header of ${damaged} fails its checksum`,
        );
        // Also in the log, where a browser-launched host's reason can be found.
        expect(readFileSync(join(home, "logs", "host.log"), "utf8")).toContain(
          `WARN stopped: ${what} header of ${damaged} fails its checksum`,
        );
        expect(host.out.stdout).toBe("");
        expect(store.map(fingerprint)).toEqual(before);
      },
    );
  });

  it("cuts a torn journal tail with a warning naming the journal, then serves every committed run", async () => {
    const home = copyFixture();
    const journal = join(home, JOURNAL_FILE);
    const end = journalRecordsEnd(journal);
    // A record cut short over the preallocated zeros after the last one, as a crash mid-write leaves it.
    writeAt(journal, end, Buffer.from([200, 1, 0, 0, 1, 2, 3, 4, 123, 34]));

    const host = serve(home);
    running.push(host);
    await ready(host);
    const warning = `WARN journal ${journal}: cut a torn tail of 10 bytes at byte ${end}`;
    expect(host.out.stderr).toContain(warning);
    expect(readFileSync(join(home, "logs", "host.log"), "utf8")).toContain(warning);
    expect(journalRecordsEnd(journal)).toBe(end);

    const mcp = await connectMcp(home);
    expect(runNames(await tool(mcp, "run_list", {}))).toEqual(["in-journal", "in-snapshot"]);
    await mcp.close();
    await stop(host);
  });

  it("makes a second `orchestrator serve` on the same data directory exit with a clear error", async () => {
    const home = copyFixture();
    const first = serve(home);
    running.push(first);
    await ready(first);
    const owner = readFileSync(join(home, "owner.json"), "utf8");

    const second = serve(home);
    running.push(second);
    const { code } = await exitOf(second, "the second `orchestrator serve`");
    expect(code, second.out.stderr).toBe(1);
    // One line naming the data directory, the running backend's pid and the command that shows it.
    expect(second.out.stderr).toContain(
      `a backend already runs for ${home} (pid ${(JSON.parse(owner) as { pid: number }).pid}); see \`npx orchestrator status\``,
    );
    expect(second.out.stdout).toBe("");

    // The first owner is undisturbed: still the recorded owner, still serving.
    expect(readFileSync(join(home, "owner.json"), "utf8")).toBe(owner);
    expect(first.done).toBeUndefined();
    const mcp = await connectMcp(home);
    expect(runNames(await tool(mcp, "run_list", {}))).toEqual(["in-journal", "in-snapshot"]);
    await mcp.close();
    await stop(first);
  });
});
