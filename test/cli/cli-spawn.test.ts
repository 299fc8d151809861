// Spawns the real `orchestrator` command (bin/orchestrator.js → tsx → the TypeScript CLI) in a temp HOME.
import { execFile } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_CHROME_EXTENSION_ID } from "../../shared/extension-ids.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = path.join(ROOT, "bin", "orchestrator.js");
/** The id the extension build pins (manifest `key`): doctor without --extension-id expects it. */
const CHROME_ID = DEFAULT_CHROME_EXTENSION_ID;
const HOST = "com.chatgpt_orchestrator.host";

const home = mkdtempSync(path.join(tmpdir(), "orchestrator-spawn-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/**
 * The child sees only this HOME: no ORCHESTRATOR_HOME or XDG_DATA_HOME leak in from the test runner. Port 0 keeps
 * doctor's MCP check off the default port, which something else on the machine may hold.
 */
function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, ORCHESTRATOR_MCP_PORT: "0" };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, cwd: home }, (error, stdout, stderr) => {
      resolve({
        code: error === null ? 0 : typeof error.code === "number" ? error.code : -1,
        stdout,
        stderr,
      });
    });
  });
}

describe("the orchestrator command", () => {
  it("lists doctor in its usage", async () => {
    const { code, stdout } = await run("help");
    expect(code).toBe(0);
    for (const name of [
      "start",
      "install",
      "uninstall",
      "serve",
      "status",
      "mcp",
      "connector",
      "doctor",
      "native-host",
    ]) {
      expect(stdout).toMatch(new RegExp(`^  ${name} `, "m"));
    }
  });

  it("installs into HOME's browser locations with a launcher in the default data directory, and doctor agrees", async () => {
    const install = await run("install", "--browser", "chromium,firefox", "--extension-id", CHROME_ID);
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);
    const dataDir = path.join(home, ".local", "share", "chatgpt-orchestrator");
    const launcher = path.join(dataDir, "bin", "native-host.sh");
    expect(/^created +launcher +(.+)$/m.exec(install.stdout)?.[1]).toBe(launcher);
    accessSync(launcher, constants.X_OK);
    expect(readFileSync(launcher, "utf8")).toContain(`exec '${process.execPath}' '${BIN}' native-host "$@"`);

    const chromium = JSON.parse(
      readFileSync(path.join(home, ".config", "chromium", "NativeMessagingHosts", `${HOST}.json`), "utf8"),
    ) as Record<string, unknown>;
    expect(chromium).toMatchObject({
      name: HOST,
      path: launcher,
      allowed_origins: [`chrome-extension://${CHROME_ID}/`],
    });
    const firefox = JSON.parse(
      readFileSync(path.join(home, ".mozilla", "native-messaging-hosts", `${HOST}.json`), "utf8"),
    ) as Record<string, unknown>;
    expect(firefox).toMatchObject({
      name: HOST,
      path: launcher,
      allowed_extensions: ["orchestrator@chatgpt-orchestrator.local"],
    });

    const doctor = await run("doctor", "--json", "--browser", "chromium,firefox");
    const report = JSON.parse(doctor.stdout) as {
      ok: boolean;
      dataDir: string;
      checks: { name: string; status: string }[];
    };
    expect(report.dataDir).toBe(dataDir);
    expect(report.checks.filter((c) => c.name.startsWith("manifest")).map((c) => c.status)).toEqual([
      "OK",
      "OK",
    ]);
    expect(report.ok).toBe(true);
    expect(doctor.code).toBe(0);
  });
});

describe("npm start (the README's first command) without a terminal, as in CI", () => {
  it("builds both extension targets for real, registers the host, and a second run changes nothing", async () => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: path.join(home, "start-home"),
      ORCHESTRATOR_HOME: path.join(home, "start-data"),
      ORCHESTRATOR_EXT_OUT_DIR: path.join(home, "start-dist"),
      CI: "true",
    };
    const start = () =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [BIN, "start"], { env, cwd: ROOT }, (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr }),
        );
      });
    const first = await start();
    expect(first.code, first.stderr).toBe(0);
    for (const target of ["chrome", "firefox"]) {
      const manifest = JSON.parse(
        readFileSync(path.join(home, "start-dist", target, "manifest.json"), "utf8"),
      ) as { manifest_version: number };
      expect(manifest.manifest_version).toBe(3);
      expect(first.stdout).toContain(`built     ${path.join(home, "start-dist", target)}`);
    }
    expect(first.stdout).toMatch(/^created +launcher /m);
    // The next steps (with or without a display) end with the doctor, as a command line that runs in a clone.
    expect(first.stdout).toContain("`npx orchestrator doctor`");
    const second = await start();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toMatch(/^(built|created|updated) /m);
    expect(second.stdout).toMatch(/^unchanged .*chrome \(up to date\)$/m);
  }, 180_000);
});
