// The real host on a real full disk (a small tmpfs): it stays up, every write is answered STORE_IO naming the cause,
// reads keep working, doctor says so, and once space is freed writes go again with no restart.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canMountTmpfs, fillDisk, mountTmpfs, unmount } from "../tmpfs.ts";
import { waitFor } from "../wait-for.ts";
import { connectMcp, exited, removeHome, spawnServe, tempHome, tool } from "./host-harness.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const canMount = canMountTmpfs();

async function callText(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, text: (result.content as { text?: string }[])[0]?.text ?? "" };
}

describe.runIf(canMount)("the host on a full disk", () => {
  let outer: string;
  let home: string;
  beforeEach(() => {
    outer = tempHome();
    home = join(outer, "home");
    mkdirSync(home);
    expect(mountTmpfs(home, 8 * 1024 * 1024)).toBe(true);
  });
  afterEach(() => {
    unmount(home);
    removeHome(outer);
  });

  it("stays up, refuses writes with STORE_IO, keeps reads and doctor honest, and resumes by itself", async () => {
    const host = spawnServe(home);
    let stderr = "";
    host.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    try {
      const client = await connectMcp(home);
      await tool(client, "run_create", { name: "before" });
      const filler = join(home, "filler");
      fillDisk(filler);

      // The journal's preallocated zeros still take a few records; big ones use them up quickly.
      const objective = "o".repeat(20_000);
      let refused: { isError: boolean; text: string } | undefined;
      for (let i = 0; i < 2_000 && !refused; i++) {
        const answer = await callText(client, "run_create", { name: `fill ${i}`, objective });
        if (answer.isError) refused = answer;
      }
      expect(refused?.text).toMatch(new RegExp(`^STORE_IO: .*no space left on the device holding ${home}`));
      const again = await callText(client, "run_create", { name: "refused" });
      expect(again.text).toMatch(/^STORE_IO: cannot save changes: .*writes resume by themselves/);
      expect(host.exitCode).toBeNull();

      const listed = await tool<{ runs: { name: string }[] }>(client, "run_list", {});
      expect(listed.runs.map((r) => r.name)).toContain("before");
      expect(listed.runs.map((r) => r.name)).not.toContain("refused");
      const summary = await tool<{ storage: { writable: boolean; message: string } }>(
        client,
        "ui_summary",
        {},
      );
      expect(summary.storage).toMatchObject({ writable: false });
      expect(summary.storage.message).toContain("no space left");

      const doctor = spawnSync(process.execPath, [join(ROOT, "bin", "orchestrator.js"), "doctor", "--json"], {
        cwd: ROOT,
        env: { ...process.env, ORCHESTRATOR_HOME: home },
        encoding: "utf8",
      });
      const checks = (
        JSON.parse(doctor.stdout) as { checks: { name: string; status: string; message: string }[] }
      ).checks;
      expect(checks.find((c) => c.name === "storage")).toMatchObject({ status: "FAIL" });

      rmSync(filler);
      await waitFor(
        async () =>
          (await tool<{ storage: { writable: boolean } }>(client, "ui_summary", {})).storage.writable,
        "the host to take writes again",
        20_000,
        100,
      );
      await tool(client, "run_create", { name: "after" });
      const after = await tool<{ runs: { name: string }[] }>(client, "run_list", {});
      expect(after.runs.map((r) => r.name)).toContain("after");
      expect(host.exitCode).toBeNull();
      expect(stderr).not.toMatch(/Unhandled|TypeError|"INTERNAL"|INTERNAL:/);
      expect(stderr).toContain("cannot save changes");
      await client.close();
    } finally {
      host.kill("SIGTERM");
      await exited(host);
    }
  });
});
