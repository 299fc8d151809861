// Native host manifests: filled from the templates in manifests/, and checked the way the browsers check them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ExtensionFamily } from "../../../shared/extension-ids.ts";
import {
  chromeOrigin,
  isChromeExtensionId,
  isGeckoExtensionId,
  NATIVE_HOST_NAME,
} from "../../../shared/extension-ids.ts";

const TEMPLATE_FILE: Record<ExtensionFamily, string> = {
  chromium: "native-host.chromium.json",
  firefox: "native-host.firefox.json",
};

export interface ManifestValues {
  /** Absolute path of the launcher the browser executes. */
  readonly hostPath: string;
  /** The one extension id allowed to connect (Chrome id or Firefox add-on id, by family). */
  readonly extensionId: string;
}

/** Reads `manifests/native-host.<family>.json` and replaces `{{…}}` inside its string values. */
export function buildHostManifest(
  projectRoot: string,
  family: ExtensionFamily,
  values: ManifestValues,
): Record<string, unknown> {
  const file = path.join(projectRoot, "manifests", TEMPLATE_FILE[family]);
  const template = JSON.parse(readFileSync(file, "utf8")) as unknown;
  const substitutions: Record<string, string> = {
    HOST_NAME: NATIVE_HOST_NAME,
    HOST_PATH: values.hostPath,
    CHROME_EXTENSION_ID: values.extensionId,
    FIREFOX_EXTENSION_ID: values.extensionId,
  };
  const filled = fill(template, (name) => {
    const value = substitutions[name];
    if (value === undefined) throw new Error(`${file}: unknown placeholder {{${name}}}`);
    return value;
  });
  if (filled === null || typeof filled !== "object" || Array.isArray(filled)) {
    throw new Error(`${file}: a manifest template must be a JSON object`);
  }
  return filled as Record<string, unknown>;
}

function fill(value: unknown, lookup: (name: string) => string): unknown {
  if (typeof value === "string")
    return value.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => lookup(name));
  if (Array.isArray(value)) return value.map((v) => fill(v, lookup));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, lookup)]));
  }
  return value;
}

/** Canonical file text: stable, so a second install can tell "unchanged" by comparing bytes. */
export function serializeManifest(manifest: Record<string, unknown>): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

const manifestShape = z.object({
  name: z.string(),
  description: z.string().optional(),
  path: z.string(),
  type: z.string(),
  allowed_origins: z.array(z.string()).optional(),
  allowed_extensions: z.array(z.string()).optional(),
});

export type HostManifest = z.infer<typeof manifestShape>;

export interface ManifestProblem {
  readonly severity: "fail" | "warn";
  readonly message: string;
}

/**
 * Structural checks a browser applies before it starts the host, plus ours: exactly our host name, `stdio`, an
 * absolute path, and only well-formed, non-wildcard ids of the right family.
 * `expectedId`: the id that must be present; `strict` makes a different id a failure rather than a warning.
 */
export function checkManifestContent(
  text: string,
  family: ExtensionFamily,
  expected: { readonly id: string; readonly strict: boolean },
  isAbsolute: (p: string) => boolean,
): { manifest?: HostManifest; problems: ManifestProblem[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { problems: [{ severity: "fail", message: `not valid JSON (${(e as Error).message})` }] };
  }
  const parsed = manifestShape.safeParse(raw);
  if (!parsed.success) {
    return {
      problems: [
        { severity: "fail", message: `not a native host manifest (${z.prettifyError(parsed.error)})` },
      ],
    };
  }
  const manifest = parsed.data;
  const problems: ManifestProblem[] = [];
  if (manifest.name !== NATIVE_HOST_NAME) {
    problems.push({
      severity: "fail",
      message: `name is '${manifest.name}', expected '${NATIVE_HOST_NAME}'`,
    });
  }
  if (manifest.type !== "stdio")
    problems.push({ severity: "fail", message: `type is '${manifest.type}', not 'stdio'` });
  if (!isAbsolute(manifest.path))
    problems.push({ severity: "fail", message: `path '${manifest.path}' is not absolute` });
  problems.push(...checkIds(manifest, family, expected));
  return { manifest, problems };
}

function checkIds(
  manifest: HostManifest,
  family: ExtensionFamily,
  expected: { readonly id: string; readonly strict: boolean },
): ManifestProblem[] {
  const key = family === "chromium" ? "allowed_origins" : "allowed_extensions";
  const list = manifest[key];
  if (list === undefined || list.length === 0)
    return [{ severity: "fail", message: `${key} is missing or empty` }];
  const wellFormed =
    family === "chromium"
      ? (entry: string) =>
          /^chrome-extension:\/\/[^/]+\/$/.test(entry) && isChromeExtensionId(entry.slice(19, -1))
      : isGeckoExtensionId;
  const malformed = list.filter((entry) => !wellFormed(entry));
  if (malformed.length > 0) {
    const placeholder = malformed.some((m) => m.includes("PLACEHOLDER"));
    return [
      {
        severity: "fail",
        message: placeholder
          ? `${key} still holds the placeholder extension id, which the browser rejects`
          : `${key} has malformed or wildcard entries: ${malformed.join(", ")}`,
      },
    ];
  }
  const want = family === "chromium" ? chromeOrigin(expected.id) : expected.id;
  if (list.includes(want)) return [];
  const validDefault =
    family === "chromium" ? isChromeExtensionId(expected.id) : isGeckoExtensionId(expected.id);
  if (!expected.strict && !validDefault) return []; // default is a placeholder: any well-formed id was chosen on purpose
  return [
    {
      severity: expected.strict ? "fail" : "warn",
      message: `${key} is ${JSON.stringify(list)}, without ${want}${expected.strict ? "" : " (the default)"}`,
    },
  ];
}
