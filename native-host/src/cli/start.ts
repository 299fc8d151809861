// `orchestrator start` (what `npm start` runs): builds both extension targets, registers the native host with the
// browsers found on this machine, then starts the backend and, where a display exists, opens Chromium with the
// extension loaded (without one it prints the headless path). Idempotent: a second run rebuilds nothing that is up to
// date and says what it changed.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { readOwnerInfo } from "../store/owner-lock.ts";
import type { Browser } from "./browsers.ts";
import { BROWSERS, homeDir } from "./browsers.ts";
import type { CliContext } from "./context.ts";
import { commandLine, dataDirOf } from "./context.ts";
import { isPidAlive } from "./process-alive.ts";
import { install, resolveExtensionIds } from "./install.ts";

const TARGETS = ["chrome", "firefox"] as const;
/** What a build depends on; a change in any of these makes `start` rebuild. */
const BUILD_INPUTS = ["extension", "shared", "manifests/extension", "vite.config.ts", "package.json"];

/** Executable names per browser (Linux/macOS PATH lookup); the first found is the one `start` launches. */
const EXECUTABLES: Record<Browser, readonly string[]> = {
  chromium: ["chromium", "chromium-browser"],
  chrome: ["google-chrome", "google-chrome-stable"],
  firefox: ["firefox", "firefox-esr"],
  librewolf: ["librewolf"],
};
/** Where Debian keeps the real Chromium binary (its /usr/bin/chromium is a wrapper script that adds flags). */
const DEBIAN_CHROMIUM = "/usr/lib/chromium/chromium";
const MAC_APPS: Record<Browser, string> = {
  chromium: "/Applications/Chromium.app/Contents/MacOS/Chromium",
  chrome: "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  firefox: "/Applications/Firefox.app/Contents/MacOS/firefox",
  librewolf: "/Applications/LibreWolf.app/Contents/MacOS/librewolf",
};

export function extensionOutDir(ctx: CliContext): string {
  return ctx.env.ORCHESTRATOR_EXT_OUT_DIR ?? path.join(ctx.projectRoot, "dist");
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false; // absent or not executable: simply not this browser
  }
}

/** The browsers installed here, with the executable to launch. Windows: none detected (register all instead). */
export function findBrowsers(ctx: CliContext): Map<Browser, string> {
  const found = new Map<Browser, string>();
  if (ctx.platform === "win32") return found;
  const dirs = (ctx.env.PATH ?? "").split(path.delimiter).filter((d) => d !== "");
  for (const browser of BROWSERS) {
    if (ctx.platform === "darwin" && isExecutable(MAC_APPS[browser])) {
      found.set(browser, MAC_APPS[browser]);
      continue;
    }
    for (const name of EXECUTABLES[browser]) {
      const hit = dirs.map((d) => path.join(d, name)).find(isExecutable);
      if (hit !== undefined) {
        found.set(browser, browser === "chromium" && isExecutable(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : hit);
        break;
      }
    }
  }
  return found;
}

/** A hash over every build input's path and bytes: equal hashes mean the last build is still current. */
function sourceHash(root: string): string {
  const hash = createHash("sha256");
  for (const rel of BUILD_INPUTS) {
    const abs = path.join(root, rel);
    if (!existsSync(abs)) continue;
    const files = statSync(abs).isFile()
      ? [abs]
      : readdirSync(abs, { withFileTypes: true, recursive: true })
          .filter((e) => e.isFile())
          .map((e) => path.join(e.parentPath, e.name))
          .sort();
    for (const file of files) hash.update(path.relative(root, file)).update("\0").update(readFileSync(file));
  }
  return hash.digest("hex");
}

async function buildExtension(ctx: CliContext): Promise<boolean> {
  const out = extensionOutDir(ctx);
  const hash = sourceHash(ctx.projectRoot);
  const vite = path.join(ctx.projectRoot, "node_modules", "vite", "bin", "vite.js");
  for (const target of TARGETS) {
    const stampFile = path.join(out, `.${target}.source-hash`);
    const dir = path.join(out, target);
    const current =
      existsSync(path.join(dir, "manifest.json")) &&
      existsSync(stampFile) &&
      readFileSync(stampFile, "utf8") === hash;
    if (current) {
      ctx.out(`unchanged ${dir} (up to date)`);
      continue;
    }
    const config = path.join(ctx.projectRoot, "vite.config.ts");
    const result = await ctx.exec(ctx.nodePath, [
      vite,
      "build",
      ctx.projectRoot,
      "--config",
      config,
      "--mode",
      target,
    ]);
    if (result.code !== 0) {
      ctx.err(
        `orchestrator start: building the ${target} extension failed:\n${result.stderr || result.stdout}`,
      );
      return false;
    }
    mkdirSync(out, { recursive: true });
    writeFileSync(stampFile, hash);
    ctx.out(`built     ${dir}`);
  }
  return true;
}

function hasDisplay(ctx: CliContext): boolean {
  if (ctx.platform === "darwin" || ctx.platform === "win32") return true;
  return Boolean(ctx.env.DISPLAY || ctx.env.WAYLAND_DISPLAY);
}

function backendPid(dataDir: string): number | undefined {
  const owner = readOwnerInfo(dataDir);
  return owner !== undefined && isPidAlive(owner.pid) ? owner.pid : undefined;
}

/** Opens Chromium on chatgpt.com with the built extension, in a profile of its own whose host manifest we write. */
async function openChromium(ctx: CliContext, executable: string): Promise<void> {
  const profile = path.join(dataDirOf(ctx), "browser-profiles", "chromium");
  const report = await install(ctx, {
    browsers: ["chromium"],
    extensionIds: resolveExtensionIds(undefined, ["chromium"]),
    profileDir: profile,
  });
  for (const m of report.manifests) ctx.out(`${m.status.padEnd(9)} profile  ${m.file}`);
  const extension = path.join(extensionOutDir(ctx), "chrome");
  const child = spawn(
    executable,
    [
      `--user-data-dir=${profile}`,
      `--load-extension=${extension}`,
      `--disable-extensions-except=${extension}`,
      "--no-first-run",
      "--no-default-browser-check",
      "https://chatgpt.com/",
    ],
    { detached: true, stdio: "ignore", env: { ...ctx.env } },
  );
  child.on("error", (e) => ctx.err(`orchestrator start: could not open ${executable}: ${e.message}`));
  child.unref();
  ctx.out(`opened    ${executable} with ${extension} (profile ${profile})`);
}

function nextSteps(ctx: CliContext, opened: boolean): string[] {
  const out = extensionOutDir(ctx);
  const lines = ["", "Next:"];
  if (!opened) {
    lines.push(
      `  1. Load the extension: chrome://extensions → Developer mode → Load unpacked → ${path.join(out, "chrome")}`,
      `     (Firefox: about:debugging#/runtime/this-firefox → Load Temporary Add-on → ${path.join(out, "firefox", "manifest.json")})`,
    );
  }
  lines.push(
    `  ${opened ? 1 : 2}. Open a ChatGPT conversation and press "Keep this conversation going" in the toolbar popup,`,
    `     or connect ChatGPT to the MCP server: \`${commandLine(ctx, "connector")}\` prints the connector URL.`,
    `  ${opened ? 2 : 3}. \`${commandLine(ctx, "doctor")}\` checks every link and says how to fix what is broken.`,
    "  Guide: docs/getting-started.md",
  );
  return lines;
}

/**
 * Without a display there is no "Load unpacked" to click: the browser that keeps conversations going must still run
 * on this machine (the backend talks to it over native messaging, which never crosses machines) and be signed in to
 * chatgpt.com, so it runs under a virtual display, or the whole setup runs on a desktop instead.
 */
function headlessSteps(ctx: CliContext): string[] {
  const extension = path.join(extensionOutDir(ctx), "chrome");
  return [
    "",
    "No display here (neither DISPLAY nor WAYLAND_DISPLAY is set), so no browser was opened.",
    "The browser must run on this machine, next to the backend, and be signed in to chatgpt.com. Either:",
    "  a. Run Chromium here under a virtual display, with the built extension (the native host is registered above):",
    `       xvfb-run -a chromium --load-extension=${extension} https://chatgpt.com/`,
    "     (Debian: apt-get install -y chromium xvfb; as root add --no-sandbox). To sign in and watch it, reach the",
    "     display remotely: a VNC server on it (e.g. x11vnc), or log in with `ssh -X` and run `npm start` again:",
    "     with a forwarded display it opens Chromium itself.",
    "  b. Or run the whole setup on a desktop machine: clone there and run `npm start`; it opens the browser.",
    `  Then: "Keep this conversation going" in the toolbar popup, or \`${commandLine(ctx, "connector")}\` for MCP;`,
    `  \`${commandLine(ctx, "doctor")}\` checks every link.`,
    "  Guide: docs/getting-started.md#no-display",
  ];
}

export async function runStart(args: readonly string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      "no-build": { type: "boolean" },
      "no-browser": { type: "boolean" },
      "no-serve": { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  const dataDir = dataDirOf(ctx);
  ctx.out(`ChatGPT Orchestrator — data directory ${dataDir}`);

  if (values["no-build"] !== true && !(await buildExtension(ctx))) return 1;

  const found = findBrowsers(ctx);
  const browsers = found.size > 0 ? BROWSERS.filter((b) => found.has(b)) : [...BROWSERS];
  ctx.out(
    found.size > 0
      ? `Browsers found: ${browsers.join(", ")}`
      : `No browser found on PATH; registering the native host for all (${browsers.join(", ")}) under ${homeDir(ctx)}`,
  );
  const report = await install(ctx, { browsers, extensionIds: resolveExtensionIds(undefined, browsers) });
  ctx.out(`${report.launcher.status.padEnd(9)} launcher ${report.launcher.file}`);
  for (const m of report.manifests) ctx.out(`${m.status.padEnd(9)} ${m.label.padEnd(8)} ${m.file}`);

  const interactive = ctx.stdoutIsTTY === true && !ctx.env.CI;
  const chromium = found.get("chromium");
  const openBrowser =
    values["no-browser"] !== true && hasDisplay(ctx) && chromium !== undefined && interactive;
  const running = backendPid(dataDir);
  const serve = values["no-serve"] !== true && interactive && running === undefined;
  if (running !== undefined) ctx.out(`Backend already running (pid ${running}); not starting another.`);

  const steps = hasDisplay(ctx) ? nextSteps(ctx, openBrowser) : headlessSteps(ctx);
  if (!serve) {
    if (openBrowser) await openChromium(ctx, chromium);
    steps.forEach((l) => ctx.out(l));
    if (running === undefined)
      ctx.out(`\nStart the backend with \`${commandLine(ctx, "serve")}\` (npm start does so in a terminal).`);
    return 0;
  }
  steps.forEach((l) => ctx.out(l));
  ctx.out("");
  const { runServeCommand } = await import("./host-commands.ts");
  const serving = runServeCommand([], ctx);
  // Open the browser once this process owns the data directory, so the browser's host relays to it.
  if (openBrowser && (await ownerWithin(dataDir, 10_000))) await openChromium(ctx, chromium);
  return serving;
}

/** Waits (polling the owner file, at most `ms`) until a live backend owns the data directory. */
async function ownerWithin(dataDir: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (backendPid(dataDir) !== undefined) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
