import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TestCli } from "./cli-test-kit.ts";
import { freePort, testCli } from "./cli-test-kit.ts";
import type { Check } from "./doctor.ts";
import { DEFAULT_CHROME_EXTENSION_ID, NATIVE_HOST_NAME } from "../../../shared/extension-ids.ts";

/** The id the extension build pins (manifest `key`): doctor without --extension-id expects it. */
const CHROME_ID = DEFAULT_CHROME_EXTENSION_ID;
const DEAD_PID = 2_147_483_000;
const containing = (s: string): string => expect.stringContaining(s) as string;
const matching = (r: RegExp): string => expect.stringMatching(r) as string;

let cli: TestCli;
let server: Server | undefined;
afterEach(async () => {
  cli.cleanup();
  if (server) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

interface Report {
  ok: boolean;
  dataDir: string;
  checks: Check[];
  summary: { ok: number; warn: number; fail: number; skip: number };
}

async function doctorJson(
  ...args: string[]
): Promise<{ code: number; checks: Map<string, Check>; report: Report }> {
  const code = await cli.run("doctor", "--json", ...args);
  const report = JSON.parse(cli.out.join("\n")) as Report;
  expect(report.ok).toBe(code === 0);
  return { code, checks: new Map(report.checks.map((c) => [c.name, c])), report };
}

/** No browser is installed (the default of these tests: the context's PATH is empty). */
const noBrowser = (): undefined => undefined;

function chromeManifest(): string {
  return path.join(cli.home, ".config/google-chrome/NativeMessagingHosts", `${NATIVE_HOST_NAME}.json`);
}

function editManifest(file: string, edit: (m: Record<string, unknown>) => void): void {
  const manifest = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  edit(manifest);
  writeFileSync(file, JSON.stringify(manifest));
}

function writeConfig(port: number): void {
  mkdirSync(cli.dataDir, { recursive: true });
  const file = path.join(cli.dataDir, "config.json");
  writeFileSync(file, JSON.stringify({ port, token: "ab".repeat(32) }), { mode: 0o600 });
  chmodSync(file, 0o600);
}

async function listen(status: number): Promise<number> {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return (server?.address() as AddressInfo).port;
}

describe("orchestrator doctor", () => {
  it("fails before install and names the fix as the user runs this CLI", async () => {
    cli = testCli({ findBrowser: noBrowser });
    const { code, checks } = await doctorJson();
    expect(code).toBe(1);
    expect(checks.get("data-dir")).toMatchObject({
      status: "FAIL",
      fix: containing("npx orchestrator install (creates it)"),
    });
    expect(checks.get("manifests")).toMatchObject({ status: "FAIL", fix: "npx orchestrator install" });
    expect(checks.get("manifest:firefox")).toMatchObject({
      status: "SKIP",
      message: matching(/^firefox is not installed \(looked for firefox, firefox-esr on PATH\)/),
    });
    expect(checks.get("manifest:firefox")?.fix).toBeUndefined();
    expect(checks.get("executor")).toMatchObject({
      status: "SKIP",
      message: containing("no executor has connected yet"),
    });
  });

  it("names the install command of the packaged CLI in every fix", async () => {
    cli = testCli({ findBrowser: (b) => (b === "chromium" ? "/usr/bin/chromium" : undefined) });
    const packaged = testCli({
      findBrowser: (b) => (b === "chromium" ? "/usr/bin/chromium" : undefined),
      invocation: "node /opt/orchestrator.mjs",
    });
    try {
      expect(await packaged.run("doctor", "--json")).toBe(1);
      const report = JSON.parse(packaged.out.join("\n")) as Report;
      const fixes = report.checks.flatMap((c) => (c.fix?.includes("install") ? [c.fix] : []));
      expect(fixes.length).toBeGreaterThanOrEqual(3); // data-dir, manifest:chromium, manifests
      for (const fix of fixes) expect(fix).toMatch(/^node \/opt\/orchestrator\.mjs install/);
      expect(report.checks.find((c) => c.name === "manifest:chromium")?.fix).toBe(
        "node /opt/orchestrator.mjs install --browser chromium",
      );
    } finally {
      packaged.cleanup();
    }
  });

  it("fails for an installed browser without a manifest and skips one that is not installed", async () => {
    cli = testCli({ findBrowser: (b) => (b === "chromium" ? "/usr/bin/chromium" : undefined) });
    await cli.run("install", "--browser", "firefox");
    const first = await doctorJson();
    let { code, checks } = first;
    expect(checks.get("manifest:chromium")).toMatchObject({
      status: "FAIL",
      message: matching(
        /^chromium is installed \(\/usr\/bin\/chromium\) but has no native host manifest at /,
      ),
      fix: "npx orchestrator install --browser chromium",
    });
    expect(checks.get("manifest:chrome")?.status).toBe("SKIP");
    expect(checks.get("manifest:librewolf")?.status).toBe("SKIP");
    expect(checks.get("manifest:firefox")?.status).toBe("OK");
    // chrome, librewolf, config, executor, notifications
    expect(first.report.summary).toMatchObject({ warn: 0, fail: 1, skip: 5 });
    expect(code).toBe(1);

    await cli.run("install", "--browser", "chromium");
    ({ code, checks } = await doctorJson());
    expect(checks.get("manifest:chromium")?.status).toBe("OK");
    expect(code).toBe(0);

    // The text form counts SKIP apart and does not call it a warning.
    expect(await cli.run("doctor")).toBe(0);
    expect(cli.out).toContainEqual(expect.stringMatching(/^SKIP +manifest:chrome +chrome is not installed/));
    expect(cli.out.at(-1)).toBe("All checks passed (5 skipped: not applicable here).");
  });

  it("fails for a missing --profile-dir manifest: it was asked for by name", async () => {
    cli = testCli({ findBrowser: noBrowser });
    const { code, checks } = await doctorJson("--profile-dir", path.join(cli.home, "udd"));
    expect(checks.get("manifest:profile")).toMatchObject({
      status: "FAIL",
      fix: `npx orchestrator install --profile-dir ${path.join(cli.home, "udd")}`,
    });
    expect(code).toBe(1);
  });

  it("is OK after install, for every manifest, with exit code 0", async () => {
    cli = testCli();
    await cli.run("install", "--extension-id", CHROME_ID);
    writeConfig(await freePort());
    const { code, checks, report } = await doctorJson();
    expect(code).toBe(0);
    for (const name of [
      "node",
      "data-dir",
      "config",
      "manifest:chrome",
      "manifest:chromium",
      "manifest:firefox",
      "manifest:librewolf",
      "owner",
      "mcp",
      "storage",
    ]) {
      expect(checks.get(name)?.status, name).toBe("OK");
    }
    expect(checks.get("mcp")?.message).toMatch(/^port \d+ is free for the backend \(none is running/);
    expect(checks.get("executor")?.status).toBe("SKIP");
    expect(checks.get("notifications")?.status).toBe("SKIP");
    expect(checks.has("manifests")).toBe(false);
    expect(report.summary).toEqual({ ok: 10, warn: 0, fail: 0, skip: 2 });

    // The text form: one line per check, status first, and the verdict last.
    expect(await cli.run("doctor")).toBe(0);
    expect(cli.out).toContainEqual(
      expect.stringMatching(/^OK +manifest:chrome +\S+ allows chrome-extension:\/\//),
    );
    expect(cli.out.at(-1)).toBe("All checks passed (2 skipped: not applicable here).");
  });

  it("prints the documented --json shape", async () => {
    cli = testCli({ findBrowser: noBrowser });
    await cli.run("install", "--browser", "firefox");
    const { code, report } = await doctorJson();
    expect(Object.keys(report).sort()).toEqual(["checks", "dataDir", "ok", "summary"]);
    expect(report.dataDir).toBe(cli.dataDir);
    for (const check of report.checks) {
      expect(Object.keys(check).every((k) => ["name", "status", "message", "fix"].includes(k))).toBe(true);
      expect(["OK", "SKIP", "WARN", "FAIL"]).toContain(check.status);
    }
    const count = (s: string) => report.checks.filter((c) => c.status === s).length;
    expect(report.summary).toEqual({
      ok: count("OK"),
      warn: count("WARN"),
      fail: count("FAIL"),
      skip: count("SKIP"),
    });
    expect(code).toBe(0);
  });

  it("fails for a manifest whose path is missing, then is OK again after install", async () => {
    cli = testCli();
    await cli.run("install", "--browser", "chrome", "--extension-id", CHROME_ID);
    editManifest(chromeManifest(), (m) => (m.path = path.join(cli.home, "nowhere", "host.sh")));
    let { code, checks } = await doctorJson("--browser", "chrome");
    expect(code).toBe(1);
    expect(checks.get("manifest:chrome")).toMatchObject({
      status: "FAIL",
      message: containing("does not exist"),
      fix: "npx orchestrator install --browser chrome",
    });
    await cli.run("install", "--browser", "chrome", "--extension-id", CHROME_ID);
    ({ code, checks } = await doctorJson("--browser", "chrome"));
    expect(checks.get("manifest:chrome")?.status).toBe("OK");
    expect(code).toBe(0);
  });

  it("fails for a non-executable launcher, invalid JSON, a placeholder or wildcard id, and a wrong explicit id", async () => {
    cli = testCli();
    await cli.run("install", "--browser", "chrome", "--extension-id", CHROME_ID);
    const launcher = path.join(cli.dataDir, "bin", "native-host.sh");
    const failure = async (...args: string[]) =>
      (await doctorJson("--browser", "chrome", ...args)).checks.get("manifest:chrome");

    chmodSync(launcher, 0o644);
    expect(await failure()).toMatchObject({
      status: "FAIL",
      message: containing("not executable"),
    });
    chmodSync(launcher, 0o755);

    editManifest(chromeManifest(), (m) => (m.allowed_origins = ["chrome-extension://*/"]));
    expect(await failure()).toMatchObject({ status: "FAIL", message: containing("wildcard") });

    editManifest(chromeManifest(), (m) => (m.allowed_origins = ["chrome-extension://PLACEHOLDER/"]));
    expect(await failure()).toMatchObject({
      status: "FAIL",
      message: containing("placeholder"),
    });

    editManifest(chromeManifest(), (m) => (m.allowed_origins = [`chrome-extension://${CHROME_ID}/`]));
    expect(await failure("--extension-id", "a".repeat(32))).toMatchObject({
      status: "FAIL",
      fix: `npx orchestrator install --browser chrome --extension-id ${"a".repeat(32)}`,
    });
    expect((await failure())?.status).toBe("OK");

    writeFileSync(chromeManifest(), "{ not json");
    expect(await failure()).toMatchObject({
      status: "FAIL",
      message: containing("not valid JSON"),
    });
  });

  it("checks the --profile-dir manifest", async () => {
    cli = testCli();
    const profile = path.join(cli.home, "udd");
    await cli.run("install", "--profile-dir", profile, "--extension-id", CHROME_ID);
    const { code, checks } = await doctorJson("--profile-dir", profile);
    expect(checks.get("manifest:profile")?.status).toBe("OK");
    expect([...checks.keys()].filter((k) => k.startsWith("manifest"))).toEqual(["manifest:profile"]);
    expect(code).toBe(0);
  });

  it("checks config.json: not there yet, mode 0600 and valid content", async () => {
    cli = testCli();
    await cli.run("install", "--browser", "firefox");
    let { checks } = await doctorJson();
    expect(checks.get("config")).toMatchObject({
      status: "SKIP",
      message: containing("does not exist yet: the backend creates it"),
    });
    writeConfig(await freePort());
    const config = path.join(cli.dataDir, "config.json");
    chmodSync(config, 0o644);
    ({ checks } = await doctorJson());
    expect(checks.get("config")).toMatchObject({ status: "FAIL", fix: `chmod 600 ${config}` });
    writeFileSync(config, JSON.stringify({ port: "x" }));
    chmodSync(config, 0o600);
    ({ checks } = await doctorJson());
    expect(checks.get("config")?.status).toBe("FAIL");
    expect(checks.get("mcp")?.status).toBe("SKIP");
  });

  it("reports the owner from owner.json, and what holds the MCP port", async () => {
    cli = testCli();
    await cli.run("install", "--browser", "firefox");
    const port = await freePort();
    writeConfig(port);
    const owner = path.join(cli.dataDir, "owner.json");

    writeFileSync(
      owner,
      JSON.stringify({ pid: DEAD_PID, generation: 3, startedAt: "2026-01-01T00:00:00.000Z" }),
    );
    let { code, checks } = await doctorJson();
    expect(checks.get("owner")).toMatchObject({
      status: "OK",
      message: containing(`no backend running (the last one, pid ${DEAD_PID}, generation 3, has exited`),
    });
    expect(checks.get("mcp")).toMatchObject({ status: "OK", message: containing(`port ${port} is free`) });
    expect(code).toBe(0);

    // A live owner whose port does not answer is a failure.
    writeFileSync(
      owner,
      JSON.stringify({ pid: process.pid, generation: 4, startedAt: "2026-01-01T00:00:00.000Z" }),
    );
    ({ code, checks } = await doctorJson());
    expect(checks.get("owner")).toMatchObject({
      status: "OK",
      message: containing(`pid ${process.pid}`),
    });
    expect(checks.get("mcp")).toMatchObject({ status: "FAIL", message: containing("nothing listens") });
    expect(code).toBe(1);

    // Another program on the port, whatever it answers (even a 401 that is not our server's), is a failure.
    for (const status of [200, 401, 404]) {
      const other = await listen(status);
      writeConfig(other);
      ({ code, checks } = await doctorJson());
      expect(checks.get("mcp")).toMatchObject({
        status: "FAIL",
        message: containing(`another program holds port ${other}`),
        fix: containing(`set ORCHESTRATOR_MCP_PORT or "port" in ${path.join(cli.dataDir, "config.json")}`),
      });
      expect(code).toBe(1);
      await new Promise((resolve) => server?.close(resolve));
      server = undefined;
    }
  });

  it("reports the last executor contact from status.json (epoch ms or ISO), or that none has connected", async () => {
    cli = testCli();
    await cli.run("install", "--browser", "firefox");
    const status = path.join(cli.dataDir, "status.json");
    const ms = Date.now() - 5 * 60_000;
    const iso = new Date(ms).toISOString();
    writeFileSync(status, JSON.stringify({ pid: 1, lastExecutorContactAt: ms }));
    let { checks } = await doctorJson();
    expect(checks.get("executor")).toMatchObject({
      status: "OK",
      message: `last executor contact ${iso} (5 min ago)`,
    });
    writeFileSync(status, JSON.stringify({ lastExecutorContactAt: iso }));
    ({ checks } = await doctorJson());
    expect(checks.get("executor")?.message).toBe(`last executor contact ${iso} (5 min ago)`);
    writeFileSync(status, JSON.stringify({ pid: 1, lastExecutorContactAt: null }));
    ({ checks } = await doctorJson());
    expect(checks.get("executor")).toMatchObject({
      status: "SKIP",
      message: containing("no executor has connected yet"),
    });

    // While a backend runs, no connected extension is worth a warning: tools that need a tab wait.
    writeFileSync(
      path.join(cli.dataDir, "owner.json"),
      JSON.stringify({ pid: process.pid, generation: 1, startedAt: new Date().toISOString() }),
    );
    writeFileSync(status, JSON.stringify({ pid: process.pid, executors: [], lastExecutorContactAt: ms }));
    ({ checks } = await doctorJson());
    expect(checks.get("executor")).toMatchObject({
      status: "WARN",
      message: containing(`no browser extension is connected (last executor contact ${iso}`),
      fix: containing("extension enabled"),
    });
    writeFileSync(
      status,
      JSON.stringify({ pid: process.pid, executors: ["chrome"], lastExecutorContactAt: ms }),
    );
    ({ checks } = await doctorJson());
    expect(checks.get("executor")).toMatchObject({
      status: "OK",
      message: `1 executor(s) connected; last executor contact ${iso} (5 min ago)`,
    });
  });

  it("reports that the running backend cannot save changes, from status.json, and the disk's free space", async () => {
    cli = testCli();
    await cli.run("install", "--browser", "firefox");
    writeFileSync(
      path.join(cli.dataDir, "owner.json"),
      JSON.stringify({ pid: process.pid, generation: 1, startedAt: new Date().toISOString() }),
    );
    const status = path.join(cli.dataDir, "status.json");
    const message = `writing ${cli.dataDir}/store.journal failed: no space left on the device holding ${cli.dataDir}`;
    writeFileSync(status, JSON.stringify({ pid: process.pid, storage: { writable: false, message } }));
    let { checks } = await doctorJson();
    expect(checks.get("storage")).toMatchObject({
      status: "FAIL",
      message: `the backend cannot save changes: ${message}`,
      fix: containing("free space"),
    });
    writeFileSync(status, JSON.stringify({ pid: process.pid, storage: { writable: true } }));
    ({ checks } = await doctorJson());
    expect(checks.get("storage")).toMatchObject({
      status: "OK",
      message: containing(`MiB free on the disk holding ${cli.dataDir}`),
    });
  });
  it("checks the notification channels: none, invalid, and each channel's delivery as the running backend reports it", async () => {
    cli = testCli();
    await cli.run("install", "--browser", "firefox");
    const config = path.join(cli.dataDir, "config.json");
    const status = path.join(cli.dataDir, "status.json");
    const secrets = { topic: "orch-k7q2m9x4w8p3z6r1", token: "tk_notprintedanywhere" };
    const notifications = (channels: unknown[]) => ({
      port: 8765,
      token: "ab".repeat(32),
      notifications: { channels },
    });
    const writeNotifications = (value: unknown) =>
      writeFileSync(config, JSON.stringify(value), { mode: 0o600 });
    const phone = { id: "phone", name: "My phone", kind: "ntfy", enabled: true, ...secrets };
    const hook = {
      id: "hook",
      name: "Hook",
      kind: "webhook",
      enabled: false,
      url: "https://hooks.example.com/k/abcdef",
    };

    // No config.json, then one without `notifications`, then an empty list: nothing is configured.
    let { checks } = await doctorJson();
    expect(checks.get("notifications")).toMatchObject({
      status: "SKIP",
      message: containing("no notification channel"),
    });
    writeConfig(await freePort());
    ({ checks } = await doctorJson());
    expect(checks.get("notifications")?.status).toBe("SKIP");
    writeNotifications(notifications([]));
    ({ checks } = await doctorJson());
    expect(checks.get("notifications")?.status).toBe("SKIP");

    // Invalid: the field and the rule are named, the secrets given are not.
    writeNotifications(
      notifications([{ ...phone, token: undefined, kind: "telegram", botToken: secrets.token }]),
    );
    let { code, report } = await doctorJson();
    expect(report.checks.find((c) => c.name === "notifications")).toMatchObject({
      status: "FAIL",
      message: matching(/^"notifications" in .*config\.json is invalid: .*botToken/),
      fix: containing("Settings → Notifications"),
    });
    expect(code).toBe(1);
    expect(cli.out.join("\n")).not.toContain(secrets.token);

    // Valid, no backend running: the count, and where delivery status shows.
    writeNotifications(notifications([phone, hook]));
    ({ code, checks } = await doctorJson());
    expect(checks.get("notifications")).toMatchObject({
      status: "OK",
      message: "2 channel(s) configured, 1 enabled; delivery status shows while the backend runs",
    });
    expect(code).toBe(0);

    // A running backend whose last delivery to a channel failed: WARN with the error and the test command.
    writeFileSync(
      path.join(cli.dataDir, "owner.json"),
      JSON.stringify({ pid: process.pid, generation: 1, startedAt: new Date().toISOString() }),
    );
    const now = Date.now();
    const state = (over: object) => ({
      id: "phone",
      kind: "ntfy",
      name: "My phone",
      enabled: true,
      lastAttemptAt: now - 60_000,
      lastDeliveredAt: now - 3 * 3_600_000,
      lastError: null,
      pending: 0,
      ...over,
    });
    const hookState = {
      ...state({}),
      id: "hook",
      kind: "webhook",
      name: "Hook",
      enabled: false,
      lastError: "x",
    };
    writeFileSync(
      status,
      JSON.stringify({
        pid: process.pid,
        notifications: [
          state({ lastError: "the receiver answered HTTP 401: unauthorized", pending: 2 }),
          hookState,
        ],
      }),
    );
    ({ code, report } = await doctorJson());
    expect(report.checks.find((c) => c.name === "notifications")).toEqual({
      name: "notifications",
      status: "WARN",
      message:
        `My phone (ntfy): failing (last attempt ${new Date(now - 60_000).toISOString()} (1 min ago), ` +
        `last delivered ${new Date(now - 3 * 3_600_000).toISOString()} (3 h ago), 2 waiting): ` +
        "the receiver answered HTTP 401: unauthorized",
      fix: containing("npx orchestrator notify test --channel phone (sends one now"),
    });
    // (The exit code is 1 here for the mcp check: this test process stands for the backend and serves no MCP.)
    expect(report.checks.filter((c) => c.status === "FAIL").map((c) => c.name)).toEqual(["mcp"]);
    await cli.run("doctor");
    expect(cli.out).toContainEqual(matching(/^WARN +notifications +My phone \(ntfy\): failing/));
    for (const secret of Object.values(secrets)) expect(cli.out.join("\n")).not.toContain(secret);

    // Delivered since: OK, each channel with its last delivery (a disabled one's old error is no concern).
    writeFileSync(
      status,
      JSON.stringify({
        pid: process.pid,
        notifications: [state({ lastDeliveredAt: now - 5_000 }), hookState],
      }),
    );
    ({ checks } = await doctorJson());
    expect(checks.get("notifications")).toMatchObject({
      status: "OK",
      message: `My phone (ntfy): last delivered ${new Date(now - 5_000).toISOString()} (5 s ago); Hook (webhook): disabled`,
    });

    // A status.json of a backend that reports no channels yet (an older one).
    writeFileSync(status, JSON.stringify({ pid: process.pid }));
    ({ checks } = await doctorJson());
    expect(checks.get("notifications")).toMatchObject({
      status: "OK",
      message: containing("this backend reports no delivery status"),
    });
  });
});
