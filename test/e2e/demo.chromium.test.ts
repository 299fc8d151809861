// `npm run demo` (README, getting-started): runs offline in headless Chromium, shows the zero-setup mode (a person's
// conversation adopted from the toolbar popup) and then the MCP mode, each with its timeline, and is never silent
// for long once Chromium runs: the arrival time of every output line is measured.
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./harness.ts";

/** The start-up (build, Chromium) ends with this line; from here on the demo prints at least every 2 s. */
const STARTED = "Chromium is running with the extension";
/** Room over the demo's 2 s for a loaded machine (two cores shared with the browser and the host). */
const MAX_GAP_MS = 2_500;

interface Line {
  readonly text: string;
  readonly at: number;
}

function runDemo(): Promise<{ code: number | null; lines: Line[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "scripts/demo.ts")],
      { cwd: ROOT, env: { ...process.env, DEMO_HEADLESS: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const lines: Line[] = [];
    let partial = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      const at = Date.now();
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      for (const text of parts) lines.push({ text, at });
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGTERM"), 280_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (partial !== "") lines.push({ text: partial, at: Date.now() });
      resolve({ code, lines, stderr });
    });
  });
}

describe("npm run demo", () => {
  it("shows the zero-setup mode, then the MCP mode, with a progress line at least every 2 s", async () => {
    const { code, lines, stderr } = await runDemo();
    const stdout = lines.map((l) => l.text).join("\n");
    expect(code, `${stderr}\n${stdout}`).toBe(0);

    const mcpAt = stdout.indexOf("2. MCP mode");
    const zero = stdout.slice(0, mcpAt);
    const mcp = stdout.slice(mcpAt);
    expect(mcpAt).toBeGreaterThan(0);
    // Zero-setup: the person's conversation is adopted from the popup and named after its title.
    expect(zero).toContain("1. Zero-setup mode (no MCP connector)");
    expect(zero).toContain('press "Keep this conversation going"');
    expect(zero).toContain('the popup shows the worker "Plan the database migration"');
    expect(zero).toMatch(/worker \/root adopted the conversation/);
    expect(zero).toMatch(/attempt 2 scheduled \(auto_resume\)/);
    expect(zero).toContain("continuation-state block says: complete");
    expect(zero).toContain("Zero-setup result: Complete; 3 turns sent by the orchestrator");
    expect(zero).toContain("new chats opened: 0");
    // MCP mode, as before.
    expect(mcp).toMatch(/attempt 1 scheduled \(initial\)/);
    expect(mcp).toMatch(/attempt 2 scheduled \(auto_resume\)/);
    expect(mcp).toMatch(/attempt 3 scheduled \(auto_resume\)/);
    expect(stdout).not.toMatch(/attempt 4/);
    expect(mcp).toContain("MCP result: Complete; 3 attempts (initial, auto_resume, auto_resume)");
    expect(mcp).toContain("Retry clicks: 0");

    // Never silent after start-up: no two consecutive lines more than MAX_GAP_MS apart.
    const started = lines.findIndex((l) => l.text.startsWith(STARTED));
    expect(started).toBeGreaterThan(0);
    const gaps = lines
      .slice(started + 1)
      .map((l, i) => ({ ms: l.at - lines[started + i]!.at, after: l.text }));
    const longest = gaps.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: 0, after: "" });
    expect(longest.ms, `the longest silence ended with: ${longest.after}`).toBeLessThanOrEqual(MAX_GAP_MS);
  }, 300_000);
});
