// What `orchestrator uninstall` leaves behind: the data directory's size, and the command that removes it.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Total bytes of the files under `dir` (symbolic links not followed); 0 when it does not exist. */
export function directoryBytes(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(path) : lstatSync(path).size;
  }
  return total;
}

export function humanBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/** The shell command that deletes `dir` with everything in it, for the platform's usual shell. */
export function removeCommand(dir: string, platform: NodeJS.Platform): string {
  return platform === "win32" ? `rmdir /s /q "${dir}"` : `rm -rf '${dir.replaceAll("'", `'\\''`)}'`;
}
