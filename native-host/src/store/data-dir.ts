// Resolves the data directory (architecture §4): $ORCHESTRATOR_HOME, else the platform's user data folder.
import { homedir } from "node:os";
import { join } from "node:path";

const APP = "chatgpt-orchestrator";

export function resolveDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.ORCHESTRATOR_HOME) return env.ORCHESTRATOR_HOME;
  if (platform === "darwin") return join(homedir(), "Library", "Application Support", APP);
  if (platform === "win32") return join(env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local"), APP);
  return join(env.XDG_DATA_HOME ?? join(homedir(), ".local", "share"), APP);
}
