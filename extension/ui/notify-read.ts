// The notification channels as views read them (the settings page, the dashboard's health line): `notify_settings`
// over the browser's native port, again on every host change, after a reconnect and, where asked, every so often
// (deliveries happen after the change that decided them). A change's answer replaces what was read.
import { useEffect, useRef, useState } from "preact/hooks";
import { NOTIFY_SETTINGS_OP, type NotifySettingsView } from "../../shared/notify-settings.ts";
import type { UiClient } from "./ui-client.ts";

export interface NotifyRead {
  readonly view: NotifySettingsView | undefined;
  /** The last read's refusal in words (an older host does not know the request, say). */
  readonly error: string | undefined;
  /** The settings as a change answered them: shown at once, and a read started before is dropped. */
  readonly replace: (view: NotifySettingsView) => void;
}

export function useNotifySettings(client: UiClient, refreshMs?: number): NotifyRead {
  // Reading the signals here subscribes the component: a change or reconnect re-renders and re-reads.
  const changes = client.changes.value;
  const connected = client.status.value?.connection === "connected";
  const [state, setState] = useState<{ view?: NotifySettingsView; error?: string }>({});
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    if (!connected) return;
    const ticket = ++latest.current;
    void client.call(NOTIFY_SETTINGS_OP, {}).then((r) => {
      if (ticket !== latest.current) return;
      setState((prev) => (r.ok ? { view: r.value } : { view: prev.view, error: r.error.message }));
    });
  }, [client, connected, changes, tick]);
  useEffect(() => {
    if (refreshMs === undefined || !connected) return;
    const timer = setInterval(() => setTick((t) => t + 1), refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, connected]);
  const replace = (view: NotifySettingsView): void => {
    latest.current += 1;
    setState({ view });
  };
  return { view: state.view, error: state.error, replace };
}
