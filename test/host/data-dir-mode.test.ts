// The data directory is owner-only: an existing one with a looser mode (0755) is tightened to 0700 at start, and the
// host says so once; a directory owned by someone else is left alone.
import { chmodSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ownerOptionsFromEnv } from "../../native-host/src/host/host-entry.ts";
import { secureDataDir } from "../../native-host/src/store/data-dir.ts";
import { makeTempDir, recordingLogger, removeDir } from "../store/helpers.ts";

const modeOf = (dir: string) => statSync(dir).mode & 0o777;

describe("data directory mode", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(removeDir));
  const temp = () => {
    const dir = makeTempDir("dir-mode");
    dirs.push(dir);
    return dir;
  };

  it("tightens an existing 0755 directory to 0700 and says so, once", () => {
    const dir = temp();
    chmodSync(dir, 0o755);
    expect(secureDataDir(dir)).toBe(`tightened ${dir} from 0755 to 0700 (it holds the MCP token)`);
    expect(modeOf(dir)).toBe(0o700);
    expect(secureDataDir(dir)).toBeUndefined();
    chmodSync(dir, 0o710);
    expect(secureDataDir(dir)).toMatch(/from 0710 to 0700/);
    expect(modeOf(dir)).toBe(0o700);
  });

  it("creates a missing directory as 0700 without a word", () => {
    const dir = join(temp(), "nested", "home");
    expect(secureDataDir(dir)).toBeUndefined();
    expect(existsSync(dir)).toBe(true);
    expect(modeOf(dir)).toBe(0o700);
  });

  it("leaves a directory owned by another user, and Windows folders, as they are", () => {
    const dir = temp();
    chmodSync(dir, 0o755);
    const mine = statSync(dir).uid;
    expect(secureDataDir(dir, { uid: mine + 1 })).toBeUndefined();
    expect(secureDataDir(dir, { platform: "win32" })).toBeUndefined();
    expect(modeOf(dir)).toBe(0o755);
  });

  it("the host's start (ownerOptionsFromEnv) tightens it and logs one line", () => {
    const dir = temp();
    chmodSync(dir, 0o755);
    const { log, warnings } = recordingLogger();
    const options = ownerOptionsFromEnv({ ORCHESTRATOR_HOME: dir, ORCHESTRATOR_MCP_PORT: "0" }, log);
    expect(options.dir).toBe(dir);
    expect(modeOf(dir)).toBe(0o700);
    expect(warnings).toEqual([`tightened ${dir} from 0755 to 0700 (it holds the MCP token)`]);
    // The next start finds nothing to say.
    ownerOptionsFromEnv({ ORCHESTRATOR_HOME: dir, ORCHESTRATOR_MCP_PORT: "0" }, log);
    expect(warnings).toHaveLength(1);
  });
});
