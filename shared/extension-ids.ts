// Who may talk to the native host: its name, and the default ids of our extension in each browser family.
// The native host manifests written by `orchestrator install` allow exactly these ids (no wildcards), and the host
// re-checks its argv against them (defence in depth: a manifest edited by hand still admits only these callers).
// Shared: the CLI writes the manifests, the host checks its caller, the extension and its build name the host.

/** The native messaging host name the extension passes to `runtime.connectNative` (lowercase, dots, underscores). */
export const NATIVE_HOST_NAME = "com.chatgpt_orchestrator.host";

/**
 * Chrome/Chromium extension id of our extension. The extension build pins it with the manifest `key` of
 * `manifests/extension/manifest.json` (id = first 32 hex digits of SHA-256 of the public key, digits mapped
 * 0-f → a-p; test/extension/build.test.ts checks they agree). `orchestrator install --extension-id <id>` overrides it.
 */
export const DEFAULT_CHROME_EXTENSION_ID = "adplgnalhfmbjconlmnleaockcdgmlhn";

/** Firefox/LibreWolf add-on id: `browser_specific_settings.gecko.id` in the extension's Firefox manifest. */
export const DEFAULT_FIREFOX_EXTENSION_ID = "orchestrator@chatgpt-orchestrator.local";

export type ExtensionFamily = "chromium" | "firefox";

const CHROME_ID = /^[a-p]{32}$/;
const GECKO_ID_EMAIL = /^[a-zA-Z0-9-._]*@[a-zA-Z0-9-._]+$/;
const GECKO_ID_UUID = /^\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}$/;

export function isChromeExtensionId(id: string): boolean {
  return CHROME_ID.test(id);
}

export function isGeckoExtensionId(id: string): boolean {
  return GECKO_ID_EMAIL.test(id) || GECKO_ID_UUID.test(id);
}

/** `chrome-extension://<id>/`: the exact form `allowed_origins` needs (the trailing slash is required). */
export function chromeOrigin(id: string): string {
  return `chrome-extension://${id}/`;
}

/**
 * Classifies an id given on the command line. A Chrome id (32 letters a-p, optionally written as its origin) can
 * never be a Firefox id (`name@domain` or `{uuid}`), so one option serves both families.
 */
export function classifyExtensionId(raw: string): { family: ExtensionFamily; id: string } | undefined {
  const trimmed = raw.trim();
  const origin = /^chrome-extension:\/\/([^/]+)\/?$/.exec(trimmed);
  const candidate = origin?.[1] ?? trimmed;
  if (isChromeExtensionId(candidate)) return { family: "chromium", id: candidate };
  if (origin === null && isGeckoExtensionId(candidate)) return { family: "firefox", id: candidate };
  return undefined;
}

export type NativeHostCaller =
  | { family: "chromium"; extensionId: string }
  | { family: "firefox"; extensionId: string; manifestPath: string };

/**
 * Who launched the host, from its argv (after `native-host`). Chromium passes `chrome-extension://<id>/` (plus
 * `--parent-window=<n>` on Windows); Firefox passes the manifest path and the add-on id.
 */
export function parseNativeHostCaller(args: readonly string[]): NativeHostCaller | undefined {
  const origin = args.find((a) => a.startsWith("chrome-extension://"));
  if (origin !== undefined) {
    const match = /^chrome-extension:\/\/([a-p]{32})\/$/.exec(origin);
    return match?.[1] === undefined ? undefined : { family: "chromium", extensionId: match[1] };
  }
  const [manifestPath, extensionId] = args;
  if (manifestPath !== undefined && extensionId !== undefined && isGeckoExtensionId(extensionId)) {
    return { family: "firefox", extensionId, manifestPath };
  }
  return undefined;
}
