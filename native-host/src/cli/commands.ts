// The sub-commands behind `orchestrator install|uninstall|connector|doctor`: option parsing and output.
// Loaded on demand by main.ts, so `help` and the native host do not pay for what they do not use.
import { parseArgs } from "node:util";
import { parseBrowsers } from "./browsers.ts";
import { connectorInfo, formatConnector } from "./connector.ts";
import type { CliContext } from "./context.ts";
import { dataDirOf } from "./context.ts";
import { doctor, formatChecks } from "./doctor.ts";
import { install, resolveExtensionIds, uninstall } from "./install.ts";

const TARGET_OPTIONS = {
  browser: { type: "string", multiple: true },
  "extension-id": { type: "string", multiple: true },
  "profile-dir": { type: "string" },
  json: { type: "boolean" },
} as const;

function parseTargetArgs(args: readonly string[]) {
  const { values } = parseArgs({
    args: [...args],
    options: TARGET_OPTIONS,
    strict: true,
    allowPositionals: false,
  });
  const browsers = parseBrowsers(values.browser);
  return {
    browsers,
    extensionIds: resolveExtensionIds(values["extension-id"], browsers),
    profileDir: values["profile-dir"],
    json: values.json === true,
  };
}

export async function runInstall(args: readonly string[], ctx: CliContext): Promise<number> {
  const options = parseTargetArgs(args);
  const report = await install(ctx, options);
  if (options.json) {
    ctx.out(JSON.stringify(report, null, 2));
    return 0;
  }
  const width = Math.max(8, ...report.manifests.map((m) => m.label.length));
  ctx.out(`Data directory: ${report.dataDir}`);
  ctx.out(`${report.launcher.status.padEnd(9)} ${"launcher".padEnd(width)} ${report.launcher.file}`);
  for (const m of report.manifests) {
    ctx.out(`${m.status.padEnd(9)} ${m.label.padEnd(width)} ${m.file} (allows ${m.allowed.join(", ")})`);
    if (m.registry) ctx.out(`${m.registry.status.padEnd(9)} ${"".padEnd(width)} registry ${m.registry.key}`);
  }
  for (const warning of report.warnings) ctx.err(`warning: ${warning}`);
  ctx.out("Next: load the extension, then check everything with `orchestrator doctor`.");
  return 0;
}

export async function runUninstall(args: readonly string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      browser: TARGET_OPTIONS.browser,
      "profile-dir": TARGET_OPTIONS["profile-dir"],
      json: TARGET_OPTIONS.json,
    },
    strict: true,
    allowPositionals: false,
  });
  const report = await uninstall(ctx, {
    browsers: parseBrowsers(values.browser),
    profileDir: values["profile-dir"],
  });
  if (values.json === true) {
    ctx.out(JSON.stringify(report, null, 2));
    return 0;
  }
  const width = Math.max(...report.manifests.map((m) => m.label.length));
  for (const m of report.manifests) {
    ctx.out(`${m.status === "removed" ? "removed" : "absent "} ${m.label.padEnd(width)} ${m.file}`);
    if (m.registry) ctx.out(`${m.registry.status.padEnd(7)} ${"".padEnd(width)} registry ${m.registry.key}`);
  }
  return 0;
}

export function runConnector(args: readonly string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { json: TARGET_OPTIONS.json },
    strict: true,
    allowPositionals: false,
  });
  const info = connectorInfo(ctx);
  if (values.json === true) ctx.out(JSON.stringify(info, null, 2));
  else formatConnector(info).forEach((line) => ctx.out(line));
  return Promise.resolve(0);
}

export async function runDoctor(args: readonly string[], ctx: CliContext): Promise<number> {
  const options = parseTargetArgs(args);
  const checks = await doctor(ctx, options);
  const ok = !checks.some((c) => c.status === "FAIL");
  if (options.json) ctx.out(JSON.stringify({ ok, dataDir: dataDirOf(ctx), checks }, null, 2));
  else formatChecks(dataDirOf(ctx), checks).forEach((line) => ctx.out(line));
  return ok ? 0 : 1;
}
