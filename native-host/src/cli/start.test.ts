// `orchestrator start` in-process: builds both targets once (a fake vite records the calls), registers the native
// host only for the browsers on PATH, says what it changed, and is idempotent.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TestCli } from "./cli-test-kit.ts";
import { testCli } from "./cli-test-kit.ts";
import type { ExecFn } from "./context.ts";

let cli: TestCli;
afterEach(() => cli.cleanup());

/** A vite stand-in: records `--mode <target>` and writes the manifest a real build would. */
function fakeVite(outDir: string, builds: string[], code = 0): ExecFn {
  return (_file, args) => {
    const target = args[args.indexOf("--mode") + 1] ?? "?";
    builds.push(target);
    if (code === 0) {
      mkdirSync(path.join(outDir, target), { recursive: true });
      writeFileSync(path.join(outDir, target, "manifest.json"), "{}");
    }
    return Promise.resolve({ code, stdout: "", stderr: code === 0 ? "" : "vite: syntax error in x.ts" });
  };
}

/** A PATH directory holding executables with the given names. */
function binDir(home: string, names: readonly string[]): string {
  const dir = path.join(home, "bin");
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    writeFileSync(path.join(dir, name), "#!/bin/sh\n");
    chmodSync(path.join(dir, name), 0o755);
  }
  return dir;
}

/** A `start` on Linux with these browsers on PATH; a display only when `display` names one (`DISPLAY`). */
function setup(
  browsers: readonly string[],
  code = 0,
  opts: { display?: string; platform?: NodeJS.Platform } = {},
) {
  const builds: string[] = [];
  let outDir = "";
  cli = testCli({
    exec: (file, args) => fakeVite(outDir, builds, code)(file, args),
    invocation: "orch",
    ...(opts.platform ? { platform: opts.platform } : {}),
  });
  outDir = path.join(cli.home, "dist");
  Object.assign(cli.ctx.env, {
    ORCHESTRATOR_EXT_OUT_DIR: outDir,
    PATH: binDir(cli.home, browsers),
    ...(opts.display !== undefined ? { DISPLAY: opts.display } : {}),
  });
  return { builds, outDir };
}

describe("orchestrator start", () => {
  it("builds both targets, registers the browsers it finds and says what to do next", async () => {
    const { builds, outDir } = setup(["chromium", "firefox-esr"], 0, { display: ":0" });
    expect(await cli.run("start")).toBe(0);
    const out = cli.out.join("\n");
    expect(builds).toEqual(["chrome", "firefox"]);
    expect(out).toContain(`built     ${path.join(outDir, "chrome")}`);
    expect(out).toContain("Browsers found: chromium, firefox");
    expect(existsSync(path.join(cli.home, ".config/chromium/NativeMessagingHosts"))).toBe(true);
    expect(existsSync(path.join(cli.home, ".mozilla/native-messaging-hosts"))).toBe(true);
    expect(existsSync(path.join(cli.home, ".config/google-chrome"))).toBe(false);
    expect(out).toMatch(/created +chromium /);
    expect(out).toContain(`Load unpacked → ${path.join(outDir, "chrome")}`);
    expect(out).toContain("`orch serve`"); // not a terminal: the backend is not started here
    expect(out).not.toContain("No display");
  });

  it("without a display says so and gives the headless path instead of the desktop steps", async () => {
    const { outDir } = setup(["chromium"]);
    expect(cli.ctx.env.DISPLAY ?? cli.ctx.env.WAYLAND_DISPLAY).toBeUndefined();
    expect(await cli.run("start")).toBe(0);
    const out = cli.out.join("\n");
    expect(out).toContain("No display here (neither DISPLAY nor WAYLAND_DISPLAY is set)");
    expect(out).toContain("signed in to chatgpt.com");
    expect(out).toContain(
      `xvfb-run -a chromium --load-extension=${path.join(outDir, "chrome")} https://chatgpt.com/`,
    );
    expect(out).toMatch(/VNC/);
    expect(out).toMatch(/desktop machine.*`npm start`/);
    expect(out).toContain("docs/getting-started.md#no-display");
    expect(out).toContain("`orch connector`");
    expect(out).toContain("`orch doctor`");
    expect(out).not.toContain("Load unpacked");
    expect(out).not.toContain("chrome://extensions");
  });

  it("a Wayland session is a display; macOS always has one", async () => {
    setup(["chromium"]);
    cli.ctx.env.WAYLAND_DISPLAY = "wayland-0";
    expect(await cli.run("start", "--no-build")).toBe(0);
    expect(cli.out.join("\n")).toContain("Load unpacked");
    cli.cleanup();
    setup([], 0, { platform: "darwin" });
    expect(await cli.run("start", "--no-build")).toBe(0);
    expect(cli.out.join("\n")).not.toContain("No display");
  });

  it("is idempotent: a second run rebuilds nothing and changes no manifest", async () => {
    const { builds } = setup(["chromium"]);
    expect(await cli.run("start")).toBe(0);
    builds.length = 0;
    expect(await cli.run("start")).toBe(0);
    const out = cli.out.join("\n");
    expect(builds).toEqual([]);
    expect(out).toMatch(/unchanged .*chrome \(up to date\)/);
    expect(out).toMatch(/unchanged +chromium /);
    expect(out).not.toMatch(/^(created|updated|built)/m);
  });

  it("rebuilds after a source change is simulated by a missing build", async () => {
    const { builds, outDir } = setup(["chromium"]);
    expect(await cli.run("start")).toBe(0);
    builds.length = 0;
    writeFileSync(path.join(outDir, ".firefox.source-hash"), "stale");
    expect(await cli.run("start")).toBe(0);
    expect(builds).toEqual(["firefox"]);
  });

  it("registers every browser when none is found, and says so", async () => {
    setup([]);
    expect(await cli.run("start", "--no-build")).toBe(0);
    expect(cli.out.join("\n")).toContain("No browser found on PATH; registering the native host for all");
    expect(existsSync(path.join(cli.home, ".librewolf/native-messaging-hosts"))).toBe(true);
  });

  it("stops with the build's error when a build fails", async () => {
    setup(["chromium"], 1);
    expect(await cli.run("start")).toBe(1);
    expect(cli.err.join("\n")).toContain("building the chrome extension failed");
    expect(cli.err.join("\n")).toContain("vite: syntax error");
  });

  it("refuses unknown options with the usage", async () => {
    setup([]);
    expect(await cli.run("start", "--bogus")).toBe(64);
    expect(cli.err.join("\n")).toContain("orchestrator start [--no-build]");
  });
});
