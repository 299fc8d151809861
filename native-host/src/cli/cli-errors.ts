// Failures the user can fix themselves, said in one line with the fix instead of a bare errno message: a folder they
// may not write (the data directory, a browser's manifest folder).
import { existsSync } from "node:fs";
import type { CliContext } from "./context.ts";
import { commandLine, dataDirOf } from "./context.ts";
import { pathFor } from "./browsers.ts";

const DENIED = new Set(["EACCES", "EPERM", "EROFS"]);

/** One line for a permission error on a path, with its fix; undefined for any other error. */
export function explainFsError(error: unknown, ctx: CliContext): string | undefined {
  const e = error as NodeJS.ErrnoException | null;
  if (typeof e?.code !== "string" || !DENIED.has(e.code) || typeof e.path !== "string") return undefined;
  const p = pathFor(ctx.platform);
  // mkdir/open of a missing path fails on the folder that would hold it: that is the one to fix.
  let folder = e.path;
  while (!existsSync(folder) && p.dirname(folder) !== folder) folder = p.dirname(folder);
  const why = e.code === "EROFS" ? "is on a read-only file system" : "is not writable for you";
  const own =
    ctx.platform === "win32"
      ? `give your user write access to ${folder}`
      : `make it yours (\`sudo chown -R "$(id -un)" '${folder}'\`)`;
  const dataDir = dataDirOf(ctx);
  const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer + p.sep);
  // The data directory itself, something in it, or a folder on the way to it that could not be created.
  const inDataDir = within(e.path, dataDir) || within(dataDir, e.path);
  const other = inDataDir
    ? "or set ORCHESTRATOR_HOME to a folder you own"
    : `or leave that browser out (${commandLine(ctx, "install --browser <the browsers you use>")})`;
  return `${e.syscall ?? "access"} ${e.path}: ${folder} ${why} (${e.code}). Fix: ${own}, ${other}.`;
}
