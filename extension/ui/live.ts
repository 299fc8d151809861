// A hook for live reads: runs a host operation when the view mounts, whenever the host reports a change and
// after a reconnect; answers to an older read are dropped, so the newest state wins.
import { useEffect, useRef, useState } from "preact/hooks";
import type { z } from "zod";
import type { UiClient, UiError } from "./ui-client.ts";

export interface Live<T> {
  readonly data: T | undefined;
  readonly error: UiError | undefined;
  /** True until the first answer arrived. */
  readonly loading: boolean;
}

export function useLive<T>(
  client: UiClient,
  op: string | null,
  params: Record<string, unknown>,
  schema: z.ZodType<T>,
): Live<T> {
  // Reading the signals here subscribes the component: a change or reconnect re-renders and re-reads.
  const changes = client.changes.value;
  const connected = client.status.value?.connection === "connected";
  const key = JSON.stringify(params);
  const [state, setState] = useState<Live<T>>({ data: undefined, error: undefined, loading: op !== null });
  const latest = useRef(0);
  useEffect(() => {
    if (op === null || !connected) return;
    const ticket = ++latest.current;
    void client.call(op, JSON.parse(key) as Record<string, unknown>, schema).then((r) => {
      if (ticket !== latest.current) return;
      setState((prev) =>
        r.ok
          ? { data: r.value, error: undefined, loading: false }
          : { data: prev.data, error: r.error, loading: false },
      );
    });
  }, [client, op, key, schema, changes, connected]);
  return state;
}
