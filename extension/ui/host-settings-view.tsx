// The host's own settings as views read them (the settings page's MCP section, the dashboard's first-run help):
// read once per connection over the browser's native port, and a button that copies the full connector URL.
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { HOST_SETTINGS_OP, type HostSettings } from "../../shared/host-settings.ts";
import { ActionButton } from "./components.tsx";
import type { UiClient } from "./ui-client.ts";

/**
 * The host's settings, read once per connection (they do not change with events, so unlike `useLive` this does
 * not re-read on every host change); `read(reveal)` reads again and returns a refusal in words.
 */
export function useHostSettings(
  client: UiClient,
): [HostSettings | undefined, string | undefined, (reveal: boolean) => Promise<string | undefined>] {
  const connected = client.status.value?.connection === "connected";
  const [settings, setSettings] = useState<HostSettings | undefined>();
  const [error, setError] = useState<string | undefined>();
  const read = async (reveal: boolean): Promise<string | undefined> => {
    const r = await client.call(HOST_SETTINGS_OP, reveal ? { reveal } : {});
    if (!r.ok) {
      setError(r.error.message);
      return r.error.message;
    }
    setSettings(r.value);
    setError(undefined);
    return undefined;
  };
  useEffect(() => {
    // Masked on every (re)connect: a revealed token does not stay on screen longer than asked for.
    if (connected) void read(false);
  }, [client, connected]);
  return [settings, error, read];
}

/** Copies the full connector URL even while it is shown masked: fetching it does not put it on screen. */
export function CopyConnectorUrl(props: { client: UiClient; onCopied?: () => void }): JSX.Element {
  return (
    <ActionButton
      label="Copy connector URL"
      testId="mcp-copy"
      run={async () => {
        const full = await props.client.call(HOST_SETTINGS_OP, { reveal: true });
        if (!full.ok) return full.error.message;
        const url = full.value.mcp?.connectorUrl;
        if (url === undefined) return "the MCP server is not running";
        try {
          await navigator.clipboard.writeText(url);
        } catch (e) {
          return `could not copy: ${e instanceof Error ? e.message : String(e)}`;
        }
        props.onCopied?.();
        return undefined;
      }}
    />
  );
}
