// The settings page's "Reopen closed worker tabs" switch: read from and saved by the background (this browser's
// setting, not the host's), shown as soon as the extension answers, whether or not the host is connected.
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { TAB_SETTINGS_GET_OP, TAB_SETTINGS_SET_OP, type TabSettings } from "../ui/ui-protocol.ts";
import { ActionButton } from "../ui/components.tsx";
import type { UiClient } from "../ui/ui-client.ts";

export function ReopenTabsSetting(props: { client: UiClient }): JSX.Element {
  const { client } = props;
  const [settings, setSettings] = useState<TabSettings | undefined>();
  const [error, setError] = useState<string | undefined>();
  const alive = client.status.value !== null;
  useEffect(() => {
    if (!alive) return;
    void client.call(TAB_SETTINGS_GET_OP, {}).then((r) => {
      if (r.ok) setSettings(r.value);
      else setError(r.error.message);
    });
  }, [client, alive]);
  const on = settings?.reopenClosedTabs;
  return (
    <div class="spread card">
      <div>
        <div id="pref-reopenClosedTabs-label">Reopen a worker’s conversation when its tab is closed</div>
        <div class="muted" id="pref-reopenClosedTabs-help">
          If you close a worker’s ChatGPT tab or open another chat in it, the conversation opens again in a
          background tab when the worker needs it, without taking your focus. Off: the worker waits as “Tab
          closed” until you reopen it.
        </div>
        {error !== undefined ? <div role="alert">{error}</div> : null}
      </div>
      {on === undefined ? null : (
        <ActionButton
          label={on ? "On" : "Off"}
          labelId="pref-reopenClosedTabs-state"
          labelledBy="pref-reopenClosedTabs-label pref-reopenClosedTabs-state"
          describedBy="pref-reopenClosedTabs-help"
          checked={on}
          class="switch"
          testId="pref-reopenClosedTabs"
          run={async () => {
            const r = await client.call(TAB_SETTINGS_SET_OP, { reopenClosedTabs: !on });
            if (!r.ok) return r.error.message;
            setSettings(r.value);
            return undefined;
          }}
        />
      )}
    </div>
  );
}
