// `orchestrator doctor`'s checks of the native host manifests: each browser's file, what it allows and runs, the
// launcher it points to, and on Windows the registry key that names it. A missing manifest matters only for a browser
// that is installed.
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ManifestTarget } from "./browsers.ts";
import { browserSearchPlaces, findBrowser, pathFor } from "./browsers.ts";
import type { CliContext } from "./context.ts";
import { commandLine } from "./context.ts";
import type { Check, CheckStatus, DoctorOptions } from "./doctor-check.ts";
import { checkManifestContent } from "./host-manifest.ts";
import { readRegistryDefault } from "./install.ts";
import { parseLauncher } from "./launcher.ts";

/** The install command that fixes a manifest check (for one browser, or the profile directory given). */
export function installCommand(
  ctx: CliContext,
  profileDir: string | undefined,
  browser?: string,
  extra = "",
): string {
  const where =
    profileDir !== undefined ? ` --profile-dir ${profileDir}` : browser ? ` --browser ${browser}` : "";
  return commandLine(ctx, `install${where}${extra}`);
}

export async function checkManifest(
  ctx: CliContext,
  target: ManifestTarget,
  options: DoctorOptions,
  dataDir: string,
): Promise<{ present: boolean; check: Check }> {
  const name = `manifest:${target.label}`;
  const strict = options.extensionIds.explicit.has(target.family);
  const idOption = strict ? ` --extension-id ${options.extensionIds[target.family]}` : "";
  const fix = installCommand(
    ctx,
    options.profileDir,
    target.label === "profile" ? undefined : target.label,
    idOption,
  );
  if (!existsSync(target.file)) return { present: false, check: missingManifest(ctx, target, name, fix) };
  const p = pathFor(ctx.platform);
  const { manifest, problems } = checkManifestContent(
    readFileSync(target.file, "utf8"),
    target.family,
    { id: options.extensionIds[target.family], strict },
    (x) => p.isAbsolute(x),
  );
  if (manifest !== undefined && p.isAbsolute(manifest.path))
    problems.push(...checkHostPath(ctx, manifest.path, dataDir));
  if (target.registryKey !== undefined) {
    const value = await readRegistryDefault(ctx.exec, target.registryKey);
    if (value !== target.file) {
      problems.push({
        severity: "fail",
        message: `registry ${target.registryKey} ${value === undefined ? "is missing" : `points to ${value}`}`,
      });
    }
  }
  const failed = problems.some((x) => x.severity === "fail");
  const status: CheckStatus = failed ? "FAIL" : problems.length > 0 ? "WARN" : "OK";
  const allowed = manifest?.allowed_origins ?? manifest?.allowed_extensions ?? [];
  const message =
    problems.length === 0
      ? `${target.file} allows ${allowed.join(", ")} and runs ${manifest?.path ?? "?"}`
      : `${target.file}: ${problems.map((x) => x.message).join("; ")}`;
  return {
    present: true,
    check: status === "OK" ? { name, status, message } : { name, status, message, fix },
  };
}

/**
 * No manifest: a failure for a browser that is installed (it cannot start the host) or a profile directory asked for
 * by name; nothing to do for a browser that is not installed.
 */
function missingManifest(ctx: CliContext, target: ManifestTarget, name: string, fix: string): Check {
  if (target.label === "profile") {
    return { name, status: "FAIL", message: `no native host manifest at ${target.file}`, fix };
  }
  const browser = target.label;
  const program = (ctx.findBrowser ?? ((b) => findBrowser(b, ctx)))(browser);
  if (program !== undefined) {
    return {
      name,
      status: "FAIL",
      message: `${browser} is installed (${program}) but has no native host manifest at ${target.file}, so it cannot start the host`,
      fix,
    };
  }
  return {
    name,
    status: "SKIP",
    message: `${browser} is not installed (looked for ${browserSearchPlaces(browser, ctx.platform)}); if you use it anyway: ${fix}`,
  };
}

/** The executable the browser will start: exists, is executable, and (if it is our launcher) its targets exist. */
function checkHostPath(
  ctx: CliContext,
  hostPath: string,
  dataDir: string,
): { severity: "fail" | "warn"; message: string }[] {
  if (!existsSync(hostPath)) return [{ severity: "fail", message: `path ${hostPath} does not exist` }];
  if (ctx.platform !== "win32") {
    try {
      accessSync(hostPath, constants.X_OK);
    } catch {
      return [{ severity: "fail", message: `path ${hostPath} is not executable` }];
    }
  }
  let launcher;
  try {
    launcher = parseLauncher(readFileSync(hostPath, "utf8"));
  } catch {
    launcher = undefined;
  }
  if (launcher === undefined) return [];
  const problems: { severity: "fail" | "warn"; message: string }[] = [];
  if (!existsSync(launcher.node))
    problems.push({ severity: "fail", message: `launcher's Node ${launcher.node} is gone` });
  if (!existsSync(launcher.entry)) {
    problems.push({ severity: "fail", message: `launcher's CLI ${launcher.entry} is gone` });
  }
  if (path.resolve(launcher.dataDir) !== path.resolve(dataDir)) {
    problems.push({
      severity: "warn",
      message: `launcher uses data directory ${launcher.dataDir}, not ${dataDir} (ORCHESTRATOR_HOME differs)`,
    });
  }
  return problems;
}
