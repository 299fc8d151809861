// The settings page's MCP section: port, URL and connector URL, the token masked until revealed, copy
// buttons and a confirmed "Regenerate token". Read from the host over the browser's native port only.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { HOST_TOKEN_ROTATE_OP, type HostSettings } from "../../shared/host-settings.ts";
import { ActionButton, ConfirmButton } from "../ui/components.tsx";
import { CopyConnectorUrl, useHostSettings } from "../ui/host-settings-view.tsx";
import type { UiClient } from "../ui/ui-client.ts";

export function McpSettings(props: { client: UiClient; connected: boolean }): JSX.Element {
  const { client, connected } = props;
  const [fetched, error, read] = useHostSettings(client);
  // A regenerated token's answer replaces what was read, until the next read.
  const [rotated, setRotated] = useState<HostSettings | undefined>();
  const settings = rotated ?? fetched;
  const [note, setNote] = useState<string | undefined>();

  const mcp = settings?.mcp;
  return (
    <section aria-labelledby="mcp-title" data-testid="mcp-settings">
      <h2 id="mcp-title">MCP connection</h2>
      <p class="muted">
        The MCP server listens on 127.0.0.1 only. The token is the only guard: anyone who has it (or the
        connector URL, which contains it) can call every tool. <code>npx orchestrator connector</code> prints
        the same.
      </p>
      {!connected ? <p class="muted">Connect to the host to see these.</p> : null}
      {error ? <p role="alert">{error}</p> : null}
      {connected && settings && !mcp ? (
        <p role="alert">The MCP server is not running (see `npx orchestrator doctor`).</p>
      ) : null}
      {mcp ? (
        <>
          <dl class="counts">
            <dt>Port</dt>
            <dd data-testid="mcp-port">{mcp.port}</dd>
            <dt>URL (send Authorization: Bearer &lt;token&gt;)</dt>
            <dd>
              <code data-testid="mcp-url">{mcp.url}</code>
            </dd>
            <dt>Connector URL (for clients that cannot send headers)</dt>
            <dd>
              <code data-testid="mcp-connector-url">{mcp.connectorUrl}</code>
            </dd>
            <dt>Token</dt>
            <dd>
              <code data-testid="mcp-token">{mcp.token}</code>
            </dd>
          </dl>
          <div class="row">
            <ActionButton
              label={mcp.revealed ? "Hide token" : "Reveal token"}
              testId="mcp-reveal"
              run={() => {
                setRotated(undefined);
                return read(!mcp.revealed);
              }}
            />
            <CopyConnectorUrl client={client} onCopied={() => setNote("Connector URL copied.")} />
            <ConfirmButton
              label="Regenerate token"
              question="Every MCP client and connector must be given the new token. Regenerate?"
              testId="mcp-rotate"
              run={async () => {
                const r = await client.call(HOST_TOKEN_ROTATE_OP, {});
                if (!r.ok) return r.error.message;
                setRotated(r.value);
                setNote("New token in force: update your MCP clients and connectors.");
                return undefined;
              }}
            />
          </div>
          {note ? (
            <p role="status" data-testid="mcp-note">
              {note}
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
