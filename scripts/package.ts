// `npm run package [-- --out DIR]`: the release artifacts in dist/package/ — the Chrome zip, the Firefox xpi (web-ext
// build, lint-checked), the native host as a runnable bundle with its manifests (a zip, and the same folder as an npm
// tarball that installs offline), the skill archive — plus SHA256SUMS. Every artifact carries the version of
// package.json; the run stops if any part disagrees. docs/install.md says how a user installs them.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, cp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { zipSync, type Zippable } from "fflate";
import { build } from "vite";
import { HOST_VERSION } from "../native-host/src/host/host-entry.ts";
import { ENTRY_MTIME, packageSkill } from "./package-skill.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const NAME = "chatgpt-orchestrator";
/** Docs shipped with the host (docs/ beside the bundle); links among them keep working, others do not exist there. */
const PACKAGED_DOCS = ["cli.md", "install.md", "troubleshooting.md"];

export interface PackageResult {
  readonly version: string;
  readonly outDir: string;
  readonly chromeZip: string;
  readonly firefoxXpi: string;
  /** The unpacked Firefox build that was zipped and linted. */
  readonly firefoxDir: string;
  readonly hostDir: string;
  readonly hostZip: string;
  /** The host folder packed by npm: `npm install -g <file>` gives the `orchestrator` command, offline. */
  readonly tarball: string;
  readonly skillZip: string;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** A zip of a folder's files at the archive root (or under `prefix/`), deterministic. */
async function zipFolder(dir: string, file: string, prefix = ""): Promise<void> {
  const files: Zippable = {};
  for (const rel of await filesUnder(dir)) {
    const mode = (await stat(path.join(dir, rel))).mode & 0o777;
    files[`${prefix}${rel.split(path.sep).join("/")}`] = [
      new Uint8Array(await readFile(path.join(dir, rel))),
      // Keep the executable bit of the launcher-facing bundle (unix permissions in the upper 16 bits).
      { mtime: ENTRY_MTIME, os: 3, attrs: ((0o100000 | mode) << 16) >>> 0 },
    ];
  }
  await writeFile(file, zipSync(files, { level: 9 }));
}

async function buildExtension(target: "chrome" | "firefox", outBase: string): Promise<string> {
  await run(process.execPath, [path.join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--mode", target], {
    cwd: ROOT,
    env: { ...process.env, ORCHESTRATOR_EXT_OUT_DIR: outBase, NODE_ENV: "production" },
    timeout: 180_000,
  });
  const dir = path.join(outBase, target);
  const manifest = JSON.parse(await readFile(path.join(dir, "manifest.json"), "utf8")) as { version: string };
  return manifest.version;
}

/** Platforms the host supports: fs-native-extensions' prebuilt binaries for these go into the host bundle. */
const ADDON_PLATFORMS = [
  "linux-x64",
  "linux-arm64",
  "darwin-x64",
  "darwin-arm64",
  "win32-x64",
  "win32-arm64",
];
/** fs-native-extensions and what it requires at run time to find its binary (all plain JavaScript). */
const FILE_LOCK_DEPS = [
  "require-addon",
  "which-runtime",
  "bare-addon-resolve",
  "bare-module-resolve",
  "bare-semver",
];

/**
 * The owner lock's addon (owner-lock.ts loads it with require()): it finds its binary relative to its own files, so it
 * ships as a package in node_modules/, not inlined, with only the prebuilt binaries of the supported platforms.
 */
async function copyFileLocks(dir: string): Promise<void> {
  const from = path.join(ROOT, "node_modules/fs-native-extensions");
  const to = path.join(dir, "node_modules/fs-native-extensions");
  for (const rel of ["package.json", "LICENSE", "index.js", "binding.js"])
    await cp(path.join(from, rel), path.join(to, rel));
  for (const platform of ADDON_PLATFORMS) {
    const rel = `prebuilds/${platform}/fs-native-extensions.node`;
    await cp(path.join(from, rel), path.join(to, rel));
  }
  for (const dep of FILE_LOCK_DEPS)
    await cp(path.join(ROOT, "node_modules", dep), path.join(dir, "node_modules", dep), {
      recursive: true,
      filter: (src) => !src.endsWith(".md") && !src.endsWith(".d.ts"),
    });
}

/** What the host bundle requires at run time: shipped in its node_modules/ (and bundled into the npm tarball). */
const RUNTIME_PACKAGES = ["sql.js", "fs-native-extensions"];

/**
 * The package.json of the host folder, which is also what `npm pack` packs: `bin` gives the `orchestrator` command,
 * and every dependency is in `bundleDependencies`, so `npm install -g` of the tarball fetches nothing (works offline).
 * `private` keeps it from being published to a registry by accident; installing from the file does not mind.
 */
async function hostPackageJson(version: string): Promise<string> {
  const dependencies: Record<string, string> = {};
  for (const name of RUNTIME_PACKAGES) {
    const pkg = JSON.parse(await readFile(path.join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    };
    dependencies[name] = pkg.version;
  }
  const manifest = {
    name: NAME,
    version,
    description:
      "ChatGPT Orchestrator: the `orchestrator` CLI and the native host its browser extension talks to.",
    license: "MIT",
    private: true,
    type: "module",
    bin: { orchestrator: "orchestrator.mjs" },
    engines: { node: ">=20.19" },
    dependencies,
    bundleDependencies: RUNTIME_PACKAGES,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The README of the host zip and tarball: the same commands as docs/install.md. */
function hostReadme(version: string): string {
  return [
    `ChatGPT Orchestrator native host ${version}`,
    "",
    "Needs Node.js 20.19 or newer. Install the npm tarball of the release (nothing is downloaded):",
    `  npm install -g ./${NAME}-${version}.tgz`,
    "  orchestrator install      (registers the host with your browsers; `orchestrator install --help`)",
    "  orchestrator doctor       (checks every link and says how to fix what is wrong)",
    "  orchestrator connector    (the MCP connector URL for ChatGPT)",
    "Or unpack the native-host zip where it can stay and run the same commands as `node orchestrator.mjs <command>`",
    "(e.g. `node orchestrator.mjs install`); rerun `install` if you move the folder.",
    "",
    "The browser starts the host itself; `orchestrator serve` runs it without a browser, `orchestrator status`",
    "shows it.",
    `The extension: unzip ${NAME}-chrome-${version}.zip and load it unpacked (chrome://extensions, Developer mode);`,
    "the Firefox xpi is not signed by Mozilla: Firefox loads it as a temporary add-on (about:debugging, gone after a",
    "restart), or for good in Developer Edition, Nightly or ESR with xpinstall.signatures.required set to false, or",
    "once you have signed it on addons.mozilla.org (web-ext sign --channel unlisted); release and Beta refuse it",
    "unsigned.",
    "",
    "Remove: `orchestrator uninstall`, then `npm uninstall -g chatgpt-orchestrator` (your data directory stays).",
    "",
  ].join("\n");
}

/**
 * The native host as one ESM bundle (node_modules inlined but sql.js, whose wasm it loads from beside itself, and
 * fs-native-extensions, whose native binary it loads from beside itself).
 */
async function buildHost(dir: string, version: string): Promise<void> {
  await build({
    configFile: false,
    root: ROOT,
    logLevel: "warn",
    build: {
      ssr: path.join(ROOT, "native-host/src/cli/bundle-entry.ts"),
      outDir: dir,
      emptyOutDir: true,
      target: "node20",
      minify: false,
      rollupOptions: {
        output: { entryFileNames: "orchestrator.mjs", chunkFileNames: "lib/[name].mjs", format: "es" },
      },
    },
    ssr: { noExternal: true, external: RUNTIME_PACKAGES, target: "node" },
  });
  // npm links `bin` files as they are: the entry needs a shebang and the executable bit to run as `orchestrator`.
  const entry = path.join(dir, "orchestrator.mjs");
  await writeFile(entry, `#!/usr/bin/env node\n${await readFile(entry, "utf8")}`);
  await chmod(entry, 0o755);
  const sqlJs = path.join(ROOT, "node_modules/sql.js");
  const sqlOut = path.join(dir, "node_modules/sql.js");
  await mkdir(path.join(sqlOut, "dist"), { recursive: true });
  for (const rel of ["package.json", "LICENSE", "dist/sql-wasm.js", "dist/sql-wasm.wasm"])
    await cp(path.join(sqlJs, rel), path.join(sqlOut, rel));
  await copyFileLocks(dir);
  // `install` fills these templates; the CLI finds them beside the bundle (bundle-entry.ts makes that the root).
  // It needs no extension build: the browser loads the extension from the Chrome zip or the Firefox xpi.
  await mkdir(path.join(dir, "manifests"), { recursive: true });
  for (const name of ["native-host.chromium.json", "native-host.firefox.json"])
    await cp(path.join(ROOT, "manifests", name), path.join(dir, "manifests", name));
  await writeFile(path.join(dir, "package.json"), await hostPackageJson(version));
  await writeFile(path.join(dir, "README.txt"), hostReadme(version));
  // The package says MIT; the licence text travels with it (npm pack includes LICENSE by name).
  await cp(path.join(ROOT, "LICENSE"), path.join(dir, "LICENSE"));
  // What the packaged CLI's --help and fixes point at: the command reference, installing, and doctor's fixes.
  for (const doc of PACKAGED_DOCS) await cp(path.join(ROOT, "docs", doc), path.join(dir, "docs", doc));
}

/**
 * `npm pack` of the host folder: npm's own packing (node_modules/ only as far as bundled, fixed timestamps), into
 * `<outDir>/chatgpt-orchestrator-<version>.tgz`. Runs the npm that runs this script (`npm run package`), else the
 * `npm` on PATH.
 */
async function packHost(hostDir: string, outDir: string): Promise<string> {
  const npmCli = process.env.npm_execpath;
  const [file, pre] =
    npmCli !== undefined && path.basename(npmCli) === "npm-cli.js"
      ? [process.execPath, [npmCli]]
      : ["npm", []];
  const { stdout } = await run(
    file,
    [...pre, "pack", hostDir, "--pack-destination", outDir, "--json", "--ignore-scripts", "--offline"],
    { cwd: outDir, timeout: 120_000 },
  );
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  if (packed === undefined) throw new Error(`npm pack printed no file: ${stdout}`);
  return path.join(outDir, packed.filename);
}

async function sha256(file: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(file))
    .digest("hex");
}

export async function packageAll(outDir: string): Promise<PackageResult> {
  const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  const version = pkg.version;
  if (HOST_VERSION !== version)
    throw new Error(`native host version ${HOST_VERSION} differs from package.json ${version}`);
  await rm(outDir, { recursive: true, force: true });
  const buildDir = path.join(outDir, "build");
  for (const target of ["chrome", "firefox"] as const) {
    const built = await buildExtension(target, buildDir);
    if (built !== version) throw new Error(`${target} manifest version ${built} differs from ${version}`);
  }

  const chromeZip = path.join(outDir, `${NAME}-chrome-${version}.zip`);
  await zipFolder(path.join(buildDir, "chrome"), chromeZip);

  const firefoxDir = path.join(buildDir, "firefox");
  const webExt = path.join(ROOT, "node_modules/web-ext/bin/web-ext.js");
  const xpiName = `${NAME}-firefox-${version}.xpi`;
  await run(
    process.execPath,
    [webExt, "build", "--source-dir", firefoxDir, "--artifacts-dir", outDir, "--filename", xpiName],
    { cwd: ROOT, timeout: 120_000 },
  );
  // Lint the exact folder that was packed; errors (exit 1) stop the run.
  await run(
    process.execPath,
    [webExt, "lint", "--source-dir", firefoxDir, "--no-input", "--no-config-discovery"],
    { cwd: ROOT, timeout: 120_000 },
  );

  const hostDir = path.join(outDir, "native-host");
  await buildHost(hostDir, version);
  const hostZip = path.join(outDir, `${NAME}-native-host-${version}.zip`);
  await zipFolder(hostDir, hostZip, `${NAME}-native-host-${version}/`);
  const tarball = await packHost(hostDir, outDir);
  if (path.basename(tarball) !== `${NAME}-${version}.tgz`) throw new Error(`npm pack wrote ${tarball}`);

  const skill = await packageSkill({ outDir });

  const artifacts = [chromeZip, path.join(outDir, xpiName), hostZip, tarball, skill.zipPath];
  const sums = await Promise.all(artifacts.map(async (f) => `${await sha256(f)}  ${path.basename(f)}`));
  await writeFile(path.join(outDir, "SHA256SUMS"), `${sums.join("\n")}\n`);
  return {
    version,
    outDir,
    chromeZip,
    firefoxXpi: path.join(outDir, xpiName),
    firefoxDir,
    hostDir,
    hostZip,
    tarball,
    skillZip: skill.zipPath,
  };
}

if (process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({ options: { out: { type: "string" } }, strict: true });
  const result = await packageAll(path.resolve(values.out ?? path.join(ROOT, "dist", "package")));
  for (const file of [result.chromeZip, result.firefoxXpi, result.hostZip, result.tarball, result.skillZip]) {
    const { size } = await stat(file);
    process.stdout.write(`${path.relative(process.cwd(), file)}  ${(size / 1024).toFixed(0)} KiB\n`);
  }
  process.stdout.write(`version ${result.version}; checksums in ${path.join(result.outDir, "SHA256SUMS")}\n`);
}
