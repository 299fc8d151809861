// The settings page's MCP section end to end at the protocol level: the real host process answers `host_settings`
// (masked unless revealed) and `host_token_rotate` on the browser's native port; the rotated token is on disk and
// the only one the MCP endpoint accepts; no MCP client can reach either through tools, and a relayed session (a second
// browser's host on the owner's IPC socket) may see the settings masked but not reveal or rotate the token.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HostSettings } from "../../shared/host-settings.ts";
import { connectMcp, removeHome, tempHome } from "./host-harness.ts";
import { ScriptedExtension } from "./scripted-extension.ts";

const tokenOnDisk = (home: string) =>
  (JSON.parse(readFileSync(join(home, "config.json"), "utf8")) as { token: string }).token;

/** One initialize request with `token`: the HTTP status says whether the endpoint accepts it. */
async function statusWith(url: string, token: string): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "probe", version: "1" },
      },
    }),
  });
  await res.body?.cancel();
  return res.status;
}

describe("host settings over the native port", () => {
  let home: string;
  let ext: ScriptedExtension;

  beforeEach(async () => {
    home = tempHome();
    ext = ScriptedExtension.spawn({ home });
    await ext.hello();
  });

  afterEach(async () => {
    ext.closeStdin();
    await ext.exited;
    removeHome(home);
  });

  it("shows the token masked unless revealed, and rotates it on disk and in the running server", async () => {
    const mcp = await connectMcp(home); // waits for the MCP server to be up
    await mcp.close();
    const before = tokenOnDisk(home);
    const masked = await ext.ui<HostSettings>("host_settings");
    expect(masked.mcp).toMatchObject({ token: `••••••••${before.slice(-4)}`, revealed: false });
    expect(JSON.stringify(masked)).not.toContain(before);
    const shown = await ext.ui<HostSettings>("host_settings", { reveal: true });
    expect(shown.mcp).toMatchObject({ token: before, connectorUrl: `${shown.mcp!.url}/${before}` });
    expect(shown.mcp!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(await statusWith(shown.mcp!.url, before)).toBe(200);

    const rotated = await ext.ui<HostSettings>("host_token_rotate");
    const after = tokenOnDisk(home);
    expect(after).toMatch(/^[0-9a-f]{64}$/);
    expect(after).not.toBe(before);
    expect(rotated.mcp).toMatchObject({ token: `••••••••${after.slice(-4)}`, revealed: false });
    expect(await statusWith(shown.mcp!.url, before)).toBe(401);
    expect(await statusWith(shown.mcp!.url, after)).toBe(200);
    const agent = await connectMcp(home); // reads the new token from config.json
    const tools = (await agent.listTools()).tools.map((t) => t.name);
    expect(tools).not.toContain("host_settings");
    expect(tools).not.toContain("host_token_rotate");
    await agent.close();
  });

  it("refuses a relayed session the token (FORBIDDEN) while the browser's own port keeps both", async () => {
    const relay = ScriptedExtension.spawn({ home, executorId: "second-browser" });
    try {
      await relay.hello();
      const before = tokenOnDisk(home);
      const masked = await relay.ui<HostSettings>("host_settings");
      expect(masked.mcp?.token).toBe(`••••••••${before.slice(-4)}`);
      expect(JSON.stringify(masked)).not.toContain(before);
      const reveal = await relay.uiError("host_settings", { reveal: true });
      expect(reveal.code).toBe("FORBIDDEN");
      expect(reveal.message).toMatch(/orchestrator connector/);
      expect((await relay.uiError("host_token_rotate")).code).toBe("FORBIDDEN");
      expect(tokenOnDisk(home)).toBe(before);
      expect(JSON.stringify(relay.received)).not.toContain(before);

      const shown = await ext.ui<HostSettings>("host_settings", { reveal: true });
      expect(shown.mcp?.token).toBe(before);
      await ext.ui<HostSettings>("host_token_rotate");
      expect(tokenOnDisk(home)).not.toBe(before);
    } finally {
      relay.closeStdin();
      await relay.exited;
    }
  });

  it("refuses bad parameters with a clear code", async () => {
    const error = await ext.uiError("host_settings", { reveal: "yes" });
    expect(error.code).toBe("INVALID_INPUT");
  });
});
