// Crash-safe file replacement (temp file 'wx' -> fsync -> close -> fence check -> rename -> fsync directory) and
// the clean-up of temp files a crash left behind. A reader only ever sees the complete old or the complete new file.
import { randomBytes } from "node:crypto";
import { type FileHandle, open, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

const TEMP_SUFFIX = ".tmp";

/** `<target>.<pid>.<random>.tmp`, in the target's directory so the rename stays on one file system. */
export function tempPathFor(target: string): string {
  return `${target}.${process.pid}.${randomBytes(4).toString("hex")}${TEMP_SUFFIX}`;
}

/**
 * Replaces `target` with `chunks`. `beforeRename` runs after the data is durable and right before the rename:
 * the owner-generation fence, so a process that lost ownership never replaces a file.
 */
export async function writeFileAtomic(
  target: string,
  chunks: readonly Uint8Array[],
  beforeRename: () => void = () => undefined,
): Promise<void> {
  const temp = await writeTempFile(target, chunks);
  await replaceWithTemp(temp, target, beforeRename);
  await fsyncDir(dirname(target));
}

/** Writes and fsyncs a new temp file beside `target`; returns its path. Removes it again if anything fails. */
export async function writeTempFile(target: string, chunks: readonly Uint8Array[]): Promise<string> {
  const temp = tempPathFor(target);
  try {
    const fh = await open(temp, "wx", 0o600);
    try {
      for (const chunk of chunks) await writeFully(fh, chunk);
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (error) {
    await removeAfterFailure(temp, target, error);
    throw error;
  }
  return temp;
}

/**
 * Runs the fence, then renames `temp` over `target` (atomic: it happened or it did not). The caller must fsync the
 * directory afterwards; it is separate because the journal must switch its descriptor between the two steps.
 */
export async function replaceWithTemp(temp: string, target: string, beforeRename: () => void): Promise<void> {
  try {
    beforeRename();
    await renameWithRetry(temp, target);
  } catch (error) {
    await removeAfterFailure(temp, target, error);
    throw error;
  }
}

async function removeAfterFailure(temp: string, target: string, error: unknown): Promise<void> {
  await rm(temp, { force: true }).catch((cleanup: unknown) => {
    throw new AggregateError([error, cleanup], `writing ${target} failed and its temp file ${temp} remains`);
  });
}

async function writeFully(fh: FileHandle, chunk: Uint8Array): Promise<void> {
  let done = 0;
  while (done < chunk.length) {
    const { bytesWritten } = await fh.write(chunk, done, chunk.length - done);
    done += bytesWritten;
  }
}

/** Makes a rename (or file creation) in `dir` durable. Windows cannot open directories (EPERM) and does not need it. */
export async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const fh = await open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Windows: an antivirus scanner or the indexer may hold the target for a moment (EPERM/EBUSY); retry briefly. */
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const transient = process.platform === "win32" && (code === "EPERM" || code === "EBUSY");
      if (!transient || attempt >= 8) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
    }
  }
}

/** Deletes `<name>.*.tmp` files left by an earlier crash for each of `names`; returns what it removed. */
export async function removeStaleTemps(dir: string, names: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await readdir(dir)) {
    if (!entry.endsWith(TEMP_SUFFIX)) continue;
    if (!names.some((name) => entry.startsWith(`${basename(name)}.`))) continue;
    await rm(join(dir, entry), { force: true });
    removed.push(entry);
  }
  return removed;
}
