// @vitest-environment happy-dom
// The settings page: local switches (overlay, the overlay's adoption offer, notifications), reopening closed worker
// tabs, the concurrency limit with validation, run policy defaults, connected and disconnected, axe-core.
import { afterEach, describe, expect, it } from "vitest";
import { Options } from "../../extension/options/options-view.tsx";
import {
  byTestId,
  expectAccessible,
  mount,
  run,
  ScriptedBackground,
  settle,
  status,
  until,
} from "./ui-kit.ts";

afterEach(() => {
  document.body.innerHTML = "";
});

describe("options page", () => {
  it("switches send local preferences; concurrency is validated and saved; run defaults are listed", async () => {
    const bg = new ScriptedBackground();
    bg.answer("run_list", { runs: [run()] })
      .answer("run_continuation_set_default", {})
      .answer("tab_settings_get", { reopenClosedTabs: true });
    const root = mount(<Options client={bg.client} />);
    await until(() => byTestId(root, "run-policy").length === 1, "policy");
    const overlay = byTestId(root, "pref-overlay")[0]!;
    expect(overlay.getAttribute("role")).toBe("switch");
    expect(overlay.getAttribute("aria-checked")).toBe("true");
    overlay.click();
    byTestId(root, "pref-notifications")[0]!.click();
    const offer = byTestId(root, "pref-offerAdopt")[0]!;
    expect(offer.getAttribute("aria-checked")).toBe("false"); // off by default
    expect(offer.textContent).toBe("Off");
    offer.click();
    expect(bg.other).toEqual([
      { type: "prefs.set", prefs: { overlay: false } },
      { type: "prefs.set", prefs: { notifications: true } },
      { type: "prefs.set", prefs: { offerAdopt: true } },
    ]);
    const input = byTestId(root, "max-generating")[0] as HTMLInputElement;
    const save = byTestId(root, "save-max-generating")[0] as HTMLButtonElement;
    expect(save.disabled).toBe(true); // unchanged
    input.value = "0";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    expect(save.disabled).toBe(true);
    expect(input.getAttribute("aria-invalid")).toBe("true");
    input.value = "5";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    save.click();
    expect(bg.other.at(-1)).toEqual({ type: "concurrency.set", maxGenerating: 5 });
    expect(byTestId(root, "run-policy")[0]!.textContent).toContain("20 turns");
    await expectAccessible(root);
  });

  it("reopening closed worker tabs: on by default, switched through the background, said in plain words", async () => {
    let reopen = true;
    const bg = new ScriptedBackground(status({ connection: "reconnecting" })); // this browser's setting: no host needed
    bg.answer("run_list", { runs: [] })
      .answer("tab_settings_get", () => ({ reopenClosedTabs: reopen }))
      .answer("tab_settings_set", (p: Record<string, unknown>) => {
        reopen = p.reopenClosedTabs === true;
        return { reopenClosedTabs: reopen };
      });
    const root = mount(<Options client={bg.client} />);
    const toggle = () => byTestId(root, "pref-reopenClosedTabs")[0];
    await until(() => toggle() !== undefined, "the switch");
    expect(toggle()!.getAttribute("role")).toBe("switch");
    expect(toggle()!.getAttribute("aria-checked")).toBe("true");
    expect(root.textContent).toContain("Reopen a worker’s conversation when its tab is closed");
    expect(root.textContent).toContain("background tab");
    toggle()!.click();
    await until(() => toggle()!.getAttribute("aria-checked") === "false", "switched off");
    expect(toggle()!.textContent).toBe("Off");
    expect(bg.callsOf("tab_settings_set")).toEqual([{ reopenClosedTabs: false }]);
    await expectAccessible(root);
  });

  it("MCP connection: token masked until revealed, regenerated only after confirming", async () => {
    const token = "a".repeat(60) + "1234";
    const rotated = "b".repeat(60) + "5678";
    const settings = (t: string, reveal: boolean) => ({
      hostVersion: "0.1.0",
      dataDir: "/home/me/.orchestrator",
      mcp: {
        port: 8765,
        url: "http://127.0.0.1:8765/mcp",
        connectorUrl: `http://127.0.0.1:8765/mcp/${reveal ? t : `••••••••${t.slice(-4)}`}`,
        token: reveal ? t : `••••••••${t.slice(-4)}`,
        revealed: reveal,
      },
    });
    let current = token;
    const bg = new ScriptedBackground();
    bg.answer("run_list", { runs: [] })
      .answer("tab_settings_get", { reopenClosedTabs: true })
      .answer("host_settings", (p: Record<string, unknown>) => settings(current, p.reveal === true))
      .answer("host_token_rotate", () => {
        current = rotated;
        return settings(current, false);
      });
    const root = mount(<Options client={bg.client} />);
    const shown = () => byTestId(root, "mcp-token")[0]?.textContent ?? "";
    await until(() => shown() !== "", "MCP settings");
    expect(byTestId(root, "mcp-port")[0]!.textContent).toBe("8765");
    expect(shown()).toBe("••••••••1234");
    expect(root.textContent).not.toContain(token);
    byTestId(root, "mcp-reveal")[0]!.click();
    await until(() => shown() === token, "revealed");
    expect(byTestId(root, "mcp-connector-url")[0]!.textContent).toBe(`http://127.0.0.1:8765/mcp/${token}`);
    byTestId(root, "mcp-reveal")[0]!.click();
    await until(() => shown() === "••••••••1234", "hidden again");
    byTestId(root, "mcp-rotate")[0]!.click();
    await settle();
    expect(bg.callsOf("host_token_rotate")).toEqual([]); // asks first
    const confirm = [...root.querySelectorAll("button")].find(
      (b) => b.textContent === "Yes, regenerate token",
    );
    confirm!.click();
    await until(() => shown() === "••••••••5678", "new token");
    expect(bg.callsOf("host_token_rotate")).toHaveLength(1);
    expect(byTestId(root, "mcp-note")[0]!.textContent).toContain("update your MCP clients");
    await expectAccessible(root);
  });

  it("disconnected: local settings stay usable, host-backed ones are not shown stale", async () => {
    const bg = new ScriptedBackground(status({ connection: "reconnecting" }));
    bg.answer("run_list", { runs: [run()] }).answer("tab_settings_get", { reopenClosedTabs: true });
    const root = mount(<Options client={bg.client} />);
    await settle();
    expect(byTestId(root, "connection-banner")).toHaveLength(1);
    expect(byTestId(root, "pref-overlay")).toHaveLength(1);
    expect(byTestId(root, "run-policy")).toHaveLength(0);
    await expectAccessible(root);
  });
});
