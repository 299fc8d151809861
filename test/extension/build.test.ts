// The extension build (`vite build --mode chrome|firefox`): both targets build, reproducibly, with exactly the
// permissions we allow, the Chrome key pins the id the native host manifests allow, the icons are PNGs of the sizes
// the manifest names, and `web-ext lint` (offline) finds no error in the Firefox build.
import { execFile } from "node:child_process";
import { createHash, createPublicKey } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHROME_EXTENSION_ID, DEFAULT_FIREFOX_EXTENSION_ID } from "../../shared/extension-ids.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const VITE = path.join(ROOT, "node_modules/vite/bin/vite.js");
const WEB_EXT = path.join(ROOT, "node_modules/web-ext/bin/web-ext.js");

/** Why each one: docs/extension.md. Nothing else may appear. */
const PERMISSIONS = ["nativeMessaging", "alarms", "notifications"];
const HOST_PERMISSIONS = ["https://chatgpt.com/*"];
/** Lint warnings we accept (see docs/extension.md); any other warning, and any error, fails. */
const ACCEPTED_LINT_WARNINGS = new Set([
  "DANGEROUS_EVAL",
  "KEY_FIREFOX_ANDROID_UNSUPPORTED_BY_MIN_VERSION",
  // Preact's renderer supports `dangerouslySetInnerHTML`; the views never use it (checked below).
  "UNSAFE_VAR_ASSIGNMENT",
]);

/** The sizes the toolbar and the browser's pages need (docs/extension.md, "Icon and pinning"). */
const ICON_SIZES = ["16", "32", "48", "128"];

/** Width and height from a PNG's IHDR chunk, which the format puts first, right after the 8-byte signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  expect(bytes.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const out = mkdtempSync(path.join(tmpdir(), "orchestrator-ext-build-"));

async function build(mode: "chrome" | "firefox", outDir: string): Promise<void> {
  await run(process.execPath, [VITE, "build", "--mode", mode], {
    cwd: ROOT,
    env: { ...process.env, ORCHESTRATOR_EXT_OUT_DIR: outDir, NODE_ENV: "production" },
    timeout: 120_000,
  });
}

function manifest(target: string, base = out): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(base, target, "manifest.json"), "utf8")) as Record<
    string,
    unknown
  >;
}

function files(dir: string): Map<string, string> {
  const result = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else result.set(path.relative(dir, p), createHash("sha256").update(readFileSync(p)).digest("hex"));
    }
  };
  walk(dir);
  return result;
}

beforeAll(async () => {
  await build("chrome", out);
  await build("firefox", out);
}, 180_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("extension build", () => {
  it("builds an MV3 service worker for Chrome and background scripts for Firefox, with their content script", () => {
    const chrome = manifest("chrome");
    const firefox = manifest("firefox");
    expect(chrome).toMatchObject({
      manifest_version: 3,
      background: { service_worker: expect.any(String) as string },
    });
    expect(firefox).toMatchObject({
      manifest_version: 3,
      background: { scripts: [expect.any(String) as string] },
    });
    for (const [target, m] of [
      ["chrome", chrome],
      ["firefox", firefox],
    ] as const) {
      const scripts = m.content_scripts as { matches: string[]; js: string[]; all_frames?: boolean }[];
      expect(scripts).toEqual([expect.objectContaining({ matches: HOST_PERMISSIONS, all_frames: false })]);
      const entries = [
        ...scripts.flatMap((s) => s.js),
        ...((m.background as { scripts?: string[]; service_worker?: string }).scripts ?? []),
        (m.background as { service_worker?: string }).service_worker,
      ].filter((f): f is string => f !== undefined);
      for (const file of entries) expect(files(path.join(out, target)).has(file)).toBe(true);
      expect(m.version).toBe(
        (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version,
      );
      // No page of ours is reachable from the web, nor from other extensions.
      expect(m).not.toHaveProperty("web_accessible_resources");
      expect(m).not.toHaveProperty("externally_connectable");
    }
  });

  it("asks for exactly the allowed permissions and host access", () => {
    for (const target of ["chrome", "firefox"]) {
      const m = manifest(target);
      expect(m.permissions).toEqual(PERMISSIONS);
      expect(m.host_permissions).toEqual(HOST_PERMISSIONS);
      expect(m).not.toHaveProperty("optional_permissions");
      expect(m).not.toHaveProperty("optional_host_permissions");
    }
  });

  it("names a PNG icon of each size for the toolbar and the pages, each in the build at exactly that size", () => {
    for (const target of ["chrome", "firefox"]) {
      const m = manifest(target);
      const sets = {
        icons: m.icons as Record<string, string> | undefined,
        default_icon: (m.action as { default_icon?: Record<string, string> }).default_icon,
      };
      for (const [key, icons] of Object.entries(sets)) {
        expect(Object.keys(icons ?? {}).sort(), `${target} ${key}`).toEqual([...ICON_SIZES].sort());
        for (const [size, file] of Object.entries(icons!)) {
          const bytes = readFileSync(path.join(out, target, file));
          expect(pngSize(bytes), `${target} ${file}`).toEqual({ width: Number(size), height: Number(size) });
        }
      }
      // The extension pages' favicon is one of them, at a path the build has.
      for (const page of ["popup/popup.html", "dashboard/dashboard.html", "options/options.html"]) {
        const html = readFileSync(path.join(out, target, "extension", page), "utf8");
        const href = /<link rel="icon"[^>]*href="\/([^"]+)"/.exec(html)?.[1];
        expect(href, `${target} ${page}`).toBeDefined();
        expect(Object.values(sets.icons!)).toContain(href);
      }
    }
  });

  it("pins the Chrome id with the manifest key: the id the native host manifests allow", () => {
    const key = manifest("chrome").key;
    expect(typeof key).toBe("string");
    const der = Buffer.from(key as string, "base64");
    expect(createPublicKey({ key: der, format: "der", type: "spki" }).asymmetricKeyType).toBe("rsa");
    const id = createHash("sha256")
      .update(der)
      .digest("hex")
      .slice(0, 32)
      .replace(/[0-9a-f]/g, (c) => String.fromCharCode(97 + parseInt(c, 16)));
    expect(id).toBe(DEFAULT_CHROME_EXTENSION_ID);
    expect(readFileSync(path.join(ROOT, "manifests/extension/manifest.json"), "utf8")).not.toMatch(/PRIVATE/);
  });

  it("gives Firefox its fixed add-on id and no Chrome-only keys", () => {
    const m = manifest("firefox");
    expect(m.browser_specific_settings).toEqual({
      gecko: {
        id: DEFAULT_FIREFOX_EXTENSION_ID,
        strict_min_version: "140.0",
        data_collection_permissions: { required: ["none"] },
      },
    });
    expect(m).not.toHaveProperty("key");
    expect(m).not.toHaveProperty("minimum_chrome_version");
    expect(manifest("chrome")).not.toHaveProperty("browser_specific_settings");
  });

  it("is reproducible: a second build is byte for byte the same", async () => {
    const again = mkdtempSync(path.join(tmpdir(), "orchestrator-ext-build-"));
    try {
      await build("chrome", again);
      expect(files(path.join(again, "chrome"))).toEqual(files(path.join(out, "chrome")));
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  }, 120_000);

  it("the views never write HTML: no dangerouslySetInnerHTML or innerHTML in the UI sources", () => {
    const dirs = ["popup", "dashboard", "options", "ui", "content/overlay"].map((d) =>
      path.join(ROOT, "extension", d),
    );
    const sources = dirs.flatMap((d) =>
      readdirSync(d, { recursive: true, encoding: "utf8" })
        .filter((f) => /\.tsx?$/.test(f))
        .map((f) => path.join(d, f)),
    );
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources)
      expect(readFileSync(file, "utf8"), file).not.toMatch(/dangerouslySetInnerHTML|innerHTML|outerHTML/);
  });

  it("passes web-ext lint (offline) with no errors", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        WEB_EXT,
        "lint",
        "--source-dir",
        path.join(out, "firefox"),
        "--output",
        "json",
        "--no-input",
        "--no-config-discovery",
      ],
      { cwd: ROOT, env: { ...process.env, NO_UPDATE_NOTIFIER: "1" }, timeout: 120_000 },
    ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? "" }));
    const report = JSON.parse(stdout) as {
      errors: { code: string; message: string }[];
      warnings: { code: string; message: string }[];
    };
    expect(report.errors).toEqual([]);
    expect(report.warnings.filter((w) => !ACCEPTED_LINT_WARNINGS.has(w.code))).toEqual([]);
  }, 120_000);
});
