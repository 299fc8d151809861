import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TestCli } from "./cli-test-kit.ts";
import { testCli } from "./cli-test-kit.ts";
import type { ConnectorInfo } from "./connector.ts";

const TOKEN = "0123456789abcdef".repeat(4);

let cli: TestCli;
afterEach(() => cli.cleanup());

function writeConfig(port: number): void {
  mkdirSync(cli.dataDir, { recursive: true });
  writeFileSync(path.join(cli.dataDir, "config.json"), JSON.stringify({ port, token: TOKEN }), {
    mode: 0o600,
  });
}

describe("orchestrator connector", () => {
  it("prints both URL forms, the tunnel commands and the warnings from config.json", async () => {
    cli = testCli();
    writeConfig(9123);
    expect(await cli.run("connector")).toBe(0);
    const text = cli.out.join("\n");
    expect(text).toContain("http://127.0.0.1:9123/mcp\n");
    expect(text).toContain(`Authorization: Bearer ${TOKEN}`);
    expect(text).toContain(`http://127.0.0.1:9123/mcp/${TOKEN}`);
    expect(text).toContain("cloudflared tunnel --url http://127.0.0.1:9123");
    expect(text).toContain("ngrok http");
    expect(text).toMatch(/token is the only guard/);
    expect(text).toMatch(/readOnlyHint/);
  });

  it("--json prints a machine-readable object", async () => {
    cli = testCli();
    writeConfig(9124);
    expect(await cli.run("connector", "--json")).toBe(0);
    const info = JSON.parse(cli.out.join("\n")) as ConnectorInfo;
    expect(info).toMatchObject({
      createdConfig: false,
      port: 9124,
      token: TOKEN,
      url: "http://127.0.0.1:9124/mcp",
      headers: { Authorization: `Bearer ${TOKEN}` },
      tokenUrl: `http://127.0.0.1:9124/mcp/${TOKEN}`,
      stdio: {
        command: process.execPath,
        args: [path.join(cli.ctx.projectRoot, "bin", "orchestrator.js"), "mcp"],
      },
    });
    expect(info.tunnel.cloudflared).toContain("127.0.0.1:9124");
    expect(info.warnings.length).toBeGreaterThanOrEqual(2);
  });

  it("creates config.json (mode 0600, fresh token) when the backend has not run yet", async () => {
    cli = testCli();
    expect(await cli.run("connector", "--json")).toBe(0);
    const info = JSON.parse(cli.out.join("\n")) as ConnectorInfo;
    const file = path.join(cli.dataDir, "config.json");
    const config = JSON.parse(readFileSync(file, "utf8")) as { port: number; token: string };
    expect(info).toMatchObject({ createdConfig: true, port: config.port, token: config.token });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("honours a fixed ORCHESTRATOR_MCP_PORT", async () => {
    cli = testCli({}, { ORCHESTRATOR_MCP_PORT: "9555" });
    writeConfig(9124);
    await cli.run("connector", "--json");
    expect((JSON.parse(cli.out.join("\n")) as ConnectorInfo).url).toBe("http://127.0.0.1:9555/mcp");
  });

  it("fails clearly on an invalid config.json", async () => {
    cli = testCli();
    mkdirSync(cli.dataDir, { recursive: true });
    writeFileSync(path.join(cli.dataDir, "config.json"), "{");
    expect(await cli.run("connector")).toBe(1);
    expect(cli.err.join("\n")).toMatch(/config\.json is invalid: not valid JSON/);
  });
});
