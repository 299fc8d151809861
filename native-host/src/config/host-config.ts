// config.json in the data directory (docs/host.md, "Files in the data directory"): MCP port and token, and the
// notification channels with their secrets (docs/operator-guide.md, "Notifications"); created on first use, mode 0600.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { DEFAULT_NOTIFY_SETTINGS, type NotifySettings } from "../../../shared/notify-settings.ts";
import { configPath } from "./config-path.ts";
import { readNotifySettings } from "./notify-settings-read.ts";

export const DEFAULT_MCP_PORT = 8765;

export const hostConfigSchema = z
  .object({
    /** Loopback port of the MCP server; 0 means pick a free one (the chosen port is written back). */
    port: z.number().int().min(0).max(65_535),
    /** Bearer token for MCP, 32 random bytes as hex. */
    token: z.string().regex(/^[0-9a-f]{64}$/),
    /** Executor concurrency: how many managed tabs may generate at once. */
    maxGeneratingTabs: z.number().int().min(1).max(20).default(3),
    /**
     * Notification channels (their secrets are why the file is owner-only), kinds and quiet hours: validated on their
     * own (loadNotifySettings), so a mistake there turns notifications off with a warning, never the backend.
     */
    notifications: z.unknown().optional(),
  })
  .passthrough();

export type HostConfig = z.infer<typeof hostConfigSchema>;

export class ConfigError extends Error {
  readonly code = "CONFIG_INVALID";
}

/** 32 random bytes as hex: the MCP bearer token. */
export function newToken(): string {
  return randomBytes(32).toString("hex");
}

export { configPath };

/**
 * Reads config.json, creating it with a fresh token if missing. `ORCHESTRATOR_MCP_PORT` overrides the port
 * (tests use 0). A malformed file is an error naming the file, never silently replaced.
 */
export function loadHostConfig(dir: string, env: NodeJS.ProcessEnv = process.env): HostConfig {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = configPath(dir);
  let config: HostConfig;
  if (existsSync(file)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new ConfigError(`${file} is not valid JSON (${(e as Error).message}); fix or delete it`);
    }
    const parsed = hostConfigSchema.safeParse(raw);
    if (!parsed.success) throw new ConfigError(`${file} is invalid: ${z.prettifyError(parsed.error)}`);
    config = parsed.data;
    chmodSync(file, 0o600);
  } else {
    config = { port: DEFAULT_MCP_PORT, token: newToken(), maxGeneratingTabs: 3 };
    saveHostConfig(dir, config);
  }
  const override = env.ORCHESTRATOR_MCP_PORT;
  if (override !== undefined && override !== "") {
    const port = Number(override);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new ConfigError(
        `ORCHESTRATOR_MCP_PORT must be a port number (0 = any free port), got '${override}'`,
      );
    }
    config = { ...config, port };
  }
  return config;
}

/** Written beside and renamed over, so a reader never sees half a file; the token makes it owner-only. */
export function saveHostConfig(dir: string, config: HostConfig): void {
  const file = configPath(dir);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/**
 * The notification settings in config.json (defaults when the file or the key is absent; nothing is created). A file
 * that is not JSON, or whose `notifications` do not validate, is a ConfigError naming the file and the field.
 */
export function loadNotifySettings(dir: string): NotifySettings {
  const read = readNotifySettings(dir);
  switch (read.state) {
    case "none":
      return DEFAULT_NOTIFY_SETTINGS;
    case "unreadable":
      throw new ConfigError(`${read.file} is not valid JSON (${read.error}); fix or delete it`);
    case "invalid":
      throw new ConfigError(`${read.file} is invalid: ${read.error} (under "notifications")`);
    case "ok":
      return read.settings;
  }
}

/** Replaces the notification settings in config.json, keeping everything else (written whole, mode 0600). */
export function saveNotifySettings(dir: string, settings: NotifySettings): void {
  saveHostConfig(dir, { ...loadHostConfig(dir, {}), notifications: settings });
}
