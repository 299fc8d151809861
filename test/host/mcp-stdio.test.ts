// `orchestrator mcp` gives local MCP clients the same tools over stdio, proxied to the running backend.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import { connectMcp, exited, removeHome, spawnServe, tempHome } from "./host-harness.ts";

const ROOT = join(import.meta.dirname, "..", "..");

describe("orchestrator mcp (stdio proxy)", () => {
  it("lists every tool and changes the one backend's state", { timeout: 60_000 }, async () => {
    const home = tempHome();
    const serve = spawnServe(home);
    try {
      const http = await connectMcp(home);
      const client = new Client({ name: "stdio-agent", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [join(ROOT, "bin", "orchestrator.js"), "mcp"],
          env: { ...(process.env as Record<string, string>), ORCHESTRATOR_HOME: home },
          cwd: ROOT,
        }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...OPERATIONS.keys()].sort());
      const created = await client.callTool({ name: "run_create", arguments: { name: "via stdio" } });
      expect(created.isError).toBeFalsy();
      const listed = await http.callTool({ name: "run_list", arguments: {} });
      expect(JSON.stringify(listed.structuredContent)).toContain("via stdio");
      await client.close();
      await http.close();
    } finally {
      serve.kill("SIGTERM");
      await exited(serve);
      removeHome(home);
    }
  });
});
