// Whether a process id names a live process: what `status`, `start` and `doctor` ask of owner.json's pid.

/** Signal 0 probes without signalling; EPERM means it exists but belongs to someone else. */
export function isPidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
