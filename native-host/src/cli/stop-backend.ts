// `orchestrator uninstall` stops the backend of the data directory: the owner named in owner.json, once its IPC
// socket proves it is really ours (a pid alone may have been reused by an unrelated process since).
import { connect } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { ipcAddress, readOwnerInfo } from "../store/owner-lock.ts";
import { isPidAlive } from "./process-alive.ts";

/** How long a backend may take to close its store after SIGTERM (`serve` closes cleanly; a native host just ends). */
const STOP_DEADLINE_MS = 10_000;
const POLL_MS = 100;
/** A relay (a second browser's host) takes over when the owner goes; each is stopped in turn, up to this many. */
const MAX_OWNERS = 5;

/** The pid of the live backend that owns `dir`, or undefined when none answers on its IPC socket. */
export async function runningBackend(dir: string): Promise<number | undefined> {
  const owner = readOwnerInfo(dir);
  if (owner === undefined || !isPidAlive(owner.pid)) return undefined;
  let address: string;
  try {
    address = ipcAddress(dir);
  } catch {
    return undefined; // no socket can exist: no owner listens
  }
  const listening = await new Promise<boolean>((resolve) => {
    const socket = connect({ path: address });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
  return listening ? owner.pid : undefined;
}

export type StopOutcome =
  | { readonly state: "not-running" }
  | { readonly state: "kept"; readonly pid: number }
  | { readonly state: "stopped"; readonly pids: readonly number[] }
  | { readonly state: "still-running"; readonly pid: number };

/**
 * Asks `confirm` before the first stop (false keeps it running); then SIGTERM and waits for the process to end. A
 * relay that takes over meanwhile is stopped too: uninstall removed the manifests first, so no browser restarts one.
 */
export async function stopBackend(
  dir: string,
  confirm: (pid: number) => Promise<boolean>,
): Promise<StopOutcome> {
  const stopped: number[] = [];
  for (let round = 0; round < MAX_OWNERS; round++) {
    const pid = await runningBackend(dir);
    if (pid === undefined) break;
    if (stopped.length === 0 && !(await confirm(pid))) return { state: "kept", pid };
    try {
      process.kill(pid, "SIGTERM");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
    const deadline = Date.now() + STOP_DEADLINE_MS;
    while (isPidAlive(pid) && Date.now() < deadline) await delay(POLL_MS);
    if (isPidAlive(pid)) return { state: "still-running", pid };
    stopped.push(pid);
  }
  return stopped.length ? { state: "stopped", pids: stopped } : { state: "not-running" };
}
