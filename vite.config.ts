// Root Vite/Vitest configuration: the test run, and the extension build (`vite build --mode chrome|firefox`,
// output in dist/<browser>/, or $ORCHESTRATOR_EXT_OUT_DIR/<browser>/ when set). See docs/extension.md.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import webExtension from "vite-plugin-web-extension";
import { defineConfig } from "vitest/config";
import { DEFAULT_FIREFOX_EXTENSION_ID } from "./shared/extension-ids.ts";

const root = import.meta.dirname;
const TARGETS = ["chrome", "firefox"] as const;
type Target = (typeof TARGETS)[number];

/** The manifest template with `{{VERSION}}` and `{{FIREFOX_EXTENSION_ID}}` filled; `{{chrome}}.`/`{{firefox}}.`
 * key prefixes are left to the plugin, which keeps the keys of the target browser only. */
function extensionManifest(): Record<string, unknown> {
  const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as { version: string };
  const template = readFileSync(resolve(root, "manifests/extension/manifest.json"), "utf8");
  const values: Record<string, string> = {
    VERSION: pkg.version,
    FIREFOX_EXTENSION_ID: DEFAULT_FIREFOX_EXTENSION_ID,
  };
  return JSON.parse(template, (_key, value: unknown) =>
    typeof value === "string"
      ? value.replace(/\{\{([A-Z_]+)\}\}/g, (m, name: string) => values[name] ?? m)
      : value,
  ) as Record<string, unknown>;
}

export default defineConfig(({ command, mode }) => {
  // The Vitest projects (CONTRIBUTING.md says which to run when): `unit` and `unit-dom` need no browser and spawn no
  // host (`npm run test:unit` runs both); `host` drives the host as a spawned process, the store on disk, MCP over HTTP
  // and the packaged build; `e2e` drives Debian's Chromium and Firefox with the built extension. `npm test` runs all.
  const projects = [
    {
      extends: true as const,
      test: {
        name: "unit",
        include: [
          "native-host/**/*.test.ts",
          "shared/**/*.test.ts",
          "test/docs/**/*.test.ts",
          "test/tooling/**/*.test.ts",
        ],
        // The fast loop: these files are plain Node and leave no global state behind, so one module graph per thread is
        // safe and saves a third of the run. The DOM files below keep their isolation (happy-dom, IndexedDB fakes).
        pool: "threads" as const,
        isolate: false,
      },
    },
    {
      extends: true as const,
      test: {
        name: "unit-dom",
        include: ["extension/**/*.test.ts", "test/extension/**/*.test.{ts,tsx}"],
        exclude: ["test/extension/build.test.ts"],
        pool: "threads" as const,
      },
    },
    {
      extends: true as const,
      test: {
        name: "host",
        include: [
          "test/host/**/*.test.ts",
          "test/store/**/*.test.ts",
          "test/mcp/**/*.test.ts",
          "test/cli/**/*.test.ts",
          "test/package/**/*.test.ts",
          "test/extension/build.test.ts",
        ],
      },
    },
    {
      extends: true as const,
      test: { name: "e2e", include: ["test/e2e/**/*.test.ts", "test/fake-chatgpt/**/*.test.ts"] },
    },
  ];
  const test = {
    projects,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks" as const,
    // Vitest's default is one worker fewer than the cores: a single worker on a 2-core CI machine, running every file
    // in turn. The end-to-end files spend most of their time waiting on browsers, timers and fixed "no prompt" windows,
    // so two files at a time nearly halve the run there (docs/e2e.md, "Timings").
    maxWorkers: Math.max(2, availableParallelism() - 1),
  };
  if (command !== "build") return { test };

  if (!TARGETS.includes(mode as Target))
    throw new Error(`build the extension with --mode chrome or --mode firefox (got "${mode}")`);
  const target = mode as Target;
  const outBase = process.env.ORCHESTRATOR_EXT_OUT_DIR ?? resolve(root, "dist");
  return {
    test,
    root,
    // Copied as is to the output root: the toolbar and page icons (extension/public/icons/, made by
    // scripts/make-icons.ts from extension/icons/icon.svg; docs/extension.md, "Icon and pinning").
    publicDir: resolve(root, "extension/public"),
    logLevel: "warn",
    build: {
      outDir: resolve(outBase, target),
      emptyOutDir: true,
      // Readable output is easier to review for a store and to debug in the browser; the bundle is small.
      minify: false,
      sourcemap: false,
      target: target === "chrome" ? "chrome120" : "firefox140",
    },
    plugins: [
      webExtension({
        browser: target,
        manifest: extensionManifest,
        disableAutoLaunch: true,
        // The dashboard is opened by the popup, not named in the manifest.
        additionalInputs: ["extension/dashboard/dashboard.html"],
        // Validation downloads a schema from the network; the build must work offline (docs/extension.md, "Build").
        skipManifestValidation: true,
        printSummary: false,
      }),
    ],
  };
});
