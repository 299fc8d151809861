// The dashboard's deep link: `dashboard.html#worker=<workerId>` (the link in every notification) opens that
// worker's drill-down, on load and whenever the hash changes; closing the drill-down drops the hash, so the same
// link opens it again.
import { useEffect, useState } from "preact/hooks";

const PREFIX = "#worker=";

/** The worker a hash names, or null. */
export function workerIdOfHash(hash: string): string | null {
  if (!hash.startsWith(PREFIX)) return null;
  try {
    const id = decodeURIComponent(hash.slice(PREFIX.length)).trim();
    return id === "" || id.length > 200 ? null : id;
  } catch {
    return null; // a malformed escape: no worker
  }
}

export interface WorkerLink {
  readonly workerId: string | null;
  /** Counts hash changes: the same worker linked again is a new request to show it. */
  readonly seq: number;
}

export function useWorkerLink(): WorkerLink {
  const [link, setLink] = useState<WorkerLink>(() => ({
    workerId: workerIdOfHash(window.location.hash),
    seq: 0,
  }));
  useEffect(() => {
    const onHash = () => setLink((l) => ({ workerId: workerIdOfHash(window.location.hash), seq: l.seq + 1 }));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  return link;
}

/** Drops a `#worker=` hash without a hashchange (and without a history entry). */
export function clearWorkerLink(): void {
  if (workerIdOfHash(window.location.hash) === null) return;
  window.history.replaceState(null, "", window.location.pathname + window.location.search);
}
