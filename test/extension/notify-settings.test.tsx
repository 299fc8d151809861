// @vitest-environment happy-dom
// The settings page's Notifications section against a scripted background: channels listed with masked secrets and
// their delivery in words; adding a Telegram channel, editing without touching a masked secret, removing after the
// in-place question, Send test's answer, the host's INVALID_INPUT next to the form, the per-kind switches and quiet
// hours — each checked by what `notify_settings_set` was sent; keyboard focus and axe-core.
import { afterEach, describe, expect, it } from "vitest";
import { maskSecret } from "../../shared/host-settings.ts";
import { Options } from "../../extension/options/options-view.tsx";
import { BOT_TOKEN, maskedView, scriptNotify, TOPIC, WEBHOOK_URL } from "./notify-kit.ts";
import { byTestId, expectAccessible, mount, ScriptedBackground, settle, status, until } from "./ui-kit.ts";

afterEach(() => {
  document.body.innerHTML = "";
});

function page(): { root: HTMLElement; bg: ScriptedBackground; sent: () => Record<string, unknown>[] } {
  const bg = new ScriptedBackground();
  bg.answer("run_list", { runs: [] }).answer("tab_settings_get", { reopenClosedTabs: true });
  scriptNotify(bg, maskedView(Date.now()));
  const root = mount(<Options client={bg.client} />);
  return {
    root,
    bg,
    sent: () => bg.callsOf("notify_settings_set").map((p) => p.settings as Record<string, unknown>),
  };
}

const rows = (root: HTMLElement) => byTestId(root, "notify-channel");
const row = (root: HTMLElement, id: string) => rows(root).find((r) => r.dataset.channelId === id)!;

function typeInto(root: ParentNode, testId: string, value: string): void {
  const input = byTestId(root, testId)[0] as HTMLInputElement | undefined;
  if (!input) throw new Error(`no input ${testId}`);
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

async function loaded(root: HTMLElement): Promise<void> {
  await until(() => rows(root).length === 3, "the channels");
}

describe("settings page: Notifications", () => {
  it("lists each channel with its kind, its secrets masked as the host sent them, and its delivery in words", async () => {
    const { root } = page();
    await loaded(root);
    const text = (id: string) => row(root, id).textContent ?? "";
    expect(text("telegram")).toContain("Phone");
    expect(text("telegram")).toContain("Telegram");
    expect(text("telegram")).toContain(maskSecret(BOT_TOKEN));
    expect(text("telegram")).toContain("-100123456");
    expect(byTestId(row(root, "telegram"), "notify-status")[0]!.textContent).toBe("● Delivered 3 min ago");
    expect(byTestId(row(root, "webhook"), "notify-status")[0]!.textContent).toBe(
      "✕ Failing: HTTP 500 from hooks.example.com · 1 waiting",
    );
    expect(byTestId(row(root, "ntfy"), "notify-status")[0]!.textContent).toBe("● 2 waiting");
    // The enabled switch says On/Off in words and is a switch.
    const ntfySwitch = byTestId(row(root, "ntfy"), "notify-enabled")[0]!;
    expect(ntfySwitch.getAttribute("role")).toBe("switch");
    expect(ntfySwitch.getAttribute("aria-checked")).toBe("false");
    expect(ntfySwitch.textContent).toBe("Off");
    for (const secret of [BOT_TOKEN, WEBHOOK_URL, TOPIC]) expect(root.textContent).not.toContain(secret);
    // The kinds and quiet hours as the host has them.
    expect(byTestId(root, "notify-kind-switch-needsYou")[0]!.getAttribute("aria-checked")).toBe("true");
    expect(byTestId(root, "notify-kind-switch-operatorPause")[0]!.getAttribute("aria-checked")).toBe("false");
    expect((byTestId(root, "notify-quiet-on")[0] as HTMLInputElement).checked).toBe(false);
    await expectAccessible(root);
  });

  it("adds a Telegram channel: the whole settings are sent, the others' secrets still masked", async () => {
    const { root, sent } = page();
    await loaded(root);
    const add = byTestId(root, "notify-add")[0]!;
    add.focus();
    add.click();
    await until(() => byTestId(root, "notify-form").length === 1, "the form");
    // The kind picker has the focus; the Telegram fields appear when it is chosen.
    await until(
      () => document.activeElement === byTestId(root, "notify-kind-webhook")[0],
      "focus on the kind",
    );
    expect(byTestId(root, "notify-botToken")).toHaveLength(0);
    byTestId(root, "notify-kind-telegram")[0]!.click();
    await until(() => byTestId(root, "notify-botToken").length === 1, "telegram fields");
    const form = byTestId(root, "notify-form")[0]!;
    expect(form.querySelector("summary")?.textContent).toBe("Advanced: API base URL");
    expect((byTestId(root, "notify-apiBase")[0] as HTMLInputElement).value).toBe("https://api.telegram.org");
    typeInto(root, "notify-name", "  Laptop bot ");
    typeInto(root, "notify-botToken", "987654:ZZZZZZZZZZZZZZZZZZZZZZZZ");
    typeInto(root, "notify-chatId", "@my_channel");
    await settle();
    await expectAccessible(root);
    byTestId(root, "notify-form-save")[0]!.click();
    await until(() => byTestId(root, "notify-form").length === 0, "the form closes");
    const settings = sent()[0]!;
    const view = maskedView(0);
    expect(settings).toEqual({
      channels: [
        ...view.channels.map((c) => c.channel),
        {
          id: "telegram-2", // "telegram" is taken
          name: "Laptop bot",
          enabled: true,
          kind: "telegram",
          botToken: "987654:ZZZZZZZZZZZZZZZZZZZZZZZZ",
          chatId: "@my_channel",
          apiBase: "https://api.telegram.org",
        },
      ],
      kinds: view.kinds,
      quietHours: null,
    });
    await until(() => rows(root).length === 4, "the new channel listed");
    expect(row(root, "telegram-2").textContent).toContain(maskSecret("987654:ZZZZZZZZZZZZZZZZZZZZZZZZ"));
    expect(byTestId(row(root, "telegram-2"), "notify-status")[0]!.textContent).toBe("● Nothing sent yet");
    expect(byTestId(root, "notify-note")[0]!.textContent).toBe("Channel Laptop bot added.");
    expect(byTestId(root, "notify-note")[0]!.getAttribute("role")).toBe("status");
    // Back where the person started.
    await until(() => document.activeElement === byTestId(root, "notify-add")[0], "focus on Add a channel");
  });

  it("edits a channel without touching its masked secret: the masked value goes back unchanged", async () => {
    const { root, sent } = page();
    await loaded(root);
    byTestId(row(root, "webhook"), "notify-edit")[0]!.click();
    await until(() => byTestId(root, "notify-form").length === 1, "the form");
    await until(() => document.activeElement === byTestId(root, "notify-name")[0], "focus on the name");
    const url = byTestId(root, "notify-url")[0] as HTMLInputElement;
    expect(url.value).toBe(maskSecret(WEBHOOK_URL));
    expect(byTestId(root, "notify-form")[0]!.textContent).toContain(
      "leave it as it is to keep the stored one",
    );
    expect(byTestId(root, "notify-kind-webhook")).toHaveLength(0); // the kind of a channel does not change
    typeInto(root, "notify-name", "Ops hook");
    (byTestId(root, "notify-form-enabled")[0] as HTMLInputElement).click();
    await settle();
    byTestId(root, "notify-form-save")[0]!.click();
    await until(() => sent().length === 1, "saved");
    const channels = sent()[0]!.channels as Record<string, unknown>[];
    expect(channels[1]).toEqual({
      id: "webhook",
      name: "Ops hook",
      enabled: false,
      kind: "webhook",
      url: maskSecret(WEBHOOK_URL),
    });
    expect(channels[0]).toEqual(maskedView(0).channels[0]!.channel);
    await until(() => byTestId(root, "notify-form").length === 0, "closed");
    // Focus goes back to the Edit button of the channel that was edited.
    await until(
      () => document.activeElement === byTestId(row(root, "webhook"), "notify-edit")[0],
      "focus on Edit",
    );
  });

  it("a new secret typed over the masked one is sent instead", async () => {
    const { root, sent } = page();
    await loaded(root);
    byTestId(row(root, "ntfy"), "notify-edit")[0]!.click();
    await until(() => byTestId(root, "notify-form").length === 1, "the form");
    typeInto(root, "notify-topic", "new-topic-9");
    typeInto(root, "notify-token", "tk_abc");
    await settle();
    byTestId(root, "notify-form-save")[0]!.click();
    await until(() => sent().length === 1, "saved");
    expect((sent()[0]!.channels as Record<string, unknown>[])[2]).toEqual({
      id: "ntfy",
      name: "ntfy",
      enabled: false,
      kind: "ntfy",
      server: "https://ntfy.sh",
      topic: "new-topic-9",
      token: "tk_abc",
    });
  });

  it("shows the host's INVALID_INPUT next to the form and keeps what was typed", async () => {
    const { root, bg } = page();
    await loaded(root);
    bg.refuse(
      "notify_settings_set",
      "INVALID_INPUT",
      "notify_settings_set: channels.3.botToken: a bot token like 123456:ABC…",
    );
    byTestId(root, "notify-add")[0]!.click();
    await until(() => byTestId(root, "notify-form").length === 1, "the form");
    byTestId(root, "notify-kind-telegram")[0]!.click();
    await until(() => byTestId(root, "notify-botToken").length === 1, "telegram fields");
    typeInto(root, "notify-name", "Bot");
    typeInto(root, "notify-botToken", "not a token");
    typeInto(root, "notify-chatId", "42");
    await settle();
    byTestId(root, "notify-form-save")[0]!.click();
    await until(() => byTestId(root, "notify-form-error").length === 1, "the refusal");
    const refusal = byTestId(root, "notify-form-error")[0]!;
    expect(refusal.getAttribute("role")).toBe("alert");
    expect(refusal.textContent).toBe(
      "notify_settings_set: channels.3.botToken: a bot token like 123456:ABC…",
    );
    expect(byTestId(root, "notify-form")[0]!.contains(refusal)).toBe(true);
    expect((byTestId(root, "notify-botToken")[0] as HTMLInputElement).value).toBe("not a token");
    expect(rows(root)).toHaveLength(3);
    await expectAccessible(root);
    // Escape closes the form without sending anything more.
    byTestId(root, "notify-name")[0]!.dispatchEvent(
      new KeyboardEvent("keydown", { key: "Escape", bubbles: true }),
    );
    await until(() => byTestId(root, "notify-form").length === 0, "closed");
    expect(bg.callsOf("notify_settings_set")).toHaveLength(1);
  });

  it("Send test shows the host's answer, success or failure, as a status", async () => {
    const { root, bg } = page();
    await loaded(root);
    bg.answer("notify_test", (p: Record<string, unknown>) =>
      p.channelId === "telegram"
        ? { ok: true, detail: "HTTP 200 from api.telegram.org" }
        : { ok: false, detail: "HTTP 500 from hooks.example.com" },
    );
    byTestId(row(root, "telegram"), "notify-test")[0]!.click();
    byTestId(row(root, "webhook"), "notify-test")[0]!.click();
    const result = (id: string) => byTestId(row(root, id), "notify-test-result")[0]!;
    await until(() => result("webhook").textContent !== "", "the answers");
    expect(result("telegram").textContent).toBe("✓ Test delivered: HTTP 200 from api.telegram.org");
    expect(result("webhook").textContent).toBe("✕ Test failed: HTTP 500 from hooks.example.com");
    expect(result("webhook").getAttribute("role")).toBe("status");
    expect(bg.callsOf("notify_test")).toEqual([{ channelId: "telegram" }, { channelId: "webhook" }]);
    // A refusal of the request itself (the host is gone) is an alert next to the button.
    bg.refuse("notify_test", "HOST_UNAVAILABLE", "the native port is not open");
    byTestId(row(root, "ntfy"), "notify-test")[0]!.click();
    await until(() => row(root, "ntfy").querySelector('[role="alert"]') !== null, "the refusal");
    expect(row(root, "ntfy").querySelector('[role="alert"]')!.textContent).toBe(
      "the native port is not open",
    );
    await expectAccessible(root);
  });

  it("switches a channel on and removes one only after the in-place question", async () => {
    const { root, sent } = page();
    await loaded(root);
    byTestId(row(root, "ntfy"), "notify-enabled")[0]!.click();
    await until(() => sent().length === 1, "switched");
    expect((sent()[0]!.channels as Record<string, unknown>[])[2]).toMatchObject({
      id: "ntfy",
      enabled: true,
      topic: maskSecret(TOPIC),
    });
    await until(
      () => byTestId(row(root, "ntfy"), "notify-enabled")[0]!.getAttribute("aria-checked") === "true",
      "shown on",
    );
    byTestId(row(root, "webhook"), "notify-remove")[0]!.click();
    await settle();
    expect(sent()).toHaveLength(1); // asks first
    expect(document.activeElement?.textContent).toBe("Cancel");
    expect(row(root, "webhook").textContent).toContain("Remove Team hook?");
    byTestId(row(root, "webhook"), "notify-remove-confirm")[0]!.click();
    await until(() => rows(root).length === 2, "removed");
    expect((sent()[1]!.channels as Record<string, unknown>[]).map((c) => c.id)).toEqual(["telegram", "ntfy"]);
  });

  it("the per-kind switches and quiet hours are sent with the rest of the settings", async () => {
    const { root, sent } = page();
    await loaded(root);
    // Two switches pressed at once: the second change is made on the answer to the first, not undoing it.
    byTestId(root, "notify-kind-switch-workerEnded")[0]!.click();
    byTestId(root, "notify-kind-switch-operatorPause")[0]!.click();
    await until(() => sent().length === 2, "both saved");
    expect(sent()[0]!.kinds).toEqual({
      needsYou: true,
      runEnded: true,
      workerEnded: true,
      resolved: false,
      operatorPause: false,
    });
    expect(sent()[1]!.kinds).toEqual({
      needsYou: true,
      runEnded: true,
      workerEnded: true,
      resolved: false,
      operatorPause: true,
    });
    expect((sent()[1]!.channels as unknown[]).length).toBe(3);
    await until(
      () => byTestId(root, "notify-kind-switch-operatorPause")[0]!.getAttribute("aria-checked") === "true",
      "shown on",
    );
    expect(byTestId(root, "notify-kind-switch-workerEnded")[0]!.getAttribute("aria-checked")).toBe("true");

    const save = () => byTestId(root, "notify-quiet-save")[0] as HTMLButtonElement;
    (byTestId(root, "notify-quiet-on")[0] as HTMLInputElement).click();
    typeInto(root, "notify-quiet-start", "22:30");
    typeInto(root, "notify-quiet-end", "06:45");
    await settle();
    save().click();
    await until(() => sent().length === 3, "quiet hours saved");
    expect(sent()[2]!.quietHours).toEqual({ start: "22:30", end: "06:45" });
    expect(sent()[2]!.kinds).toMatchObject({ workerEnded: true, operatorPause: true });
    await until(() => byTestId(root, "notify-note")[0]!.textContent === "Quiet hours saved.", "said");
    expect((byTestId(root, "notify-quiet-start")[0] as HTMLInputElement).value).toBe("22:30");
    (byTestId(root, "notify-quiet-on")[0] as HTMLInputElement).click();
    await settle();
    expect((byTestId(root, "notify-quiet-start")[0] as HTMLInputElement).disabled).toBe(true);
    save().click();
    await until(() => sent().length === 4, "quiet hours off");
    expect(sent()[3]!.quietHours).toBeNull();
    await expectAccessible(root);
  });

  it("disconnected: nothing is read and the section says why; a host that refuses the read is said in words", async () => {
    const bg = new ScriptedBackground(status({ connection: "reconnecting" }));
    bg.answer("run_list", { runs: [] }).answer("tab_settings_get", { reopenClosedTabs: true });
    const root = mount(<Options client={bg.client} />);
    await settle();
    expect(byTestId(root, "notify-settings")[0]!.textContent).toContain("Connect to the host to see these.");
    expect(bg.callsOf("notify_settings")).toHaveLength(0);
    bg.refuse("notify_settings", "INVALID_INPUT", "unknown request notify_settings");
    bg.setStatus({ connection: "connected" });
    await until(
      () => byTestId(root, "notify-settings")[0]!.querySelector('[role="alert"]') !== null,
      "refusal",
    );
    expect(byTestId(root, "notify-settings")[0]!.textContent).toContain("unknown request notify_settings");
    expect(byTestId(root, "notify-add")).toHaveLength(0);
    await expectAccessible(root);
  });
});
