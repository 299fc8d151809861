// Every test file belongs to exactly one Vitest project (unit, host, e2e): a file no project includes would never run,
// and one in two projects would run twice. The projects are defined in vite.config.ts; CONTRIBUTING.md explains them.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const SKIP = new Set(["node_modules", "dist", ".git", ".tmp", "coverage", "test-results"]);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(e.name) ? [relative(root, path)] : [];
  });
}

describe("Vitest projects", () => {
  it("run every test file exactly once, browser-free ones in unit", () => {
    const listed = JSON.parse(
      execFileSync(
        process.execPath,
        [join(root, "node_modules/vitest/vitest.mjs"), "list", "--filesOnly", "--json"],
        {
          cwd: root,
          encoding: "utf8",
          env: { ...process.env, NO_COLOR: "1" },
        },
      ),
    ) as { file: string; projectName: string }[];
    const projectsOf = new Map<string, string[]>();
    for (const { file, projectName } of listed) {
      const key = relative(root, file);
      projectsOf.set(key, [...(projectsOf.get(key) ?? []), projectName]);
    }
    const files = testFiles(root);
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) expect([file, projectsOf.get(file)]).toEqual([file, [expect.any(String)]]);
    // Browser files are slow and need Debian's browsers: never in the fast loop.
    for (const file of files.filter((f) => /\.(chromium|firefox)\.test\.ts$/.test(f)))
      expect([file, projectsOf.get(file)]).toEqual([file, ["e2e"]]);
  }, 60_000);
});
