// Needs-you notifications end to end (docs/operator-guide.md, "Notifications"): the real host process with a scripted
// extension, an agent over MCP and a real local HTTP receiver standing in for a webhook, an ntfy server and Telegram.
// One message per episode per channel, across a SIGKILL and restart too; retries after the receiver fails; nothing for
// the operator's own Pause unless asked; run completion; and no secret in the log, status.json or `orchestrator status`.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type NotificationPayload,
  notificationPayloadSchema,
  type NotifySettingsView,
} from "../../shared/notify-settings.ts";
import { connectMcp, removeHome, tempHome, tool } from "./host-harness.ts";
import {
  allSecrets,
  type ChannelSecrets,
  newSecrets,
  notificationStatus,
  Receiver,
  threeChannels,
  writeConfig,
} from "./notify-receiver.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const FAST = { mode: "auto", idleGraceMs: 50 };
const ENV = { ORCHESTRATOR_NOTIFY_BACKOFF_MS: "200,200,200" };

let home: string;
let receiver: Receiver;
let secrets: ChannelSecrets;
let ext: ScriptedExtension | undefined;
let mcp: Client | undefined;

beforeEach(async () => {
  home = tempHome();
  receiver = await Receiver.start();
  secrets = newSecrets();
});

afterEach(async () => {
  await mcp?.close().catch(() => undefined);
  mcp = undefined;
  if (ext) {
    ext.closeStdin();
    await ext.exited;
  }
  ext = undefined;
  await receiver.close();
  removeHome(home);
});

async function startHost(): Promise<void> {
  ext = ScriptedExtension.spawn({ home, env: ENV });
  await ext.hello();
  mcp = await connectMcp(home);
}

/** SIGKILL: no shutdown code runs, as after a crash. */
async function killHost(): Promise<void> {
  await mcp?.close().catch(() => undefined);
  mcp = undefined;
  ext!.kill();
  await ext!.exited;
  ext = undefined;
}

async function spawnWorker(path: string, runId?: string): Promise<{ runId: string; workerId: string }> {
  const rid =
    runId ??
    (await tool<{ run: { id: string } }>(mcp!, "run_create", { name: "Release", policy: FAST })).run.id;
  const { worker } = await tool<{ worker: { id: string } }>(mcp!, "worker_spawn", {
    runId: rid,
    path,
    objective: `work at ${path}`,
  });
  const create = await waitFor(() => ext!.commandsFor(worker.id)[0], "conversation.create");
  ext!.submit(create);
  ext!.observe(worker.id, "generating");
  return { runId: rid, workerId: worker.id };
}

const hooked = (): NotificationPayload[] =>
  receiver.to("/hook/").map((h) => notificationPayloadSchema.parse(JSON.parse(h.body)));
const delivered = (): NotificationPayload[] =>
  receiver
    .to("/hook/")
    .filter((h) => h.status === 200)
    .map((h) => notificationPayloadSchema.parse(JSON.parse(h.body)));

/** Waits until status.json (of the running host) shows every channel with nothing pending and one delivery. */
async function settled(ids: readonly string[]): Promise<void> {
  const pid = ext!.child.pid;
  await waitFor(
    () => {
      const list = notificationStatus(home).filter((n) => n.pid === pid);
      return (
        ids.every((id) => list.some((n) => n.id === id && n.pending === 0 && n.lastDeliveredAt !== null)) ||
        undefined
      );
    },
    `status.json: ${ids.join(", ")} delivered, nothing pending`,
  );
}

/** A test message through the webhook: once it arrived, anything the host sent before it has arrived too. */
async function roundTrip(): Promise<void> {
  const before = receiver.to("/hook/").length;
  const result = await ext!.ui<{ ok: boolean }>("notify_test", { channelId: "hook" });
  expect(result.ok).toBe(true);
  await waitFor(() => receiver.to("/hook/").length > before || undefined, "the test message");
}

function runCli(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "bin", "orchestrator.js"), ...args],
      { cwd: ROOT, env: { ...process.env, ORCHESTRATOR_HOME: home } },
      (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`),
    );
  });
}

describe("notifications from the host", () => {
  it("a question sends one message per channel, still one after a SIGKILL and restart; no secret leaks", async () => {
    writeConfig(home, { channels: threeChannels(receiver.base, secrets) });
    await startHost();
    const { runId, workerId } = await spawnWorker("/root");
    await tool(mcp!, "worker_await_human", { workerId, reason: "choice", question: "Postgres or SQLite?" });
    await waitFor(() => receiver.hits.length >= 3 || undefined, "a message on each channel");
    await settled(["hook", "phone", "tg"]);

    const [hook] = hooked();
    expect(hooked()).toHaveLength(1);
    expect(hook).toMatchObject({
      version: 1,
      kind: "needs_you",
      run: { id: runId, name: "Release" },
      worker: { id: workerId, path: "/root" },
      state: "Needs you",
      reason: "question",
      reasonText: "Needs your answer",
    });
    expect(hook!.episode).toMatch(new RegExp(`^held:${workerId}:question:\\d+$`));
    expect(hook!.link).toMatch(
      new RegExp(`^chrome-extension://[a-p]{32}/extension/dashboard/dashboard\\.html#worker=${workerId}$`),
    );
    // The question is conversation text: it is in no message.
    expect(JSON.stringify(receiver.hits)).not.toContain("Postgres");
    const hookHit = receiver.to("/hook/")[0]!;
    expect(hookHit.path).toBe(`/hook/${secrets.hookToken}`);
    expect(hookHit.headers["content-type"]).toBe("application/json");
    expect(hookHit.headers["user-agent"]).toMatch(/^chatgpt-orchestrator\/\d/);

    const ntfy = receiver.to("/ntfy/");
    expect(ntfy).toHaveLength(1);
    expect(ntfy[0]!.path).toBe(`/ntfy/${secrets.topic}`);
    expect(ntfy[0]!.headers).toMatchObject({
      priority: "high",
      click: hook!.link,
      authorization: `Bearer ${secrets.ntfyToken}`,
    });
    expect(ntfy[0]!.headers.title).toMatch(/^=\?UTF-8\?B\?.+\?=$/); // "Needs you: /root — …", the dash encoded
    expect(ntfy[0]!.body).toContain("Needs your answer");

    const tg = receiver.to("/tg/");
    expect(tg).toHaveLength(1);
    expect(tg[0]!.path).toBe(`/tg/bot${secrets.botToken}/sendMessage`);
    expect(JSON.parse(tg[0]!.body)).toMatchObject({ chat_id: "4242", disable_web_page_preview: true });

    await killHost();
    await startHost();
    await settled(["hook", "phone", "tg"]);
    await roundTrip();
    expect(hooked().map((p) => p.kind)).toEqual(["needs_you", "test"]);
    expect(receiver.to("/ntfy/")).toHaveLength(1);
    expect(receiver.to("/tg/")).toHaveLength(1);

    const cli = await runCli(["status"]);
    expect(cli).toContain("Release"); // the command did run and read this data directory
    // Each channel's delivery status, in words, without its secrets (checked below).
    expect(cli).toMatch(/Notifications:\n(.*\n)*\s+\S.* \(webhook\): last delivered \d+ s ago/);
    expect(cli).toMatch(/\(telegram\): last delivered/);
    const places = {
      "logs/host.log": readFileSync(join(home, "logs", "host.log"), "utf8"),
      "status.json": readFileSync(join(home, "status.json"), "utf8"),
      "orchestrator status": cli,
    };
    expect(places["logs/host.log"]).toMatch(/notification needs_you to channel hook \(webhook\) delivered/);
    for (const [where, text] of Object.entries(places)) {
      for (const secret of allSecrets(secrets)) {
        expect(text.includes(secret), `${where} holds a secret`).toBe(false);
      }
    }
  }, 60_000);

  it("a receiver that fails twice gets the message once; status.json then shows it delivered, no error", async () => {
    writeConfig(home, { channels: threeChannels(receiver.base, secrets).slice(0, 1) });
    let failures = 0;
    receiver.respond = () => (failures++ < 2 ? 500 : 200);
    await startHost();
    const { workerId } = await spawnWorker("/root");
    await tool(mcp!, "worker_await_human", { workerId, reason: "choice", question: "A or B?" });
    await settled(["hook"]);
    expect(receiver.to("/hook/").map((h) => h.status)).toEqual([500, 500, 200]);
    expect(new Set(hooked().map((p) => p.episode)).size).toBe(1);
    const [status] = notificationStatus(home);
    expect(status).toMatchObject({ id: "hook", pending: 0, lastError: null });
    expect(status!.lastDeliveredAt).toBe(status!.lastAttemptAt);
  }, 60_000);

  it("the operator's own Pause sends nothing unless asked for; a completed run sends run_completed once", async () => {
    writeConfig(home, { channels: threeChannels(receiver.base, secrets).slice(0, 1) });
    await startHost();
    const root = await spawnWorker("/root");
    await ext!.ui("worker_pause", { workerId: root.workerId });
    ext!.observe(root.workerId, "idle");
    await waitFor(
      async () =>
        (await tool<{ worker: { label: string } }>(mcp!, "worker_get", { workerId: root.workerId })).worker
          .label === "Paused" || undefined,
      "root paused",
    );
    // A question after the pause: once its message is here, the pause was looked at too (each look sees every worker).
    const asking = await spawnWorker("/root/b", root.runId);
    await tool(mcp!, "worker_await_human", {
      workerId: asking.workerId,
      reason: "choice",
      question: "A or B?",
    });
    await waitFor(() => hooked().length >= 1 || undefined, "the question's message");
    await settled(["hook"]);
    expect(hooked().map((p) => [p.kind, p.worker?.path, p.reason])).toEqual([
      ["needs_you", "/root/b", "question"],
    ]);

    // Asked for: the Pause that holds now is one message.
    const view = await ext!.ui<NotifySettingsView>("notify_settings");
    await ext!.ui("notify_settings_set", {
      settings: {
        ...view,
        channels: view.channels.map((c) => c.channel),
        kinds: { ...view.kinds, operatorPause: true },
      },
    });
    await waitFor(() => hooked().length >= 2 || undefined, "the pause's message");
    const paused = hooked()[1]!;
    expect(paused).toMatchObject({
      kind: "needs_you",
      reason: "paused",
      state: "Paused",
      worker: { path: "/root" },
    });
    expect(paused.title).toMatch(/^Paused: \/root/);

    await tool(mcp!, "worker_complete", { workerId: asking.workerId });
    await tool(mcp!, "worker_complete", { workerId: root.workerId, summary: "done" });
    await waitFor(() => hooked().some((p) => p.kind === "run_completed") || undefined, "run_completed");
    await settled(["hook"]);
    await roundTrip();
    const kinds = hooked().map((p) => p.kind);
    expect(kinds).toEqual(["needs_you", "needs_you", "run_completed", "test"]);
    expect(hooked()[2]).toMatchObject({
      run: { id: root.runId, name: "Release" },
      state: "Complete",
      worker: null,
    });
  }, 60_000);

  it("a message decided while the receiver is down, the host killed before delivery, goes after restart, once", async () => {
    writeConfig(home, { channels: threeChannels(receiver.base, secrets).slice(0, 1) });
    let up = false;
    receiver.respond = () => (up ? 200 : 503);
    await startHost();
    const { workerId } = await spawnWorker("/root");
    await tool(mcp!, "worker_await_human", { workerId, reason: "choice", question: "A or B?" });
    // The decision and a failed attempt are on disk once status.json says so.
    await waitFor(
      () => notificationStatus(home).some((n) => n.pending === 1 && n.lastError !== null) || undefined,
      "a failed attempt in status.json",
    );
    expect(notificationStatus(home)[0]!.lastError).toMatch(/HTTP 503/);
    await killHost();
    const attempts = receiver.to("/hook/").length;
    expect(delivered()).toEqual([]);
    up = true;
    await startHost();
    await settled(["hook"]);
    await roundTrip();
    expect(receiver.to("/hook/").length).toBeGreaterThan(attempts);
    expect(delivered().map((p) => [p.kind, p.worker?.id ?? null])).toEqual([
      ["needs_you", workerId],
      ["test", null],
    ]);
  }, 60_000);

  it("invalid notifications turn them off with a warning, never the backend: workers go on, the secret unlogged", async () => {
    const botToken = "123:tooShortSecret"; // a bot token has 20 or more characters after the colon
    writeConfig(home, {
      channels: [{ id: "tg", name: "T", enabled: true, kind: "telegram", botToken, chatId: "1" } as never],
    });
    await startHost();
    const { workerId } = await spawnWorker("/root");
    await tool(mcp!, "worker_await_human", { workerId, reason: "choice", question: "A or B?" });
    const log = await waitFor(() => {
      const text = readFileSync(join(home, "logs", "host.log"), "utf8");
      return /notifications are off: .*config\.json is invalid/.test(text) ? text : undefined;
    }, "the warning in host.log");
    expect(log).toMatch(/botToken/);
    expect(log).not.toContain("tooShortSecret");
    expect(receiver.to("/")).toHaveLength(0);
  }, 60_000);
});
