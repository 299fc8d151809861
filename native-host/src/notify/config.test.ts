// The `notifications` key of config.json: absent means the defaults, a valid one is read back as saved (the file
// staying owner-only), and an invalid one is a CONFIG_INVALID error naming the file and the field, not the value.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_NOTIFY_SETTINGS, type NotifySettings } from "../../../shared/notify-settings.ts";
import { loadHostConfig, loadNotifySettings, saveNotifySettings } from "../config/host-config.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "orch-notify-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = () => join(dir, "config.json");
const write = (value: unknown) => writeFileSync(file(), JSON.stringify(value), { mode: 0o644 });
const BASE = { port: 8765, token: "a".repeat(64), maxGeneratingTabs: 3 };

describe("notification settings in config.json", () => {
  it("absent: the defaults, and nothing is created", () => {
    expect(loadNotifySettings(dir)).toEqual(DEFAULT_NOTIFY_SETTINGS);
    expect(() => statSync(file())).toThrow();
    write(BASE);
    expect(loadNotifySettings(dir)).toEqual(DEFAULT_NOTIFY_SETTINGS);
  });

  it("saved and read back with the rest of the file kept, mode 0600", () => {
    write(BASE);
    const settings: NotifySettings = {
      ...DEFAULT_NOTIFY_SETTINGS,
      channels: [
        {
          id: "phone",
          name: "Phone",
          enabled: true,
          kind: "ntfy",
          server: "https://ntfy.sh",
          topic: "t0p1c",
        },
      ],
      quietHours: { start: "23:00", end: "06:30" },
    };
    saveNotifySettings(dir, settings);
    expect(loadNotifySettings(dir)).toEqual(settings);
    expect(loadHostConfig(dir, {})).toMatchObject({ ...BASE, notifications: settings });
    expect(JSON.parse(readFileSync(file(), "utf8"))).toMatchObject({ token: BASE.token });
    expect(statSync(file()).mode & 0o777).toBe(0o600);
  });

  it("invalid: CONFIG_INVALID naming the file and the field, without the secret; port and token still load", () => {
    const botToken = "123:tooShortSecretValue";
    write({
      ...BASE,
      notifications: {
        channels: [{ id: "tg", name: "T", enabled: true, kind: "telegram", botToken, chatId: "12" }],
      },
    });
    // A mistake in the notifications never stops the backend: the MCP settings load as before.
    expect(loadHostConfig(dir, {})).toMatchObject({ port: BASE.port, token: BASE.token });
    {
      let error: unknown;
      try {
        loadNotifySettings(dir);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: "CONFIG_INVALID" });
      const message = (error as Error).message;
      expect(message).toContain(file());
      expect(message).toMatch(/notifications/);
      expect(message).toMatch(/botToken/);
      expect(message).not.toContain("tooShortSecretValue");
    }
  });
});
