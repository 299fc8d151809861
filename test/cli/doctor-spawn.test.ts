// `orchestrator doctor` as a user runs it: the spawned CLI over a temp HOME, a real backend (`orchestrator serve`)
// holding the MCP port, and a plain HTTP server standing for another program on that port.
import { type ChildProcess, execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../native-host/src/cli/cli-test-kit.ts";
import { exited, spawnServe } from "../host/host-harness.ts";
import { waitFor } from "../wait-for.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = path.join(ROOT, "bin", "orchestrator.js");

interface Check {
  name: string;
  status: string;
  message: string;
  fix?: string;
}
interface Report {
  ok: boolean;
  dataDir: string;
  checks: Check[];
  summary: { ok: number; warn: number; fail: number; skip: number };
}

const base = mkdtempSync(path.join(tmpdir(), "orchestrator-doctor-"));
let serve: ChildProcess | undefined;
let other: Server | undefined;
afterEach(async () => {
  if (serve) {
    serve.kill("SIGTERM");
    await exited(serve);
  }
  serve = undefined;
  if (other) await new Promise((resolve) => other?.close(resolve));
  other = undefined;
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

let homes = 0;
function tempHome(): string {
  const home = path.join(base, `home-${++homes}`);
  mkdirSync(home);
  return home;
}

/** Runs the CLI with only these variables (no ORCHESTRATOR_* of the test runner leaks in). */
function run(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, cwd: ROOT }, (error, stdout, stderr) => {
      resolve({
        code: error === null ? 0 : typeof error.code === "number" ? error.code : -1,
        stdout,
        stderr,
      });
    });
  });
}

async function doctorJson(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; report: Report; check: (name: string) => Check | undefined }> {
  const result = await run(env, "doctor", "--json", ...args);
  expect(result.stderr).toBe("");
  const report = JSON.parse(result.stdout) as Report;
  return { code: result.code, report, check: (name) => report.checks.find((c) => c.name === name) };
}

function writeConfig(dataDir: string, port: number, token = "cd".repeat(32)): void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "config.json");
  writeFileSync(file, JSON.stringify({ port, token }), { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Starts a real backend for `dataDir` on a free port; resolves with that port once it serves MCP. */
async function startBackend(dataDir: string): Promise<number> {
  serve = spawnServe(dataDir);
  const url = await waitFor(
    () => {
      try {
        const status = JSON.parse(readFileSync(path.join(dataDir, "status.json"), "utf8")) as {
          mcpUrl: string | null;
        };
        return status.mcpUrl ?? undefined;
      } catch {
        return undefined; // not written yet
      }
    },
    "the backend's MCP URL in status.json",
    30_000,
    50,
  );
  return Number(new URL(url).port);
}

describe("orchestrator doctor, spawned", () => {
  it("passes every check right after install, before the backend ever ran", async () => {
    const home = tempHome();
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      ORCHESTRATOR_HOME: path.join(home, "data"),
      // The port the backend will use: a free one, so nothing else on this machine can hold it.
      ORCHESTRATOR_MCP_PORT: String(await freePort()),
    };
    const install = await run(env, "install");
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);

    const text = await run(env, "doctor");
    expect(text.code, text.stdout).toBe(0);
    expect(text.stdout).not.toMatch(/^(WARN|FAIL) /m);
    expect(text.stdout.trimEnd().split("\n").at(-1)).toMatch(/^All checks passed( \(\d+ skipped: .*\))?\.$/);

    const { code, report, check } = await doctorJson(env);
    expect(code).toBe(0);
    expect(report.summary).toMatchObject({ warn: 0, fail: 0 });
    expect(check("config")?.status).toBe("SKIP");
    expect(check("executor")?.status).toBe("SKIP");
    expect(check("mcp")).toMatchObject({
      status: "OK",
      message: `port ${env.ORCHESTRATOR_MCP_PORT} is free for the backend (none is running; it starts when the extension connects, or with npx orchestrator serve)`,
    });
  }, 60_000);

  it("fails for a browser found on PATH without a manifest, and skips one that is not there", async () => {
    const home = tempHome();
    const bin = path.join(home, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "chromium"), "#!/bin/sh\n", { mode: 0o755 });
    const env = { PATH: bin, HOME: home, ORCHESTRATOR_HOME: path.join(home, "data") };
    expect((await run(env, "install", "--browser", "firefox")).code).toBe(0);

    let { code, check } = await doctorJson(env);
    expect(check("manifest:chromium")).toMatchObject({
      status: "FAIL",
      message: `chromium is installed (${path.join(bin, "chromium")}) but has no native host manifest at ${path.join(home, ".config", "chromium", "NativeMessagingHosts", "com.chatgpt_orchestrator.host.json")}, so it cannot start the host`,
      fix: "npx orchestrator install --browser chromium",
    });
    expect(check("manifest:chrome")?.status).toBe("SKIP");
    expect(code).toBe(1);

    rmSync(path.join(bin, "chromium"));
    ({ code, check } = await doctorJson(env));
    expect(check("manifest:chromium")).toMatchObject({
      status: "SKIP",
      message: matching(/^chromium is not installed \(looked for chromium, chromium-browser on PATH\)/),
    });
    expect(code).toBe(0);
  }, 60_000);

  it("authenticates to the running backend, and notices when it refuses the token in config.json", async () => {
    const home = tempHome();
    const dataDir = path.join(home, "data");
    const env = { PATH: process.env.PATH, HOME: home, ORCHESTRATOR_HOME: dataDir };
    const port = await startBackend(dataDir);
    expect((await run(env, "install")).code).toBe(0);

    const first = await doctorJson(env);
    let { code, check } = first;
    expect(check("owner")).toMatchObject({ status: "OK", message: containing(`pid ${serve?.pid}`) });
    expect(check("mcp")).toMatchObject({
      status: "OK",
      message: `this data directory's MCP server answers on http://127.0.0.1:${port}/mcp and accepts its token`,
    });
    // The backend runs, but no browser extension has connected: tools that need a tab would wait.
    expect(check("executor")?.status).toBe("WARN");
    expect(first.report.summary).toMatchObject({ warn: 1, fail: 0 });
    expect(code).toBe(0);

    // The token in config.json changed by hand while the backend runs: the server still wants the old one.
    writeConfig(dataDir, port);
    ({ code, check } = await doctorJson(env));
    expect(check("mcp")).toMatchObject({
      status: "FAIL",
      message: `this data directory's backend (pid ${serve?.pid}) on http://127.0.0.1:${port}/mcp refuses the token in config.json: the token was changed after the backend started`,
      fix: "restart the backend: restart the browser, or stop and rerun npx orchestrator serve, so it reads config.json again",
    });
    expect(code).toBe(1);
  }, 60_000);

  it("fails when another data directory's backend holds the port, and names it when the browsers' launcher does", async () => {
    const home = tempHome();
    const theirs = path.join(home, "theirs");
    const mine = path.join(home, "mine");
    const port = await startBackend(theirs);
    const env = { PATH: process.env.PATH, HOME: home, ORCHESTRATOR_HOME: mine };
    writeConfig(mine, port);

    let { code, check } = await doctorJson(env);
    expect(check("owner")?.message).toContain("no backend has run with this data directory yet");
    expect(check("mcp")).toMatchObject({
      status: "FAIL",
      message: `a ChatGPT Orchestrator backend on port ${port} refuses this data directory's token: most likely another data directory's backend (ORCHESTRATOR_HOME differs), or the token was changed after it started`,
      fix: `stop that backend, or give this data directory another port: set ORCHESTRATOR_MCP_PORT or "port" in ${path.join(mine, "config.json")}`,
    });
    expect(code).toBe(1);

    // The browsers' manifests run a launcher for the other data directory: doctor tries its token and names it.
    expect((await run({ ...env, ORCHESTRATOR_HOME: theirs }, "install", "--browser", "firefox")).code).toBe(
      0,
    );
    ({ code, check } = await doctorJson(env));
    expect(check("mcp")).toMatchObject({
      status: "FAIL",
      message: `the backend of another data directory, ${theirs} (its server accepts that directory's token), holds port ${port}`,
      fix: containing(`use its data directory (ORCHESTRATOR_HOME=${theirs})`),
    });
    expect(code).toBe(1);

    // Before this data directory's first start (no config.json) the port it would use is checked the same way.
    rmSync(path.join(mine, "config.json"));
    ({ code, check } = await doctorJson({ ...env, ORCHESTRATOR_MCP_PORT: String(port) }));
    expect(check("mcp")).toMatchObject({
      status: "FAIL",
      message: containing(`holds port ${port}, the port this data directory's backend would use`),
    });
    expect(code).toBe(1);
  }, 60_000);

  it("fails when another program holds the port, naming the port and how to move", async () => {
    const home = tempHome();
    const dataDir = path.join(home, "data");
    other = createServer((req, res) => {
      req.resume();
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
    });
    await new Promise<void>((resolve) => other?.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as AddressInfo).port;
    const env = { PATH: process.env.PATH, HOME: home, ORCHESTRATOR_HOME: dataDir };
    expect((await run(env, "install")).code).toBe(0);
    writeConfig(dataDir, port);

    const { code, check } = await doctorJson(env);
    expect(check("mcp")).toMatchObject({
      status: "FAIL",
      message: `another program holds port ${port} (it answered HTTP 404), so this data directory's backend cannot serve MCP there`,
      fix: `stop that program, or set ORCHESTRATOR_MCP_PORT or "port" in ${path.join(dataDir, "config.json")} to a free port, then restart the backend`,
    });
    expect(code).toBe(1);
  }, 60_000);
});

const containing = (s: string): string => expect.stringContaining(s) as string;
const matching = (r: RegExp): string => expect.stringMatching(r) as string;
