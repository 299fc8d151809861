import { execFileSync } from "node:child_process";
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Browser } from "./browsers.ts";
import { BROWSERS, userManifestTarget } from "./browsers.ts";
import type { TestCli } from "./cli-test-kit.ts";
import { testCli } from "./cli-test-kit.ts";
import { directoryBytes, humanBytes } from "./data-dir-size.ts";
import {
  classifyExtensionId,
  DEFAULT_CHROME_EXTENSION_ID,
  DEFAULT_FIREFOX_EXTENSION_ID,
  NATIVE_HOST_NAME,
  parseNativeHostCaller,
} from "../../../shared/extension-ids.ts";
import { launcherScript, parseLauncher } from "./launcher.ts";

const CHROME_ID = "fcmjoongomnfgnfjblfnieeifpidloll";
const GECKO_ID = "tester@example.com";

const LINUX_LOCATIONS: Record<Browser, string> = {
  chrome: ".config/google-chrome/NativeMessagingHosts",
  chromium: ".config/chromium/NativeMessagingHosts",
  firefox: ".mozilla/native-messaging-hosts",
  librewolf: ".librewolf/native-messaging-hosts",
};

let cli: TestCli;
afterEach(() => cli.cleanup());

function manifestAt(dir: string): Record<string, unknown> {
  const text = readFileSync(path.join(dir, `${NATIVE_HOST_NAME}.json`), "utf8");
  return JSON.parse(text) as Record<string, unknown>;
}

function launcher(): string {
  return path.join(cli.dataDir, "bin", "native-host.sh");
}

describe("orchestrator install", () => {
  it.each(BROWSERS)(
    "writes the %s manifest under HOME with an absolute executable path and exact ids",
    async (b) => {
      cli = testCli();
      expect(
        await cli.run("install", "--browser", b, "--extension-id", CHROME_ID, "--extension-id", GECKO_ID),
      ).toBe(0);
      const manifest = manifestAt(path.join(cli.home, LINUX_LOCATIONS[b]));
      const chromium = b === "chrome" || b === "chromium";
      expect(manifest).toEqual({
        name: NATIVE_HOST_NAME,
        description: expect.any(String) as string,
        path: launcher(),
        type: "stdio",
        ...(chromium
          ? { allowed_origins: [`chrome-extension://${CHROME_ID}/`] }
          : { allowed_extensions: [GECKO_ID] }),
      });
      expect(path.isAbsolute(manifest.path as string)).toBe(true);
      expect(JSON.stringify(manifest)).not.toContain("*");
      accessSync(launcher(), constants.X_OK);
      expect(statSync(launcher()).mode & 0o777).toBe(0o755);
      // Only the chosen browser.
      for (const other of BROWSERS.filter((x) => x !== b)) {
        expect(existsSync(path.join(cli.home, LINUX_LOCATIONS[other]))).toBe(false);
      }
      expect(cli.out.join("\n")).toContain(`created   ${b}`);
    },
  );

  it("installs all browsers by default, Firefox with the default gecko id", async () => {
    cli = testCli();
    expect(await cli.run("install", "--extension-id", `chrome-extension://${CHROME_ID}/`)).toBe(0);
    for (const b of BROWSERS) expect(existsSync(path.join(cli.home, LINUX_LOCATIONS[b]))).toBe(true);
    expect(manifestAt(path.join(cli.home, LINUX_LOCATIONS.librewolf)).allowed_extensions).toEqual([
      DEFAULT_FIREFOX_EXTENSION_ID,
    ]);
    expect(cli.err).toEqual([]);
  });

  it("gives Chrome the id pinned by the extension's manifest key by default, without a warning", async () => {
    cli = testCli();
    expect(await cli.run("install", "--browser", "chromium")).toBe(0);
    expect(manifestAt(path.join(cli.home, LINUX_LOCATIONS.chromium)).allowed_origins).toEqual([
      `chrome-extension://${DEFAULT_CHROME_EXTENSION_ID}/`,
    ]);
    expect(cli.err).toEqual([]);
  });

  it("writes into <profile-dir>/NativeMessagingHosts for a Chromium --user-data-dir, and nothing under HOME", async () => {
    cli = testCli();
    const profile = path.join(cli.home, "udd");
    expect(await cli.run("install", "--profile-dir", "udd", "--extension-id", CHROME_ID)).toBe(0); // relative to cwd
    const manifest = manifestAt(path.join(profile, "NativeMessagingHosts"));
    expect(manifest.allowed_origins).toEqual([`chrome-extension://${CHROME_ID}/`]);
    expect(manifest.path).toBe(launcher());
    for (const b of BROWSERS) expect(existsSync(path.join(cli.home, LINUX_LOCATIONS[b]))).toBe(false);
    expect(cli.out.join("\n")).toContain("created   profile");
  });

  it("is idempotent: a second run reports unchanged, a changed id or mode reports updated", async () => {
    cli = testCli();
    const args = ["install", "--extension-id", CHROME_ID];
    expect(await cli.run(...args)).toBe(0);
    const before = readFileSync(
      path.join(cli.home, LINUX_LOCATIONS.chrome, `${NATIVE_HOST_NAME}.json`),
      "utf8",
    );
    expect(await cli.run(...args)).toBe(0);
    const lines = cli.out.filter((l) => /^\w+ +(launcher|chrome|chromium|firefox|librewolf) /.test(l));
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).toMatch(/^unchanged /);
    expect(
      readFileSync(path.join(cli.home, LINUX_LOCATIONS.chrome, `${NATIVE_HOST_NAME}.json`), "utf8"),
    ).toBe(before);

    chmodSync(launcher(), 0o644);
    expect(await cli.run("install", "--browser", "firefox", "--extension-id", GECKO_ID)).toBe(0);
    expect(cli.out.join("\n")).toMatch(/^updated +launcher /m);
    expect(cli.out.join("\n")).toMatch(/^updated +firefox /m);
    expect(statSync(launcher()).mode & 0o777).toBe(0o755);
  });

  it("tightens an existing data directory looser than 0700 and says so once", async () => {
    cli = testCli();
    mkdirSync(cli.dataDir, { mode: 0o755 });
    chmodSync(cli.dataDir, 0o755);
    expect(await cli.run("install", "--browser", "chrome", "--extension-id", CHROME_ID)).toBe(0);
    expect(statSync(cli.dataDir).mode & 0o777).toBe(0o700);
    expect(cli.err).toEqual([`warning: tightened ${cli.dataDir} from 0755 to 0700 (it holds the MCP token)`]);
    expect(await cli.run("install", "--browser", "chrome", "--extension-id", CHROME_ID)).toBe(0);
    expect(cli.err).toEqual([]);
  });

  it("--json reports what it wrote", async () => {
    cli = testCli();
    expect(await cli.run("install", "--browser", "firefox", "--json")).toBe(0);
    const report = JSON.parse(cli.out.join("\n")) as {
      launcher: { file: string; status: string };
      manifests: { label: string; file: string; status: string; allowed: string[] }[];
    };
    expect(report.launcher).toEqual({ file: launcher(), status: "created" });
    expect(report.manifests).toEqual([
      {
        label: "firefox",
        file: path.join(cli.home, LINUX_LOCATIONS.firefox, `${NATIVE_HOST_NAME}.json`),
        status: "created",
        allowed: [DEFAULT_FIREFOX_EXTENSION_ID],
      },
    ]);
  });

  it("rejects bad options with exit code 64", async () => {
    cli = testCli();
    expect(await cli.run("install", "--browser", "safari")).toBe(64);
    expect(cli.err.join("\n")).toContain("unknown browser 'safari'");
    expect(await cli.run("install", "--extension-id", "not an id")).toBe(64);
    expect(await cli.run("install", "--browser", "chrome", "--extension-id", GECKO_ID)).toBe(64);
    expect(cli.err.join("\n")).toContain("does not apply to --browser chrome");
    expect(await cli.run("install", "--browser", "firefox", "--profile-dir", "/tmp/x")).toBe(64);
    expect(await cli.run("install", "--bogus")).toBe(64);
    expect(existsSync(cli.dataDir)).toBe(false);
  });
});

describe("orchestrator uninstall", () => {
  it("removes the manifests it installed and says so; a second run finds nothing", async () => {
    cli = testCli();
    await cli.run("install", "--extension-id", CHROME_ID);
    expect(await cli.run("uninstall", "--browser", "chrome,firefox")).toBe(0);
    expect(cli.out).toEqual([
      expect.stringMatching(/^removed chrome +\S+google-chrome\S+\.json$/),
      expect.stringMatching(/^removed firefox +\S+\.mozilla\S+\.json$/),
      // No backend ran, so none is stopped; the data directory (the launcher's) stays, and the output says so.
      `Kept the data directory ${cli.dataDir} (${humanBytes(directoryBytes(cli.dataDir))}): your runs, workers, ` +
        "logs and the MCP token. Nothing in it was deleted.",
      `To remove it too: rm -rf '${cli.dataDir}'`,
    ]);
    expect(existsSync(path.join(cli.home, LINUX_LOCATIONS.chrome, `${NATIVE_HOST_NAME}.json`))).toBe(false);
    expect(existsSync(path.join(cli.home, LINUX_LOCATIONS.chromium, `${NATIVE_HOST_NAME}.json`))).toBe(true);
    expect(await cli.run("uninstall")).toBe(0);
    expect(cli.out.filter((l) => l.startsWith("removed"))).toHaveLength(2); // chromium, librewolf
    for (const b of BROWSERS) {
      expect(existsSync(path.join(cli.home, LINUX_LOCATIONS[b], `${NATIVE_HOST_NAME}.json`))).toBe(false);
    }
    expect(await cli.run("uninstall")).toBe(0);
    expect(cli.out.filter((l) => l.startsWith("removed"))).toEqual([]);
  });

  it("removes the profile-dir manifest", async () => {
    cli = testCli();
    const profile = path.join(cli.home, "udd");
    await cli.run("install", "--profile-dir", profile, "--extension-id", CHROME_ID);
    expect(await cli.run("uninstall", "--profile-dir", profile)).toBe(0);
    expect(existsSync(path.join(profile, "NativeMessagingHosts", `${NATIVE_HOST_NAME}.json`))).toBe(false);
  });
});

describe("the launcher", () => {
  it("runs `<node> <project>/bin/orchestrator.js native-host <args>` with ORCHESTRATOR_HOME exported", async () => {
    // A fake "node" records what the launcher ran; the data directory has a quote and a space in its name.
    cli = testCli();
    const record = path.join(cli.home, "record.txt");
    const fakeNode = path.join(cli.home, "fake node");
    writeFileSync(fakeNode, `#!/bin/sh\nprintf '%s\\n' "$ORCHESTRATOR_HOME" "$@" > '${record}'\n`, {
      mode: 0o755,
    });
    const dataDir = path.join(cli.home, "it's data");
    const odd = testCli({ nodePath: fakeNode, env: { HOME: cli.home, ORCHESTRATOR_HOME: dataDir } });
    try {
      expect(await odd.run("install", "--browser", "firefox")).toBe(0);
      const script = path.join(dataDir, "bin", "native-host.sh");
      execFileSync(script, ["/path/to/manifest.json", DEFAULT_FIREFOX_EXTENSION_ID], {
        env: { PATH: "/usr/bin:/bin" },
      });
      expect(readFileSync(record, "utf8").split("\n")).toEqual([
        dataDir,
        path.join(odd.ctx.projectRoot, "bin", "orchestrator.js"),
        "native-host",
        "/path/to/manifest.json",
        DEFAULT_FIREFOX_EXTENSION_ID,
        "",
      ]);
      expect(parseLauncher(readFileSync(script, "utf8"))).toEqual({
        node: fakeNode,
        entry: path.join(odd.ctx.projectRoot, "bin", "orchestrator.js"),
        dataDir,
      });
    } finally {
      odd.cleanup();
    }
  });

  it("round-trips through parseLauncher on both platforms", () => {
    const posix = {
      node: "/opt/node 22/bin/node",
      entry: "/home/o'neil/proj/bin/orchestrator.js",
      dataDir: "/d",
    };
    expect(parseLauncher(launcherScript(posix, "linux"))).toEqual(posix);
    const win = {
      node: "C:\\Program Files\\nodejs\\node.exe",
      entry: "C:\\Users\\me\\100%\\bin\\orchestrator.js",
      dataDir: "C:\\Users\\me\\AppData\\Local\\chatgpt-orchestrator",
    };
    const cmd = launcherScript(win, "win32");
    expect(cmd).toContain('"C:\\Users\\me\\100%%\\bin\\orchestrator.js" native-host %*');
    expect(parseLauncher(cmd)).toEqual(win);
    expect(parseLauncher("#!/bin/sh\nexec something-else\n")).toBeUndefined();
  });
});

describe("locations and ids", () => {
  it("uses the documented macOS locations", () => {
    const pe = { platform: "darwin" as const, env: { HOME: "/Users/me" } };
    const support = "/Users/me/Library/Application Support";
    expect(BROWSERS.map((b) => userManifestTarget(b, pe).file)).toEqual([
      `${support}/Google/Chrome/NativeMessagingHosts/${NATIVE_HOST_NAME}.json`,
      `${support}/Chromium/NativeMessagingHosts/${NATIVE_HOST_NAME}.json`,
      `${support}/Mozilla/NativeMessagingHosts/${NATIVE_HOST_NAME}.json`,
      `${support}/librewolf/NativeMessagingHosts/${NATIVE_HOST_NAME}.json`,
    ]);
  });

  it("host name follows Chrome's rules", () => {
    expect(NATIVE_HOST_NAME).toMatch(/^[a-z0-9_]+(\.[a-z0-9_]+)*$/);
  });

  it("classifies extension ids by form", () => {
    expect(classifyExtensionId(CHROME_ID)).toEqual({ family: "chromium", id: CHROME_ID });
    expect(classifyExtensionId(`chrome-extension://${CHROME_ID}/`)).toEqual({
      family: "chromium",
      id: CHROME_ID,
    });
    expect(classifyExtensionId(GECKO_ID)).toEqual({ family: "firefox", id: GECKO_ID });
    expect(classifyExtensionId("{12345678-1234-1234-1234-123456789abc}")?.family).toBe("firefox");
    expect(classifyExtensionId("chrome-extension://*/")).toBeUndefined();
    expect(classifyExtensionId("PLACEHOLDER")).toBeUndefined();
  });

  it("parses the caller from the host's argv", () => {
    expect(parseNativeHostCaller([`chrome-extension://${CHROME_ID}/`, "--parent-window=0"])).toEqual({
      family: "chromium",
      extensionId: CHROME_ID,
    });
    expect(parseNativeHostCaller(["/x/host.json", GECKO_ID])).toEqual({
      family: "firefox",
      extensionId: GECKO_ID,
      manifestPath: "/x/host.json",
    });
    expect(parseNativeHostCaller(["chrome-extension://evil/"])).toBeUndefined();
    expect(parseNativeHostCaller([])).toBeUndefined();
  });
});
