// `npm run demo` (README, getting-started): runs offline in headless Chromium and prints the three-attempt timeline.
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./harness.ts";

describe("npm run demo", () => {
  it("completes a three-turn worker with two automatic resumes and prints the timeline", async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "scripts/demo.ts")],
          { cwd: ROOT, env: { ...process.env, DEMO_HEADLESS: "1" }, timeout: 240_000 },
          (error, out, err) =>
            resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
        );
      },
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/attempt 1 scheduled \(initial\)/);
    expect(stdout).toMatch(/attempt 2 scheduled \(auto_resume\)/);
    expect(stdout).toMatch(/attempt 3 scheduled \(auto_resume\)/);
    expect(stdout).not.toMatch(/attempt 4/);
    expect(stdout).toContain("Result: Complete; 3 attempts (initial, auto_resume, auto_resume)");
    expect(stdout).toContain("Retry clicks: 0");
  }, 300_000);
});
