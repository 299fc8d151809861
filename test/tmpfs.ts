// A small tmpfs for the full-disk tests: a real file system that runs out of space. Mounting needs root (CI runs as
// root); where it is refused the tests that need it are not defined, and under CI that is an error, not a skip.
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Mounts a tmpfs of `bytes` on the existing directory `at`; false where mounting is not permitted. */
export function mountTmpfs(at: string, bytes: number): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${bytes},mode=0700`, "tmpfs", at], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

export function unmount(at: string): void {
  execFileSync("umount", ["-l", at]);
}

/** Whether this process may mount a tmpfs; throws under CI when it may not (the tests must run there). */
export function canMountTmpfs(): boolean {
  const probe = mkdtempSync(join(tmpdir(), "orch-mount-probe-"));
  const ok = mountTmpfs(probe, 64 * 1024);
  if (ok) unmount(probe);
  rmSync(probe, { recursive: true, force: true });
  if (process.env.CI && !ok) throw new Error("CI must be able to mount a tmpfs for the full-disk tests");
  return ok;
}

/** Writes `file` until its file system is full (ENOSPC); returns the bytes written. */
export function fillDisk(file: string): number {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}
