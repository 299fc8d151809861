// Where each browser looks for user-level native messaging host manifests, per platform.
// Linux/macOS: a fixed directory under HOME. Windows: a registry key under HKCU naming the manifest file, which we keep
// under %LOCALAPPDATA%. A Chromium started with a custom --user-data-dir reads <dir>/NativeMessagingHosts/ instead.
import { accessSync, constants, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { ExtensionFamily } from "../../../shared/extension-ids.ts";
import { NATIVE_HOST_NAME } from "../../../shared/extension-ids.ts";

export const BROWSERS = ["chrome", "chromium", "firefox", "librewolf"] as const;
export type Browser = (typeof BROWSERS)[number];

export const BROWSER_FAMILY: Record<Browser, ExtensionFamily> = {
  chrome: "chromium",
  chromium: "chromium",
  firefox: "firefox",
  librewolf: "firefox",
};

/** Directory segments under HOME (Linux) or ~/Library/Application Support (macOS). */
const LINUX_DIRS: Record<Browser, readonly string[]> = {
  chrome: [".config", "google-chrome", "NativeMessagingHosts"],
  chromium: [".config", "chromium", "NativeMessagingHosts"],
  firefox: [".mozilla", "native-messaging-hosts"],
  librewolf: [".librewolf", "native-messaging-hosts"],
};

const MAC_DIRS: Record<Browser, readonly string[]> = {
  chrome: ["Google", "Chrome", "NativeMessagingHosts"],
  chromium: ["Chromium", "NativeMessagingHosts"],
  firefox: ["Mozilla", "NativeMessagingHosts"],
  librewolf: ["librewolf", "NativeMessagingHosts"],
};

/** HKCU subkeys (the host name is appended); the default value is the manifest's absolute path. */
const WINDOWS_KEYS: Record<Browser, string> = {
  chrome: "Software\\Google\\Chrome\\NativeMessagingHosts",
  chromium: "Software\\Chromium\\NativeMessagingHosts",
  firefox: "Software\\Mozilla\\NativeMessagingHosts",
  librewolf: "Software\\LibreWolf\\NativeMessagingHosts",
};

export const MANIFEST_FILE = `${NATIVE_HOST_NAME}.json`;

/** One place a manifest goes: a browser's user-level location, or a Chromium profile directory. */
export interface ManifestTarget {
  /** `chrome`, `chromium`, `firefox`, `librewolf`, or `profile` for `--profile-dir`. */
  readonly label: Browser | "profile";
  readonly family: ExtensionFamily;
  /** Absolute path of the manifest file. */
  readonly file: string;
  /** Windows only: the registry key (`HKCU\…\<host name>`) whose default value must name `file`. */
  readonly registryKey?: string;
}

export interface PlatformEnv {
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
}

/** The path module matching the target platform, so Windows paths can be computed (and tested) anywhere. */
export function pathFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

/** HOME as the browsers launched from this environment will see it (tests point it at a temp directory). */
export function homeDir({ env, platform }: PlatformEnv): string {
  const fromEnv = platform === "win32" ? env.USERPROFILE : env.HOME;
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : homedir();
}

export function userManifestTarget(browser: Browser, pe: PlatformEnv): ManifestTarget {
  const p = pathFor(pe.platform);
  const home = homeDir(pe);
  const family = BROWSER_FAMILY[browser];
  if (pe.platform === "win32") {
    const localAppData = pe.env.LOCALAPPDATA ?? p.join(home, "AppData", "Local");
    const file = p.join(localAppData, "chatgpt-orchestrator", "NativeMessagingHosts", browser, MANIFEST_FILE);
    return {
      label: browser,
      family,
      file,
      registryKey: `HKCU\\${WINDOWS_KEYS[browser]}\\${NATIVE_HOST_NAME}`,
    };
  }
  if (pe.platform === "darwin") {
    const file = p.join(home, "Library", "Application Support", ...MAC_DIRS[browser], MANIFEST_FILE);
    return { label: browser, family, file };
  }
  return { label: browser, family, file: p.join(home, ...LINUX_DIRS[browser], MANIFEST_FILE) };
}

/** A Chromium `--user-data-dir`: Chromium reads `<dir>/NativeMessagingHosts/` (Linux and macOS). */
export function profileManifestTarget(profileDir: string, pe: PlatformEnv): ManifestTarget {
  const p = pathFor(pe.platform);
  return {
    label: "profile",
    family: "chromium",
    file: p.join(profileDir, "NativeMessagingHosts", MANIFEST_FILE),
  };
}

export class UsageError extends Error {
  readonly code = "USAGE";
}

/** `--browser` values: each a browser name or `all`, optionally comma-separated; none means all. */
export function parseBrowsers(values: readonly string[] | undefined): Browser[] {
  if (values === undefined || values.length === 0) return [...BROWSERS];
  const chosen = new Set<Browser>();
  for (const value of values.flatMap((v) => v.split(","))) {
    const name = value.trim().toLowerCase();
    if (name === "all") BROWSERS.forEach((b) => chosen.add(b));
    else if ((BROWSERS as readonly string[]).includes(name)) chosen.add(name as Browser);
    else throw new UsageError(`unknown browser '${value}' (expected ${BROWSERS.join(", ")} or all)`);
  }
  return BROWSERS.filter((b) => chosen.has(b));
}

/**
 * The manifests a command acts on. With a profile directory only the Chromium-format manifest in that directory:
 * Firefox has no per-profile location (point HOME elsewhere instead).
 */
export function resolveTargets(
  browsers: readonly Browser[],
  profileDir: string | undefined,
  pe: PlatformEnv & { readonly cwd: string },
): ManifestTarget[] {
  if (profileDir === undefined) return browsers.map((b) => userManifestTarget(b, pe));
  if (pe.platform === "win32") {
    throw new UsageError(
      "--profile-dir is not supported on Windows: Chrome there finds native hosts only through the registry",
    );
  }
  if (!browsers.some((b) => BROWSER_FAMILY[b] === "chromium")) {
    throw new UsageError(
      "--profile-dir is a Chrome/Chromium --user-data-dir; Firefox and LibreWolf read manifests under HOME " +
        "(~/.mozilla/native-messaging-hosts, ~/.librewolf/native-messaging-hosts), so set HOME instead",
    );
  }
  const p = pathFor(pe.platform);
  return [profileManifestTarget(p.resolve(pe.cwd, profileDir), pe)];
}

/** Program names looked up on PATH (Linux and other Unixes). */
const UNIX_PROGRAMS: Record<Browser, readonly string[]> = {
  chrome: ["google-chrome", "google-chrome-stable", "google-chrome-beta", "google-chrome-unstable"],
  chromium: ["chromium", "chromium-browser"],
  firefox: ["firefox", "firefox-esr"],
  librewolf: ["librewolf"],
};

const MAC_APPS: Record<Browser, string> = {
  chrome: "Google Chrome.app",
  chromium: "Chromium.app",
  firefox: "Firefox.app",
  librewolf: "LibreWolf.app",
};

/** Where each browser's installer puts its program, under %ProgramFiles%, %ProgramFiles(x86)% or %LOCALAPPDATA%. */
const WINDOWS_PROGRAMS: Record<Browser, readonly string[]> = {
  chrome: ["Google\\Chrome\\Application\\chrome.exe"],
  chromium: ["Chromium\\Application\\chrome.exe"],
  firefox: ["Mozilla Firefox\\firefox.exe"],
  librewolf: ["LibreWolf\\librewolf.exe"],
};

/** Where `findBrowser` looks, in words, for a message saying it found nothing. */
export function browserSearchPlaces(browser: Browser, platform: NodeJS.Platform): string {
  if (platform === "win32")
    return `${WINDOWS_PROGRAMS[browser].join(", ")} under Program Files and LOCALAPPDATA`;
  if (platform === "darwin") return `${MAC_APPS[browser]} in /Applications and ~/Applications`;
  return `${UNIX_PROGRAMS[browser].join(", ")} on PATH`;
}

/**
 * The browser's program if it is installed where its installer puts it (Linux: on PATH), else undefined. Only a hint
 * for doctor: a browser found must have a manifest, one not found needs none.
 */
export function findBrowser(browser: Browser, pe: PlatformEnv): string | undefined {
  const p = pathFor(pe.platform);
  let candidates: string[];
  if (pe.platform === "win32") {
    const roots = [pe.env.ProgramFiles, pe.env["ProgramFiles(x86)"], pe.env.LOCALAPPDATA].filter(
      (r): r is string => r !== undefined && r !== "",
    );
    candidates = roots.flatMap((root) => WINDOWS_PROGRAMS[browser].map((exe) => p.join(root, exe)));
  } else if (pe.platform === "darwin") {
    candidates = ["/Applications", p.join(homeDir(pe), "Applications")].map((dir) =>
      p.join(dir, MAC_APPS[browser]),
    );
  } else {
    const dirs = (pe.env.PATH ?? "").split(":").filter((d) => p.isAbsolute(d));
    candidates = dirs.flatMap((dir) => UNIX_PROGRAMS[browser].map((name) => p.join(dir, name)));
  }
  return candidates.find((file) => isProgram(file, pe.platform));
}

/** An app bundle (macOS) or an executable file. */
function isProgram(file: string, platform: NodeJS.Platform): boolean {
  try {
    const stat = statSync(file);
    if (platform === "darwin") return stat.isDirectory();
    if (!stat.isFile()) return false;
    if (platform !== "win32") accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false; // absent or not executable: not this candidate
  }
}
