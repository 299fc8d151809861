import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { TestCli } from "./cli-test-kit.ts";
import { testCli } from "./cli-test-kit.ts";

let cli: TestCli;
afterEach(() => cli.cleanup());

describe("orchestrator dispatch", () => {
  it("lists every contract command", async () => {
    cli = testCli();
    expect(await cli.run("help")).toBe(0);
    const usage = cli.out.join("\n");
    for (const name of [
      "start",
      "install",
      "uninstall",
      "serve",
      "status",
      "mcp",
      "connector",
      "doctor",
      "notify",
      "native-host",
    ]) {
      expect(usage).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    }
    for (const name of ["install", "uninstall", "connector", "doctor", "notify", "start"]) {
      expect(usage).not.toMatch(new RegExp(`^  ${name} +.*not yet available`, "m"));
    }
  });

  it("answers unknown commands with 64 and the ones not wired yet with 2", async () => {
    cli = testCli();
    expect(await cli.run("bogus")).toBe(64);
    expect(cli.err.join("\n")).toContain("unknown command 'bogus'");
    expect(await cli.run("toString")).toBe(64);
    await cli.run("help");
    const planned = cli.out
      .join("\n")
      .split("\n")
      .flatMap((line) => /^ {2}(\S+) +.*\(not yet available\)$/.exec(line)?.[1] ?? []);
    for (const name of planned) {
      expect(await cli.run(name)).toBe(2);
      expect(cli.err.join("\n")).toContain("not yet available");
    }
  });

  it("prints a command's options with --help", async () => {
    cli = testCli();
    expect(await cli.run("install", "--help")).toBe(0);
    expect(cli.out.join("\n")).toContain("--profile-dir DIR");
  });

  it("the packaged CLI lists only what works there: `start` is neither listed nor run", async () => {
    cli = testCli({ packaged: true, invocation: "orchestrator" });
    expect(await cli.run("help")).toBe(0);
    const usage = cli.out.join("\n");
    expect(usage).not.toMatch(/^ {2}start /m);
    expect(usage).toMatch(/^ {2}install /m);
    expect(await cli.run("start", "--no-build")).toBe(2);
    expect(cli.out).toEqual([]);
    expect(cli.err).toHaveLength(1);
    expect(cli.err[0]).toMatch(/^orchestrator start: not in the packaged CLI .*`orchestrator install`/);
    expect(existsSync(cli.dataDir)).toBe(false);
  });

  it("points --help at the docs shipped beside the packaged bundle, and at docs/cli.md in a clone", async () => {
    cli = testCli({ packaged: true, invocation: "orchestrator", projectRoot: "/opt/orchestrator" });
    expect(await cli.run("doctor", "--help")).toBe(0);
    expect(cli.out.join("\n")).toContain("See /opt/orchestrator/docs/cli.md.");
    cli.cleanup();
    cli = testCli();
    expect(await cli.run("doctor", "--help")).toBe(0);
    expect(cli.out.join("\n")).toContain("See docs/cli.md.");
  });

  it("keeps `start` working", async () => {
    cli = testCli({}, { PATH: "" });
    expect(await cli.run("start", "--no-build")).toBe(0);
    expect(cli.out.join("\n")).toContain(`data directory ${cli.dataDir}`);
  });
});
