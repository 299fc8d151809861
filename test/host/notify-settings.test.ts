// The settings page's notification requests at the protocol level (docs/operator-guide.md, "Notifications"): the real
// host answers `notify_settings` with every secret masked, `notify_settings_set` keeps a secret sent back masked and
// refuses invalid settings with INVALID_INPUT, `notify_test` reaches the receiver; a relayed session may only read.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { maskSecret } from "../../shared/host-settings.ts";
import type { NotifySettings, NotifySettingsView } from "../../shared/notify-settings.ts";
import { removeHome, tempHome } from "./host-harness.ts";
import {
  allSecrets,
  type ChannelSecrets,
  newSecrets,
  Receiver,
  threeChannels,
  writeConfig,
} from "./notify-receiver.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

let home: string;
let receiver: Receiver;
let secrets: ChannelSecrets;
let ext: ScriptedExtension;

beforeEach(async () => {
  home = tempHome();
  receiver = await Receiver.start();
  secrets = newSecrets();
  writeConfig(home, { channels: threeChannels(receiver.base, secrets) });
  ext = ScriptedExtension.spawn({ home });
  await ext.hello();
});

afterEach(async () => {
  ext.closeStdin();
  await ext.exited;
  await receiver.close();
  removeHome(home);
});

const onDisk = (): NotifySettings =>
  (JSON.parse(readFileSync(join(home, "config.json"), "utf8")) as { notifications: NotifySettings })
    .notifications;

/** The view as the page sends it back: channels as shown (masked), with changes. */
const sendBack = (
  view: NotifySettingsView,
  change: (s: Record<string, unknown>) => Record<string, unknown>,
) =>
  change({ channels: view.channels.map((c) => c.channel), kinds: view.kinds, quietHours: view.quietHours });

function expectNoSecret(value: unknown): void {
  const text = JSON.stringify(value);
  for (const secret of allSecrets(secrets)) expect(text).not.toContain(secret);
}

describe("notification settings over the native port", () => {
  it("shows secrets masked; a masked secret sent back keeps the stored one, a new one replaces it", async () => {
    const view = await ext.ui<NotifySettingsView>("notify_settings");
    expectNoSecret(view);
    const [hook, phone, tg] = view.channels.map((c) => c.channel as Record<string, unknown>);
    expect(hook).toMatchObject({
      id: "hook",
      kind: "webhook",
      url: maskSecret(`${receiver.base}/hook/${secrets.hookToken}`),
    });
    expect(phone).toMatchObject({
      kind: "ntfy",
      server: `${receiver.base}/ntfy`,
      topic: maskSecret(secrets.topic),
      token: maskSecret(secrets.ntfyToken),
    });
    expect(tg).toMatchObject({ kind: "telegram", botToken: maskSecret(secrets.botToken), chatId: "4242" });
    expect(view.channels[0]!.status).toEqual({
      lastAttemptAt: null,
      lastDeliveredAt: null,
      lastError: null,
      pending: 0,
    });
    expect(view.kinds).toMatchObject({
      needsYou: true,
      runEnded: true,
      resolved: false,
      operatorPause: false,
    });

    const newToken = "777777:abcdefghijklmnopqrstuvwxyz";
    const saved = await ext.ui<NotifySettingsView>("notify_settings_set", {
      settings: sendBack(view, (s) => ({
        ...s,
        channels: [
          { ...hook, name: "Team hook" },
          { ...phone, token: undefined }, // absent: kept as well
          { ...tg, botToken: newToken },
        ],
        kinds: { ...view.kinds, resolved: true },
        quietHours: { start: "22:30", end: "07:00" },
      })),
    });
    expectNoSecret(saved);
    expect(saved.channels[0]!.channel).toMatchObject({ name: "Team hook" });
    expect(saved.channels[2]!.channel).toMatchObject({ botToken: maskSecret(newToken) });
    const disk = onDisk();
    expect(disk.channels[0]).toMatchObject({
      name: "Team hook",
      url: `${receiver.base}/hook/${secrets.hookToken}`,
    });
    expect(disk.channels[1]).toMatchObject({ topic: secrets.topic, token: secrets.ntfyToken });
    expect(disk.channels[2]).toMatchObject({ botToken: newToken });
    expect(disk.kinds.resolved).toBe(true);
    expect(disk.quietHours).toEqual({ start: "22:30", end: "07:00" });
    expect(statSync(join(home, "config.json")).mode & 0o777).toBe(0o600);
    expect(await ext.ui<NotifySettingsView>("notify_settings")).toEqual(saved);
  });

  it("refuses invalid settings with INVALID_INPUT and leaves config.json as it was", async () => {
    const view = await ext.ui<NotifySettingsView>("notify_settings");
    const before = readFileSync(join(home, "config.json"), "utf8");
    const [hook] = view.channels.map((c) => c.channel as Record<string, unknown>);
    const attempts = [
      sendBack(view, (s) => ({ ...s, channels: [{ ...hook, url: "ftp://example.com/x" }] })),
      sendBack(view, (s) => ({ ...s, channels: [hook, hook] })), // the same id twice
      sendBack(view, (s) => ({ ...s, channels: [{ ...hook, id: "other" }] })), // masked, but nothing stored for it
      sendBack(view, (s) => ({ ...s, quietHours: { start: "25:00", end: "07:00" } })),
      sendBack(view, (s) => ({ ...s, kinds: { ...view.kinds, sometimes: true } })),
    ];
    for (const settings of attempts) {
      const error = await ext.uiError("notify_settings_set", { settings });
      expect(error.code).toBe("INVALID_INPUT");
      expectNoSecret(error);
    }
    expect((await ext.uiError("notify_settings_set", {})).code).toBe("INVALID_INPUT");
    expect(readFileSync(join(home, "config.json"), "utf8")).toBe(before);
  });

  it("notify_test reaches the receiver (Telegram through its API base); a refusal is told without a secret", async () => {
    const ok = await ext.ui<{ ok: boolean; detail: string }>("notify_test", { channelId: "tg" });
    expect(ok).toMatchObject({ ok: true });
    const [hit] = receiver.to("/tg/");
    expect(hit?.path).toBe(`/tg/bot${secrets.botToken}/sendMessage`);
    expect(JSON.parse(hit!.body)).toMatchObject({
      chat_id: "4242",
      text: expect.stringMatching(/^Test/) as unknown,
    });

    receiver.respond = () => 401;
    const refused = await ext.ui<{ ok: boolean; detail: string }>("notify_test", { channelId: "phone" });
    expect(refused.ok).toBe(false);
    expect(refused.detail).toMatch(/HTTP 401/);
    expectNoSecret(refused);
    expect((await ext.uiError("notify_test", { channelId: "nope" })).code).toBe("NOT_FOUND");
    expect((await ext.uiError("notify_test", {})).code).toBe("INVALID_INPUT");
  });

  it("a test message waiting for a receiver that hangs holds up nothing else on the port", async () => {
    receiver.hang = (path) => path.startsWith("/hook/");
    ext.send({
      kind: "ui.request",
      requestId: "slow-test",
      op: "notify_test",
      params: { channelId: "hook" },
    });
    await waitFor(() => receiver.to("/hook/").length === 1 || undefined, "the test message at the receiver");
    // Answered while the test still waits for its receiver: requests and reports are not queued behind it.
    const view = await ext.ui<NotifySettingsView>("notify_settings");
    expect(view.channels).toHaveLength(3);
    const answered = () => ext.received.find((m) => m.kind === "ui.response" && m.requestId === "slow-test");
    expect(answered()).toBeUndefined();
    receiver.dropHeld();
    const response = await waitFor(answered, "the test's answer");
    expect(response).toMatchObject({ ok: true, result: { ok: false } });
    expectNoSecret(response);
  });

  it("a relayed session (a second browser's host) reads the settings masked but may not change or test them", async () => {
    const relay = ScriptedExtension.spawn({ home, executorId: "second-browser" });
    try {
      await relay.hello();
      const view = await relay.ui<NotifySettingsView>("notify_settings");
      expectNoSecret(view);
      expect(view.channels).toHaveLength(3);
      expect((await relay.uiError("notify_settings_set", { settings: sendBack(view, (s) => s) })).code).toBe(
        "FORBIDDEN",
      );
      expect((await relay.uiError("notify_test", { channelId: "hook" })).code).toBe("FORBIDDEN");
      expect(receiver.hits).toEqual([]);
      expectNoSecret(relay.received);
    } finally {
      relay.closeStdin();
      await relay.exited;
    }
  });
});
