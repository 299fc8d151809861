// Settings / Advanced: configuration only, no runtime operations. Local preferences (overlay, the
// overlay's "Keep this conversation going" offer, notifications), reopening closed worker tabs, this browser's
// concurrency limit, the run default continuation policy of active runs, the host's notification channels, and where
// the MCP connection details come from.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { act, ActionButton, ConnectionBanner, ConnectionChip, Root } from "../ui/components.tsx";
import { McpSettings } from "./mcp-settings.tsx";
import { NotifySettings } from "./notify-settings.tsx";
import { ReopenTabsSetting } from "./reopen-tabs-setting.tsx";
import { duration } from "../ui/format.ts";
import { useLive } from "../ui/live.ts";
import type { UiClient } from "../ui/ui-client.ts";
import type { LocalPrefs } from "../ui/ui-protocol.ts";
import type { RunView } from "../../shared/operations/views.ts";

export function Options(props: { client: UiClient }): JSX.Element {
  const { client } = props;
  const status = client.status.value;
  const runs = useLive(client, "run_list", {});
  return (
    <Root testId="options">
      <header class="spread">
        <h1>ChatGPT Orchestrator — Settings</h1>
        <ConnectionChip status={status} />
      </header>
      <ConnectionBanner client={client} />
      <section aria-labelledby="browser-title">
        <h2 id="browser-title">This browser</h2>
        {status ? (
          <>
            <PrefSwitch
              client={client}
              prefs={status.prefs}
              name="overlay"
              label="Show the in-page overlay in managed ChatGPT tabs"
              help="Hiding it keeps the toolbar popup and the dashboard."
            />
            <PrefSwitch
              client={client}
              prefs={status.prefs}
              name="offerAdopt"
              label="Offer “Keep this conversation going” on unmanaged ChatGPT conversations"
              help="A small badge on conversations no worker holds, to adopt one from the page itself (needs the overlay on). The toolbar popup always offers it."
            />
            <PrefSwitch
              client={client}
              prefs={status.prefs}
              name="notifications"
              label="Desktop notifications"
              help="When a worker starts to need you or is paused for a stall."
            />
            <ReopenTabsSetting client={client} />
            <Concurrency client={client} current={status.maxGenerating} generating={status.generating} />
          </>
        ) : (
          <p class="muted">Waiting for the extension…</p>
        )}
      </section>
      {status?.connection === "connected" && runs.data ? (
        <section aria-labelledby="policy-title">
          <h2 id="policy-title">Continuation policy defaults of active runs</h2>
          {runs.data.runs.length === 0 ? <p class="muted">No active run.</p> : null}
          {runs.data.runs.map((r) => (
            <RunPolicy key={r.id} client={client} run={r} />
          ))}
        </section>
      ) : null}
      <NotifySettings client={client} connected={status?.connection === "connected"} />
      <McpSettings client={client} connected={status?.connection === "connected"} />
    </Root>
  );
}

function PrefSwitch(props: {
  client: UiClient;
  prefs: LocalPrefs;
  name: keyof LocalPrefs;
  label: string;
  help: string;
}): JSX.Element {
  const on = props.prefs[props.name];
  const id = `pref-${props.name}`;
  return (
    <div class="spread card">
      <div>
        <div id={`${id}-label`}>{props.label}</div>
        <div class="muted" id={`${id}-help`}>
          {props.help}
        </div>
      </div>
      <button
        type="button"
        class="switch"
        role="switch"
        aria-checked={on}
        aria-labelledby={`${id}-label ${id}-state`}
        aria-describedby={`${id}-help`}
        data-testid={id}
        onClick={() => props.client.setPrefs({ [props.name]: !on })}
      >
        <span id={`${id}-state`}>{on ? "On" : "Off"}</span>
      </button>
    </div>
  );
}

function Concurrency(props: { client: UiClient; current: number; generating: number }): JSX.Element {
  const [value, setValue] = useState(String(props.current));
  const n = Number(value);
  const valid = Number.isInteger(n) && n >= 1 && n <= 20;
  return (
    <div class="card">
      <label for="max-generating">Tabs generating at once (1–20)</label>
      <div class="row">
        <input
          id="max-generating"
          type="number"
          min={1}
          max={20}
          value={value}
          aria-invalid={!valid}
          aria-describedby="max-generating-help"
          data-testid="max-generating"
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button
          type="button"
          disabled={!valid || n === props.current}
          data-testid="save-max-generating"
          onClick={() => props.client.setMaxGenerating(n)}
        >
          Save
        </button>
      </div>
      <p class="muted" id="max-generating-help">
        Now {props.generating} of {props.current}. More tabs at once means more parallel turns in this
        browser.
      </p>
    </div>
  );
}

/** The run default's mode and thresholds; a worker's own overrides are shown and changed in the dashboard. */
function RunPolicy(props: { client: UiClient; run: RunView }): JSX.Element {
  const { client, run } = props;
  const p = run.defaultPolicy;
  const minutes = (ms: number | null) => (ms === null ? "off" : duration(ms));
  return (
    <div class="card" data-testid="run-policy">
      <div class="spread">
        <h3>{run.name}</h3>
        <ActionButton
          label={p.mode === "auto" ? "On" : "Off"}
          labelId={`mode-${run.id}`}
          labelledBy={`ar-${run.id} mode-${run.id}`}
          checked={p.mode === "auto"}
          class="switch"
          run={() =>
            act(client, "run_continuation_set_default", {
              runId: run.id,
              patch: { mode: p.mode === "auto" ? "manual" : "auto" },
            })
          }
        />
      </div>
      <p id={`ar-${run.id}`}>Auto Resume (run default)</p>
      <dl class="counts">
        <dt>Idle grace</dt>
        <dd>{duration(p.idleGraceMs)}</dd>
        <dt>Keepalive while generating</dt>
        <dd>
          {duration(p.activeKeepaliveMinMs)}–{duration(p.activeKeepaliveMaxMs)}
        </dd>
        <dt>Minimum spacing</dt>
        <dd>{duration(p.minContinuationSpacingMs)}</dd>
        <dt>Stall warning after</dt>
        <dd>
          {p.stallWarningAfterNoProgressAttempts ?? "off"} turns / {minutes(p.stallWarningAfterNoProgressMs)}
        </dd>
        <dt>Stall pause after</dt>
        <dd>
          {p.stallPauseAfterNoProgressAttempts ?? "off"} turns / {minutes(p.stallPauseAfterNoProgressMs)}
        </dd>
      </dl>
    </div>
  );
}
