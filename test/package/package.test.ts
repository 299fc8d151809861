// `npm run package`: every artifact carries package.json's version, the Firefox build is lint-clean, the Chrome
// zip, unpacked into Debian's headless Chromium, connects to the packaged native host (not the source tree's), and
// the npm tarball installs offline as an `orchestrator` command that works without the repository.
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { unzipSync } from "fflate";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHROME_EXTENSION_ID } from "../../shared/extension-ids.ts";
import { HOST_VERSION } from "../../native-host/src/host/host-entry.ts";
import { packageAll, type PackageResult } from "../../scripts/package.ts";
import { CHROMIUM, QUIET_CHROMIUM, waitFor } from "../e2e/harness.ts";
import { InstalledCli, installGlobally } from "./installed-cli.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
  .version;

const tmp = mkdtempSync(path.join(tmpdir(), "orchestrator-package-"));
let result: PackageResult;
beforeAll(async () => {
  result = await packageAll(path.join(tmp, "out"));
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function unzip(file: string, dir: string): void {
  for (const [name, bytes] of Object.entries(unzipSync(readFileSync(file)))) {
    if (name.endsWith("/")) continue;
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), bytes);
  }
}

describe("npm run package", () => {
  it("gives every artifact the version of package.json", () => {
    const entries = (file: string) => unzipSync(readFileSync(file));
    const manifestVersion = (file: string) =>
      (JSON.parse(Buffer.from(entries(file)["manifest.json"]!).toString("utf8")) as { version: string })
        .version;
    expect(HOST_VERSION).toBe(version);
    expect(manifestVersion(result.chromeZip)).toBe(version);
    expect(manifestVersion(result.firefoxXpi)).toBe(version);
    const hostPkg = entries(result.hostZip)[`chatgpt-orchestrator-native-host-${version}/package.json`];
    expect(JSON.parse(Buffer.from(hostPkg!).toString("utf8"))).toMatchObject({ version });
    // The owner lock's native addon, prebuilt for every platform the host supports.
    for (const platform of [
      "linux-x64",
      "linux-arm64",
      "darwin-x64",
      "darwin-arm64",
      "win32-x64",
      "win32-arm64",
    ])
      expect(Object.keys(entries(result.hostZip))).toContain(
        `chatgpt-orchestrator-native-host-${version}/node_modules/fs-native-extensions/prebuilds/${platform}/fs-native-extensions.node`,
      );
    // The host folder's README names the same commands as docs/install.md.
    const readme = Buffer.from(
      entries(result.hostZip)[`chatgpt-orchestrator-native-host-${version}/README.txt`]!,
    ).toString("utf8");
    for (const command of [
      `npm install -g ./chatgpt-orchestrator-${version}.tgz`,
      "orchestrator install",
      "orchestrator doctor",
    ])
      expect(readme).toContain(command);
    for (const file of ["LICENSE", "docs/cli.md", "docs/install.md", "docs/troubleshooting.md"])
      expect(Object.keys(entries(result.hostZip))).toContain(
        `chatgpt-orchestrator-native-host-${version}/${file}`,
      );
    expect(Object.keys(entries(result.skillZip))).toContain("durable-continuation-output/SKILL.md");
    const sums = readFileSync(path.join(result.outDir, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums).toHaveLength(5);
    expect(sums).toContainEqual(
      expect.stringMatching(new RegExp(`^[0-9a-f]{64}  chatgpt-orchestrator-${version}\\.tgz$`)),
    );
  });

  it("packs a Firefox build that web-ext lint finds no error in", async () => {
    const webExt = path.join(ROOT, "node_modules/web-ext/bin/web-ext.js");
    const { stdout } = await run(
      process.execPath,
      [
        webExt,
        "lint",
        "--source-dir",
        result.firefoxDir,
        "--output",
        "json",
        "--no-input",
        "--no-config-discovery",
      ],
      { cwd: ROOT, timeout: 120_000 },
    ).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
    const report = JSON.parse(stdout) as { errors: unknown[] };
    expect(report.errors).toEqual([]);
  }, 120_000);

  it("loads the Chrome zip in headless Chromium, which connects to the packaged native host", async () => {
    const ext = path.join(tmp, "chrome-unzipped");
    const profile = path.join(tmp, "profile");
    const host = path.join(result.hostDir, "orchestrator.mjs");
    const env = {
      PATH: process.env.PATH,
      HOME: path.join(tmp, "home"),
      ORCHESTRATOR_HOME: path.join(tmp, "data"),
      ORCHESTRATOR_MCP_PORT: "0",
    };
    unzip(result.chromeZip, ext);
    await run(process.execPath, [host, "install", "--profile-dir", profile], { env });
    const launcher = readFileSync(path.join(tmp, "data/bin/native-host.sh"), "utf8");
    expect(launcher).toContain(host); // the packaged bundle, not bin/orchestrator.js of the source tree

    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      env,
      args: [`--disable-extensions-except=${ext}`, `--load-extension=${ext}`, ...QUIET_CHROMIUM],
    });
    try {
      const prefix = `chrome-extension://${DEFAULT_CHROME_EXTENSION_ID}/`;
      if (!context.serviceWorkers().some((w) => w.url().startsWith(prefix)))
        await context.waitForEvent("serviceworker", { predicate: (w) => w.url().startsWith(prefix) });
      const executors = await waitFor(
        async () => {
          const { stdout } = await run(process.execPath, [host, "status", "--json"], { env });
          const status = JSON.parse(stdout) as { owner: unknown; executors: unknown[] };
          return status.owner !== null && status.executors.length > 0 ? status.executors : undefined;
        },
        "the packaged host to report a connected executor",
        30_000,
      );
      expect(executors).toHaveLength(1);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("installs the npm tarball offline as `orchestrator`, which runs without the repository", async () => {
    expect(path.basename(result.tarball)).toBe(`chatgpt-orchestrator-${version}.tgz`);
    const dir = path.join(tmp, "global");
    const bin = await installGlobally(result.tarball, dir);
    const installed = realpathSync(bin);
    expect(installed).toBe(
      path.join(realpathSync(dir), "prefix/lib/node_modules/chatgpt-orchestrator/orchestrator.mjs"),
    );
    const cli = new InstalledCli(bin, path.join(dir, "home"), path.join(dir, "data"), path.join(dir, "cwd"));
    for (const folder of [cli.home, cli.dataDir, cli.cwd])
      expect(path.relative(ROOT, folder)).toMatch(/^\.\./);

    const versionRun = await cli.run("--version");
    expect([versionRun.code, versionRun.stdout.trim()], versionRun.stderr).toEqual([0, version]);
    const help = await cli.run("help");
    expect(help.code, help.stderr).toBe(0);
    for (const name of ["install", "doctor", "serve", "status", "connector", "uninstall"])
      expect(help.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
    // `start` builds from a source tree the package does not have.
    expect(help.stdout).not.toMatch(/^ {2}start /m);

    const install = await cli.run("install", "--browser", "chromium");
    expect(install.code, install.stderr).toBe(0);
    const manifest = path.join(
      cli.home,
      ".config/chromium/NativeMessagingHosts/com.chatgpt_orchestrator.host.json",
    );
    expect(existsSync(manifest)).toBe(true);
    // The manifests/ templates were found beside the bundle, and the browser will launch the installed bundle.
    expect(readFileSync(path.join(cli.dataDir, "bin/native-host.sh"), "utf8")).toContain(installed);

    // Only the browser installed for: another one found on this machine without a manifest would FAIL.
    const doctor = await cli.run("doctor", "--json", "--browser", "chromium");
    expect(doctor.code, doctor.stderr).toBe(0);
    const report = JSON.parse(doctor.stdout) as { ok: boolean; checks: { name: string; status: string }[] };
    expect(report.ok).toBe(true);
    expect(report.checks).toContainEqual(
      expect.objectContaining({ name: "manifest:chromium", status: "OK" }),
    );

    const connector = await cli.run("connector", "--json");
    expect(connector.code, connector.stderr).toBe(0);
    expect(JSON.parse(connector.stdout)).toMatchObject({ stdio: { args: [installed, "mcp"] } });

    const serve = cli.spawn("serve");
    try {
      // Ready once `status` (a separate process) sees this backend as the owner, with its MCP server listening.
      await waitFor(
        async () => {
          const { code, stdout } = await cli.run("status", "--json");
          if (code !== 0) return false;
          const status = JSON.parse(stdout) as { owner: { pid: number } | null; mcpUrl: unknown };
          return status.owner?.pid === serve.child.pid && typeof status.mcpUrl === "string";
        },
        "`orchestrator status` to show the backend `orchestrator serve` started",
        20_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; serve printed: ${serve.output()}`);
      });
      const status = await cli.run("status");
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(`Backend: running (pid ${serve.child.pid})`);
    } finally {
      serve.child.kill("SIGTERM");
    }
    expect(await serve.exit, serve.output()).toBe(0);

    const uninstall = await cli.run("uninstall", "--yes");
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(existsSync(manifest)).toBe(false);
  }, 60_000);
});
