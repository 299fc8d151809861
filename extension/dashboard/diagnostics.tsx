// The dashboard's diagnostics: connection, versions, executor, managed tabs, the host's data directory and MCP URL.
import type { JSX } from "preact";
import { connectionWords } from "../ui/components.tsx";
import { CopyConnectorUrl, useHostSettings } from "../ui/host-settings-view.tsx";
import type { UiClient } from "../ui/ui-client.ts";

export function Diagnostics(props: { client: UiClient }): JSX.Element {
  const s = props.client.status.value;
  const [host] = useHostSettings(props.client);
  return (
    <section aria-labelledby="diag-title" data-testid="diagnostics">
      <h2 id="diag-title">Diagnostics</h2>
      <dl class="counts">
        <dt>Connection</dt>
        <dd>{connectionWords(s).text}</dd>
        <dt>Host version</dt>
        <dd>{s?.hostVersion ?? "unknown"}</dd>
        <dt>Executor</dt>
        <dd>
          {s?.executorId ?? "—"} ({s?.browser ?? "?"}, extension {s?.extensionVersion ?? "?"})
        </dd>
        <dt>Managed tabs</dt>
        <dd data-testid="bindings">{s?.bindings.filter((b) => b.state === "bound").length ?? 0}</dd>
        <dt>Data directory</dt>
        <dd data-testid="data-dir">{host?.dataDir ?? "—"}</dd>
        <dt>MCP</dt>
        <dd data-testid="diag-mcp">
          {host ? (host.mcp ? host.mcp.connectorUrl : "not running (see npx orchestrator doctor)") : "—"}
        </dd>
      </dl>
      {host?.mcp ? <CopyConnectorUrl client={props.client} /> : null}
      {s && s.bindings.length > 0 ? (
        <ul>
          {s.bindings.map((b) => (
            <li key={b.workerId}>
              {b.state} · {b.url ?? "new chat"}
            </li>
          ))}
        </ul>
      ) : null}
      {s?.error ? <p>Last connection problem: {s.error}</p> : null}
    </section>
  );
}
