// `orchestrator install` / `uninstall`: the launcher script in the data directory and one native host manifest per
// browser (plus, on Windows, the HKCU registry key that points at it). Idempotent: unchanged files are not rewritten.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import type { Browser, ManifestTarget } from "./browsers.ts";
import { BROWSER_FAMILY, resolveTargets, UsageError } from "./browsers.ts";
import type { CliContext, ExecFn } from "./context.ts";
import { secureDataDir } from "../store/data-dir.ts";
import { cliEntry, dataDirOf } from "./context.ts";
import type { ExtensionFamily } from "../../../shared/extension-ids.ts";
import {
  chromeOrigin,
  classifyExtensionId,
  DEFAULT_CHROME_EXTENSION_ID,
  DEFAULT_FIREFOX_EXTENSION_ID,
  isChromeExtensionId,
} from "../../../shared/extension-ids.ts";
import { buildHostManifest, serializeManifest } from "./host-manifest.ts";
import { launcherPath, launcherScript } from "./launcher.ts";

export type WriteStatus = "created" | "updated" | "unchanged";
export type RemoveStatus = "removed" | "absent";

export interface ExtensionIds {
  readonly chromium: string;
  readonly firefox: string;
  /** Which of the two came from `--extension-id` rather than the defaults in extension-ids.ts. */
  readonly explicit: ReadonlySet<ExtensionFamily>;
}

/**
 * Applies `--extension-id` values (each classified as Chrome or Firefox by its form) over the defaults. An id of a
 * family `--browser` does not select is ignored, unless no given id applies at all (surely a mistake).
 */
export function resolveExtensionIds(
  values: readonly string[] | undefined,
  browsers: readonly Browser[],
): ExtensionIds {
  const ids: Record<ExtensionFamily, string> = {
    chromium: DEFAULT_CHROME_EXTENSION_ID,
    firefox: DEFAULT_FIREFOX_EXTENSION_ID,
  };
  const explicit = new Set<ExtensionFamily>();
  const given = values ?? [];
  for (const value of given) {
    const classified = classifyExtensionId(value);
    if (classified === undefined) {
      throw new UsageError(
        `--extension-id '${value}' is neither a Chrome extension id (32 letters a-p) nor a Firefox add-on id ` +
          "(name@domain or {uuid})",
      );
    }
    if (explicit.has(classified.family) && ids[classified.family] !== classified.id) {
      throw new UsageError(
        `two different ${classified.family === "chromium" ? "Chrome" : "Firefox"} ids given`,
      );
    }
    if (browsers.some((b) => BROWSER_FAMILY[b] === classified.family)) {
      ids[classified.family] = classified.id;
      explicit.add(classified.family);
    }
  }
  if (given.length > 0 && explicit.size === 0) {
    throw new UsageError(
      `--extension-id ${given.join(", ")} does not apply to --browser ${browsers.join(", ")} ` +
        "(Chrome/Chromium take a 32-letter id, Firefox/LibreWolf an add-on id like name@domain)",
    );
  }
  return { ...ids, explicit };
}

export interface InstallOptions {
  readonly browsers: readonly Browser[];
  readonly extensionIds: ExtensionIds;
  readonly profileDir?: string | undefined;
}

export interface ManifestOutcome {
  readonly label: ManifestTarget["label"];
  readonly file: string;
  readonly status: WriteStatus;
  /** What the manifest allows: `allowed_origins` or `allowed_extensions` entries. */
  readonly allowed: readonly string[];
  readonly registry?: { readonly key: string; readonly status: WriteStatus };
}

export interface InstallReport {
  readonly dataDir: string;
  readonly launcher: { readonly file: string; readonly status: WriteStatus };
  readonly manifests: readonly ManifestOutcome[];
  readonly warnings: readonly string[];
}

export async function install(ctx: CliContext, options: InstallOptions): Promise<InstallReport> {
  const targets = resolveTargets(options.browsers, options.profileDir, ctx);
  const dataDir = dataDirOf(ctx);
  // Owner-only like the host makes it; one left looser (0755) by an older install or by hand is tightened.
  const tightened = secureDataDir(dataDir, { platform: ctx.platform });

  const launcher = launcherPath(dataDir, ctx.platform);
  const launcherStatus = writeIfChanged(
    launcher,
    launcherScript({ node: ctx.nodePath, entry: cliEntry(ctx), dataDir }, ctx.platform),
    0o755,
  );

  const manifests: ManifestOutcome[] = [];
  for (const target of targets) {
    const extensionId = options.extensionIds[target.family];
    const manifest = buildHostManifest(ctx.projectRoot, target.family, { hostPath: launcher, extensionId });
    const status = writeIfChanged(target.file, serializeManifest(manifest), 0o644);
    const allowed = target.family === "chromium" ? [chromeOrigin(extensionId)] : [extensionId];
    const registry =
      target.registryKey === undefined
        ? undefined
        : {
            key: target.registryKey,
            status: await setRegistryDefault(ctx.exec, target.registryKey, target.file),
          };
    manifests.push({
      label: target.label,
      file: target.file,
      status,
      allowed,
      ...(registry ? { registry } : {}),
    });
  }

  const warnings: string[] = tightened ? [tightened] : [];
  const chromeTargets = targets.filter((t) => t.family === "chromium");
  if (chromeTargets.length > 0 && !isChromeExtensionId(options.extensionIds.chromium)) {
    warnings.push(
      `the default Chrome extension id is still a placeholder ('${options.extensionIds.chromium}'), which Chrome ` +
        "rejects: rerun with --extension-id <the id chrome://extensions shows for ChatGPT Orchestrator>",
    );
  }
  return { dataDir, launcher: { file: launcher, status: launcherStatus }, manifests, warnings };
}

export interface UninstallReport {
  readonly manifests: readonly {
    readonly label: ManifestTarget["label"];
    readonly file: string;
    readonly status: RemoveStatus;
    readonly registry?: { readonly key: string; readonly status: RemoveStatus };
  }[];
}

/** Removes the manifests (and registry keys); the launcher stays in the data directory, harmless without them. */
export async function uninstall(
  ctx: CliContext,
  options: { readonly browsers: readonly Browser[]; readonly profileDir?: string | undefined },
): Promise<UninstallReport> {
  const targets = resolveTargets(options.browsers, options.profileDir, ctx);
  const manifests: UninstallReport["manifests"][number][] = [];
  for (const target of targets) {
    const status: RemoveStatus = existsSync(target.file) ? "removed" : "absent";
    rmSync(target.file, { force: true });
    const registry =
      target.registryKey === undefined
        ? undefined
        : { key: target.registryKey, status: await deleteRegistryKey(ctx.exec, target.registryKey) };
    manifests.push({ label: target.label, file: target.file, status, ...(registry ? { registry } : {}) });
  }
  return { manifests };
}

/** Writes `content` (atomically: temp file + rename) unless the file already holds it; fixes the mode either way. */
function writeIfChanged(file: string, content: string, mode: number): WriteStatus {
  let status: WriteStatus = "created";
  if (existsSync(file)) {
    status = readFileSync(file, "utf8") === content ? "unchanged" : "updated";
  }
  if (status !== "unchanged") {
    mkdirSync(dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, content, { mode });
    renameSync(temp, file);
  }
  if (process.platform !== "win32" && (statSync(file).mode & 0o777) !== mode) {
    chmodSync(file, mode);
    if (status === "unchanged") status = "updated";
  }
  return status;
}

// ── Windows registry (HKCU; no administrator rights needed) ──────────────────────────────────────────────────────

export function regQueryArgs(key: string): string[] {
  return ["query", key, "/ve"];
}

export function regAddArgs(key: string, manifestFile: string): string[] {
  return ["add", key, "/ve", "/t", "REG_SZ", "/d", manifestFile, "/f"];
}

export function regDeleteArgs(key: string): string[] {
  return ["delete", key, "/f"];
}

/** The default value of a key from `reg query <key> /ve` output, or undefined if the key or value is absent. */
export function parseRegDefaultValue(stdout: string): string | undefined {
  for (const line of stdout.split(/\r?\n/)) {
    const match = /^\s+\(.+?\)\s+REG_(?:EXPAND_)?SZ\s+(.*)$/.exec(line);
    if (match?.[1] !== undefined) return match[1].trimEnd();
  }
  return undefined;
}

export async function readRegistryDefault(exec: ExecFn, key: string): Promise<string | undefined> {
  const result = await exec("reg", regQueryArgs(key));
  return result.code === 0 ? parseRegDefaultValue(result.stdout) : undefined;
}

export async function setRegistryDefault(
  exec: ExecFn,
  key: string,
  manifestFile: string,
): Promise<WriteStatus> {
  const current = await readRegistryDefault(exec, key);
  if (current === manifestFile) return "unchanged";
  const result = await exec("reg", regAddArgs(key, manifestFile));
  if (result.code !== 0)
    throw new Error(`reg add ${key} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
  return current === undefined ? "created" : "updated";
}

export async function deleteRegistryKey(exec: ExecFn, key: string): Promise<RemoveStatus> {
  const present = (await exec("reg", regQueryArgs(key))).code === 0;
  if (!present) return "absent";
  const result = await exec("reg", regDeleteArgs(key));
  if (result.code !== 0)
    throw new Error(`reg delete ${key} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
  return "removed";
}
