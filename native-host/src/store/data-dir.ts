// Resolves the data directory (docs/cli.md, "Environment"): $ORCHESTRATOR_HOME, else the platform's user data folder.
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const APP = "chatgpt-orchestrator";

export function resolveDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.ORCHESTRATOR_HOME) return env.ORCHESTRATOR_HOME;
  if (platform === "darwin") return join(homedir(), "Library", "Application Support", APP);
  if (platform === "win32") return join(env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local"), APP);
  return join(env.XDG_DATA_HOME ?? join(homedir(), ".local", "share"), APP);
}

/**
 * Creates the data directory owner-only (0700), or tightens an existing one that lets others in (0755 from an older
 * install or a hand-made folder): it holds the MCP token and every conversation's record. Only a directory owned by
 * this user is changed; someone else's is theirs to decide. Returns the line to log when it changed the mode.
 */
export function secureDataDir(
  dir: string,
  opts: { platform?: NodeJS.Platform; uid?: number } = {},
): string | undefined {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Windows has no POSIX modes: the folder inherits the ACL of the user's profile.
  if ((opts.platform ?? process.platform) === "win32") return undefined;
  const stat = statSync(dir);
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) === 0 || stat.uid !== (opts.uid ?? process.getuid?.())) return undefined;
  chmodSync(dir, 0o700);
  return `tightened ${dir} from 0${mode.toString(8).padStart(3, "0")} to 0700 (it holds the MCP token)`;
}
