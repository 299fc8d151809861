// `orchestrator doctor`'s `notifications` check (docs/troubleshooting.md, "notifications"): the channels in
// config.json parse, and, while a backend runs, none of them is failing by its own word (status.json). No secret in it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { type NotificationStatus, STATUS_FILE } from "../host/status-file.ts";
import type { CliContext } from "./context.ts";
import { commandLine } from "./context.ts";
import { ago, type LiveOwner } from "./doctor-backend.ts";
import type { Check } from "./doctor-check.ts";
import { readNotifySettings } from "../config/notify-settings-read.ts";

/** One channel as the running backend reports it in status.json (no secrets there). */
type ChannelState = NotificationStatus;

const SETTINGS_PAGE = "the extension's Settings → Notifications";

export function checkNotifications(
  ctx: CliContext,
  dataDir: string,
  owner: LiveOwner | undefined,
  now: () => number,
): Check {
  const name = "notifications";
  const read = readNotifySettings(dataDir);
  switch (read.state) {
    case "none":
      return {
        name,
        status: "SKIP",
        message: `no notification channel is configured (${SETTINGS_PAGE}, or "notifications" in config.json)`,
      };
    case "unreadable":
      return {
        name,
        status: "SKIP",
        message: `skipped: ${read.file} is not valid JSON (see the config check)`,
      };
    case "invalid":
      return {
        name,
        status: "FAIL",
        message: `"notifications" in ${read.file} is invalid: ${read.error}`,
        fix: `correct it, or remove "notifications" and set the channels up again in ${SETTINGS_PAGE}`,
      };
    case "ok":
      break;
  }
  const { channels } = read.settings;
  if (channels.length === 0) {
    return { name, status: "SKIP", message: `no notification channel is configured (${SETTINGS_PAGE})` };
  }
  const enabled = channels.filter((c) => c.enabled).length;
  const configured = `${channels.length} channel(s) configured${enabled < channels.length ? `, ${enabled} enabled` : ""}`;
  const states = owner === undefined ? undefined : reportedStates(dataDir, owner.pid);
  if (states === undefined) {
    return {
      name,
      status: "OK",
      message:
        owner === undefined
          ? `${configured}; delivery status shows while the backend runs`
          : `${configured}; this backend reports no delivery status (restart it to update)`,
    };
  }
  // Only channels still in config.json: one removed since the backend last wrote status.json is no concern.
  const current = states.filter((s) => channels.some((c) => c.id === s.id));
  const failing = current.filter((s) => s.enabled && s.lastError !== null);
  if (failing.length > 0) {
    return {
      name,
      status: "WARN",
      message: failing.map((s) => failingWords(s, now())).join("; "),
      fix:
        `${failing.map((s) => commandLine(ctx, `notify test --channel ${s.id}`)).join(", ")} ` +
        `(sends one now and shows the answer); if it fails, correct the channel in ${SETTINGS_PAGE}`,
    };
  }
  const words = channels.map((c) => {
    const s = current.find((x) => x.id === c.id);
    return `${c.name} (${c.kind}): ${!c.enabled ? "disabled" : s === undefined ? "no delivery yet" : okWords(s, now())}`;
  });
  return { name, status: "OK", message: words.join("; ") };
}

function failingWords(s: ChannelState, now: number): string {
  const attempt = s.lastAttemptAt !== null ? `last attempt ${at(s.lastAttemptAt, now)}` : "no attempt yet";
  const delivered =
    s.lastDeliveredAt !== null ? `last delivered ${at(s.lastDeliveredAt, now)}` : "nothing delivered yet";
  const pending = s.pending > 0 ? `, ${s.pending} waiting` : "";
  return `${s.name} (${s.kind}): failing (${attempt}, ${delivered}${pending}): ${s.lastError ?? ""}`;
}

function okWords(s: ChannelState, now: number): string {
  const delivered =
    s.lastDeliveredAt !== null ? `last delivered ${at(s.lastDeliveredAt, now)}` : "no delivery yet";
  return s.pending > 0 ? `${delivered}, ${s.pending} waiting` : delivered;
}

/** The running backend's channel states; undefined when its status.json is missing, older, or another owner's. */
function reportedStates(dataDir: string, pid: number): ChannelState[] | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.join(dataDir, STATUS_FILE), "utf8"));
  } catch {
    return undefined; // not written yet, or mid-rename: the executor check reports the file itself
  }
  const status = raw as { pid?: unknown; notifications?: unknown } | null;
  if (status?.pid !== pid || !Array.isArray(status.notifications)) return undefined;
  return status.notifications.filter(isChannelState);
}

function isChannelState(v: unknown): v is ChannelState {
  const s = v as Partial<ChannelState> | null;
  return (
    s !== null &&
    typeof s === "object" &&
    typeof s.id === "string" &&
    typeof s.name === "string" &&
    typeof s.kind === "string" &&
    typeof s.enabled === "boolean" &&
    (s.lastError === null || typeof s.lastError === "string") &&
    (s.lastDeliveredAt === null || typeof s.lastDeliveredAt === "number") &&
    (s.lastAttemptAt === null || typeof s.lastAttemptAt === "number") &&
    typeof s.pending === "number"
  );
}

function at(ms: number, now: number): string {
  return `${new Date(ms).toISOString()} (${ago(now - ms)})`;
}
