// The CLI contract (docs/cli.md) over the real spawned command: --help has no side effect, --version, the errors a
// user can fix said in one line with the fix, a closed pipe, the token rotation hint, runnable next steps.
import { createServer, type Server } from "node:net";
import { chownSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HOST_VERSION } from "../../native-host/src/host/host-entry.ts";
import { waitFor } from "../wait-for.ts";
import { type CliHome, ROOT, cliHome, collect, exitOf } from "./spawn-cli.ts";

let cli: CliHome;
afterEach(() => cli.cleanup());

/** The command names the usage lists (the first word of each indented line under "Commands:"). */
function listedCommands(usage: string): string[] {
  const section = usage.split("Commands:\n")[1]?.split("\n\n")[0] ?? "";
  return section.split("\n").flatMap((line) => /^ {2}(\S+) /.exec(line)?.[1] ?? []);
}

describe("orchestrator <command> --help", () => {
  it("prints every command's usage and exits 0 without creating the data directory or starting anything", async () => {
    cli = cliHome();
    const help = await cli.run(["help"]);
    expect(help.code).toBe(0);
    const commands = listedCommands(help.stdout).filter((c) => c !== "help" && c !== "version");
    expect(commands).toEqual(expect.arrayContaining(["serve", "mcp", "native-host", "status", "uninstall"]));
    for (const name of commands) {
      for (const flag of ["--help", "-h"]) {
        const result = await cli.run([name, flag]);
        expect(result.code, `${name} ${flag}: ${result.stderr}`).toBe(0);
        expect(result.stdout).toMatch(new RegExp(`^Usage: orchestrator ${name}\\b`, "m"));
        expect(result.stderr, `${name} ${flag}`).toBe("");
        expect(existsSync(cli.dataDir), `${name} ${flag} created ${cli.dataDir}`).toBe(false);
      }
    }
  }, 120_000);
});

describe("orchestrator --version", () => {
  it("prints package.json's version (which the host reports too) for --version, -V and version", async () => {
    cli = cliHome();
    const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    expect(HOST_VERSION).toBe(version);
    for (const flag of ["--version", "-V", "version"]) {
      const result = await cli.run([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
    expect(existsSync(cli.dataDir)).toBe(false);
  });
});

describe("errors the user fixes", () => {
  let blocker: Server | undefined;
  afterEach(() => blocker?.close());

  it("serve names a taken MCP port, who may hold it, and both ways to change it", async () => {
    cli = cliHome();
    blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker?.listen({ host: "127.0.0.1", port: 0 }, () => {
        const address = blocker?.address();
        resolve(typeof address === "object" && address ? address.port : 0);
      }),
    );
    const serve = cli.spawn(["serve"], { ORCHESTRATOR_MCP_PORT: String(port) });
    const output = collect(serve);
    try {
      const line = await waitFor(
        () =>
          output
            .stderr()
            .split("\n")
            .find((l) => l.includes(`MCP port ${port}`)),
        "the taken-port line",
        30_000,
        50,
      );
      expect(line).toContain("taken by another program (or by the backend of another data directory)");
      expect(line).toContain("ORCHESTRATOR_MCP_PORT=");
      expect(line).toContain(`"port" in ${path.join(cli.dataDir, "config.json")}`);
      expect(output.stdout()).not.toContain("MCP server not running");
    } finally {
      serve.kill("SIGTERM");
      await exitOf(serve);
    }
  }, 60_000);

  it("a data directory or manifest folder it may not write: one line with the path and the fix, no stack", async () => {
    cli = cliHome();
    const locked = path.join(cli.home, "locked");
    mkdirSync(locked, { mode: 0o555 });
    const dataDir = path.join(locked, "data");
    const serve = await cli.run(["serve"], { env: { ORCHESTRATOR_HOME: dataDir }, asNobody: true });
    expect(serve.code).toBe(1);
    expect(serve.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^orchestrator serve: .*${dataDir}.*not writable.*Fix: .*ORCHESTRATOR_HOME`),
      ),
    ]);

    // HOME is the locked folder: the browsers' manifest folders under it cannot be created.
    const writable = path.join(cli.home, "data-ok");
    mkdirSync(writable, { mode: 0o700 });
    if (process.getuid?.() === 0) chownSync(writable, 65_534, 65_534);
    const install = await cli.run(["install", "--browser", "chromium"], {
      env: { HOME: locked, ORCHESTRATOR_HOME: writable },
      asNobody: true,
    });
    expect(install.code).toBe(1);
    const lines = install.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`${locked}.*not writable.*Fix: .*--browser`));
    expect(install.stderr).not.toMatch(/^\s+at /m);
  }, 60_000);

  it("a reader that closes the pipe early (`connector | head -1`) ends it quietly with exit 0", async () => {
    cli = cliHome();
    for (const args of [["connector"], ["help"], ["status"]]) {
      const result = await cli.run(args, { closeStdout: true });
      expect(result.stderr, args.join(" ")).toBe("");
      expect(result.code, args.join(" ")).toBe(0);
    }
  });
});

describe("what the CLI tells the user to do", () => {
  it("the connector says the one way to rotate the token: the settings page, live", async () => {
    cli = cliHome();
    const result = await cli.run(["connector"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`the extension's settings page, "MCP connection" → "Regenerate token"`);
    expect(result.stdout).toContain("no restart");
    expect(result.stdout).not.toMatch(/stop the backend|openssl/);
  });

  it("next steps and fixes are command lines that run here (npx orchestrator in a clone)", async () => {
    cli = cliHome();
    const outputs = [
      await cli.run(["status"]),
      await cli.run(["mcp"]),
      await cli.run(["install", "--browser", "chromium"]),
    ];
    const text = outputs.map((o) => o.stdout + o.stderr).join("\n");
    expect(text).toContain("`npx orchestrator serve`");
    expect(text).toContain("`npx orchestrator doctor`");
    expect(text).not.toMatch(/`orchestrator /);
  });
});
