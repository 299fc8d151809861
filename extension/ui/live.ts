// A hook for live reads: runs a call when the view mounts, whenever the host reports a change and after a reconnect;
// answers to an older read are dropped, so the newest state wins. The result is typed and parsed by the call's contract.
import { useEffect, useRef, useState } from "preact/hooks";
import type { UiClient, UiError } from "./ui-client.ts";
import type { ViewCallName, ViewCallParams, ViewCallResult } from "./view-calls.ts";

export interface Live<T> {
  readonly data: T | undefined;
  readonly error: UiError | undefined;
  /** True until the first answer arrived. */
  readonly loading: boolean;
}

/** Reads `op` with `params` live; `op` null reads nothing (no run chosen yet, say). */
export function useLive<N extends ViewCallName>(
  client: UiClient,
  op: N | null,
  params: ViewCallParams<N>,
): Live<ViewCallResult<N>> {
  // Reading the signals here subscribes the component: a change or reconnect re-renders and re-reads.
  const changes = client.changes.value;
  const connected = client.status.value?.connection === "connected";
  const key = JSON.stringify(params);
  const [state, setState] = useState<Live<ViewCallResult<N>>>({
    data: undefined,
    error: undefined,
    loading: op !== null,
  });
  const latest = useRef(0);
  useEffect(() => {
    if (op === null || !connected) return;
    const ticket = ++latest.current;
    void client.call(op, JSON.parse(key) as ViewCallParams<N>).then((r) => {
      if (ticket !== latest.current) return;
      setState((prev) =>
        r.ok
          ? { data: r.value, error: undefined, loading: false }
          : { data: prev.data, error: r.error, loading: false },
      );
    });
  }, [client, op, key, changes, connected]);
  return state;
}
