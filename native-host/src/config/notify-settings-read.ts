// Reads the `notifications` key of config.json without creating or changing the file, telling apart nothing set up, a
// file that is not JSON and settings that do not validate: the backend (loadNotifySettings), `notify test` and doctor
// read it here. The channels carry secrets, which no caller prints (docs/operator-guide.md, "Notifications").
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { type NotifySettings, notifySettingsSchema } from "../../../shared/notify-settings.ts";
import { configPath } from "./config-path.ts";

export type NotifySettingsRead =
  /** No config.json, or no `notifications` in it: nothing configured. */
  | { readonly state: "none"; readonly file: string }
  /** config.json itself is unreadable or not JSON: the `config` check of doctor reports that. */
  | { readonly state: "unreadable"; readonly file: string; readonly error: string }
  | { readonly state: "invalid"; readonly file: string; readonly error: string }
  | { readonly state: "ok"; readonly file: string; readonly settings: NotifySettings };

export function readNotifySettings(dataDir: string): NotifySettingsRead {
  const file = configPath(dataDir);
  if (!existsSync(file)) return { state: "none", file };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return { state: "unreadable", file, error: (e as Error).message };
  }
  const value =
    raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>).notifications : undefined;
  if (value === undefined || value === null) return { state: "none", file };
  const parsed = notifySettingsSchema.safeParse(value);
  if (!parsed.success) {
    // zod's messages name the field and the rule, never the value given, so no secret gets into them.
    return { state: "invalid", file, error: z.prettifyError(parsed.error).replace(/\n/g, "; ") };
  }
  return { state: "ok", file, settings: parsed.data };
}
