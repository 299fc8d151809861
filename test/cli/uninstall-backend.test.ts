// `orchestrator uninstall` over the real processes: it stops the backend it installed (no terminal: without asking),
// keeps the data directory and says where it is, how big, and how to remove it.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../wait-for.ts";
import { type CliHome, cliHome, exitOf } from "./spawn-cli.ts";

let cli: CliHome;
afterEach(() => cli.cleanup());

describe("orchestrator uninstall", () => {
  it("stops the running backend, keeps the data directory and says how to remove it", async () => {
    cli = cliHome();
    expect((await cli.run(["install", "--browser", "chromium,firefox"])).code).toBe(0);
    const serve = cli.spawn(["serve"], { ORCHESTRATOR_MCP_PORT: "0" });
    const exited = exitOf(serve);
    try {
      await waitFor(
        async () => {
          const { stdout } = await cli.run(["status", "--json"]);
          return (JSON.parse(stdout) as { owner: { pid: number } | null }).owner?.pid === serve.pid;
        },
        "the backend serve started",
        30_000,
        100,
      );
      // Firefox still has the host registered after a Chromium-only uninstall: the backend may be its, so it stays.
      const partial = await cli.run(["uninstall", "--browser", "chromium"]);
      expect(partial.code, partial.stderr).toBe(0);
      expect(partial.stdout).toContain(
        `left the backend running (pid ${serve.pid}): firefox still has the native host`,
      );
      expect((await cli.run(["status", "--json"])).stdout).toContain(`"pid": ${serve.pid}`);

      const result = await cli.run(["uninstall", "--browser", "firefox"]);
      expect(result.code, result.stderr).toBe(0);
      expect(await exited).toBe(0);
      expect(result.stdout).toMatch(/^removed +firefox /m);
      expect(result.stdout).toContain(`stopped the backend (pid ${serve.pid})`);
      expect(result.stdout).toMatch(
        new RegExp(`^Kept the data directory ${cli.dataDir} \\(\\d+(\\.\\d)? (bytes|KiB|MiB)\\)`, "m"),
      );
      expect(result.stdout).toContain(`To remove it too: rm -rf '${cli.dataDir}'`);
      expect(existsSync(path.join(cli.dataDir, "config.json"))).toBe(true);
    } finally {
      serve.kill("SIGKILL");
      await exited;
    }
  }, 90_000);
});
