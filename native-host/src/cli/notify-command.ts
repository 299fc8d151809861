// `orchestrator notify test [--channel <id>] [--json]` (docs/cli.md): sends a test notification from this process
// to the channels of config.json (the payload the settings page's "Send test" sends) and says what each receiver
// answered, without printing any secret.
import { parseArgs } from "node:util";
import type { Channel } from "../../../shared/notify-settings.ts";
import { deliver, DEFAULT_DELIVER_TIMEOUT_MS } from "../notify/deliver.ts";
import { testPayload } from "../notify/payload.ts";
import { UsageError } from "./browsers.ts";
import type { CliContext } from "./context.ts";
import { dataDirOf } from "./context.ts";
import { readNotifySettings } from "../config/notify-settings-read.ts";

export interface NotifyTestResult {
  readonly id: string;
  readonly name: string;
  readonly kind: Channel["kind"];
  readonly ok: boolean;
  /** `HTTP <status>` when delivered, else what went wrong (deliver's words, which never hold a secret). */
  readonly detail: string;
}

export interface NotifyTestReport {
  readonly ok: boolean;
  readonly results: readonly NotifyTestResult[];
  /** Why nothing was sent: no channel, an unknown --channel, invalid settings. */
  readonly error?: string;
}

export async function runNotifyCommand(args: readonly string[], ctx: CliContext): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "test") {
    throw new UsageError(sub === undefined ? "missing sub-command: test" : `unknown sub-command '${sub}'`);
  }
  const { values } = parseArgs({
    args: rest,
    options: { channel: { type: "string" }, json: { type: "boolean" } },
    strict: true,
    allowPositionals: false,
  });
  const report = await notifyTest(ctx, values.channel);
  if (values.json === true) {
    ctx.out(JSON.stringify(report, null, 2));
  } else {
    if (report.error !== undefined) ctx.err(`orchestrator notify test: ${report.error}`);
    for (const r of report.results) {
      ctx.out(r.ok ? `OK   ${r.name} (${r.kind})` : `FAIL ${r.name} (${r.kind}): ${r.detail}`);
    }
  }
  return report.ok ? 0 : 1;
}

async function notifyTest(ctx: CliContext, channelId: string | undefined): Promise<NotifyTestReport> {
  const read = readNotifySettings(dataDirOf(ctx));
  const where = `add one in the extension's Settings → Notifications, or under "notifications" in ${read.file}`;
  switch (read.state) {
    case "none":
      return { ok: false, results: [], error: `no notification channel is configured: ${where}` };
    case "unreadable":
      return { ok: false, results: [], error: `${read.file} is not valid JSON (${read.error})` };
    case "invalid":
      return { ok: false, results: [], error: `"notifications" in ${read.file} is invalid: ${read.error}` };
    case "ok":
      break;
  }
  const { channels } = read.settings;
  let targets: Channel[];
  if (channelId !== undefined) {
    // A named channel is tested even when switched off: checking it before turning it on is the point.
    targets = channels.filter((c) => c.id === channelId);
    if (targets.length === 0) {
      const known = channels.map((c) => c.id).join(", ");
      return {
        ok: false,
        results: [],
        error: `no channel with id '${channelId}' (${known ? `there are: ${known}` : `none is configured: ${where}`})`,
      };
    }
  } else {
    targets = channels.filter((c) => c.enabled);
    if (targets.length === 0) {
      const error =
        channels.length === 0
          ? `no notification channel is configured: ${where}`
          : `no channel is enabled (${channels.map((c) => c.id).join(", ")}): enable one, or name it with --channel <id>`;
      return { ok: false, results: [], error };
    }
  }
  const payload = testPayload(Date.now());
  // In parallel: a receiver that does not answer costs its timeout once, not once per channel after it.
  const results = await Promise.all(
    targets.map(async (channel): Promise<NotifyTestResult> => {
      const outcome = await deliver(channel, payload, { timeoutMs: DEFAULT_DELIVER_TIMEOUT_MS });
      return {
        id: channel.id,
        name: channel.name,
        kind: channel.kind,
        ok: outcome.ok,
        detail: outcome.ok ? `HTTP ${outcome.status}` : outcome.detail,
      };
    }),
  );
  return { ok: results.every((r) => r.ok), results };
}
