// The operator dashboard: runs and run controls, Needs-you items to answer, stall warnings with their recovery
// actions, the worker table, a worker drill-down (attempts and event trail; `#worker=<id>` opens it) and diagnostics,
// and the notification channels' health. Everything is read live from the host; nothing is kept in extension storage.
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { RunView } from "../../shared/operations/views.ts";
import {
  act,
  ActionButton,
  Announcer,
  ConfirmButton,
  ConnectionBanner,
  StorageBanner,
  ConnectionChip,
  connectionWords,
  Root,
} from "../ui/components.tsx";
import { stateWords, workerName } from "../ui/format.ts";
import { useLive } from "../ui/live.ts";
import { movingSuffix } from "../ui/rollover-words.ts";
import { useNotifySettings } from "../ui/notify-read.ts";
import type { UiClient } from "../ui/ui-client.ts";
import { Diagnostics } from "./diagnostics.tsx";
import { NeedsYou, StallWarnings } from "./needs-you.tsx";
import { NOTIFY_HEALTH_REFRESH_MS, notifyFacts, NotifyHealth } from "./notify-health.tsx";
import { clearWorkerLink, useWorkerLink } from "./worker-link.ts";
import { WorkerDrillDown } from "./worker-drill-down.tsx";
import { WorkerTable } from "./worker-table.tsx";

export interface DashboardProps {
  readonly client: UiClient;
  readonly now: () => number;
}

const RUN_LIST = { includeEnded: true };

export function Dashboard(props: DashboardProps): JSX.Element {
  const { client } = props;
  const status = client.status.value;
  const connected = status?.connection === "connected";
  const runs = useLive(client, "run_list", RUN_LIST);
  // Only for `storage`: whether changes can be saved (a full disk) is shown above everything else.
  const summary = useLive(client, "ui_summary", {});
  const [chosenRun, setChosenRun] = useState<string | null>(null);
  const list = runs.data?.runs ?? [];
  const runId = chosenRun ?? list.find((r) => r.status === "active")?.id ?? list[0]?.id ?? null;
  const detail = useLive(client, runId === null ? null : "run_get", { runId: runId ?? "" });
  const [workerId, setWorkerId] = useState<string | null>(null);
  const workers = runId !== null && detail.data?.run.id === runId ? detail.data.workers : [];
  const linkError = useLinkedWorker(client, connected, (id, run) => {
    setChosenRun(run);
    setWorkerId(id);
  });
  const notify = useNotifySettings(client, NOTIFY_HEALTH_REFRESH_MS);
  const facts = new Map<string, string>([["connection", `Connection ${connectionWords(status).text}`]]);
  for (const w of workers) facts.set(w.id, `${workerName(w)}: ${stateWords(w)}${movingSuffix(w)}`);
  for (const [k, v] of notifyFacts(notify.view)) facts.set(k, v);
  return (
    <Root testId="dashboard">
      <header class="spread">
        <h1>ChatGPT Orchestrator — Dashboard</h1>
        <ConnectionChip status={status} />
      </header>
      <Announcer facts={facts} />
      <ConnectionBanner client={client} />
      {connected ? <StorageBanner storage={summary.data?.storage} now={props.now()} /> : null}
      {connected ? <NotifyHealth view={notify.view} now={props.now()} /> : null}
      {connected && linkError !== undefined ? <p role="alert">{linkError}</p> : null}
      {connected && runs.error ? <p role="alert">Could not list runs: {runs.error.message}</p> : null}
      {connected ? (
        <>
          <RunList runs={list} selected={runId} select={setChosenRun} />
          {detail.data && detail.data.run.id === runId ? (
            <>
              <RunControls
                client={client}
                run={detail.data.run}
                globalOff={summary.data?.autoResume.enabled === false}
              />
              <NeedsYou client={client} workers={workers} />
              <StallWarnings client={client} workers={workers} />
              <WorkerTable
                client={client}
                run={detail.data.run}
                workers={workers}
                now={props.now}
                select={setWorkerId}
              />
              {workerId !== null && workers.some((w) => w.id === workerId) ? (
                <WorkerDrillDown
                  client={client}
                  workerId={workerId}
                  now={props.now}
                  close={() => {
                    setWorkerId(null);
                    clearWorkerLink();
                  }}
                />
              ) : null}
            </>
          ) : null}
        </>
      ) : null}
      <Diagnostics client={client} />
    </Root>
  );
}

/**
 * Follows the deep link (`#worker=<id>`, on load and on every hash change, once connected): asks the host which run
 * the worker is in, then `show`s it (its run chosen, its drill-down open) and scrolls to the drill-down. Returns why
 * the linked worker cannot be shown, if it cannot.
 */
function useLinkedWorker(
  client: UiClient,
  connected: boolean,
  show: (workerId: string, runId: string) => void,
): string | undefined {
  const link = useWorkerLink();
  const handled = useRef(-1);
  const scroll = useRef(false);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    const workerId = link.workerId;
    if (!connected || workerId === null || handled.current === link.seq) return;
    handled.current = link.seq;
    void client.call("worker_get", { workerId }).then((r) => {
      if (!r.ok) {
        setError(`The linked worker ${workerId} cannot be shown: ${r.error.message}`);
        return;
      }
      setError(undefined);
      scroll.current = true;
      show(workerId, r.value.worker.runId);
    });
  }, [client, connected, link.seq, link.workerId]);
  useEffect(() => {
    // After each render until the drill-down is there (its run's workers arrive after the run is chosen).
    if (!scroll.current) return;
    const drill = document.querySelector('[data-testid="drill"]');
    if (drill === null) return;
    scroll.current = false;
    drill.scrollIntoView({ block: "start" });
  });
  return error;
}

function RunList(props: {
  runs: readonly RunView[];
  selected: string | null;
  select: (id: string) => void;
}): JSX.Element {
  return (
    <section aria-labelledby="runs-title">
      <h2 id="runs-title">Runs</h2>
      {props.runs.length === 0 ? (
        <p class="muted">No runs yet. An agent creates one with run_create.</p>
      ) : null}
      <ul class="row" style="list-style:none;padding:0;margin:0" data-testid="runs">
        {props.runs.map((r) => (
          <li key={r.id}>
            <button
              type="button"
              aria-pressed={r.id === props.selected}
              data-testid="run"
              onClick={() => props.select(r.id)}
            >
              {r.name} · {r.status === "active" ? "active" : r.status}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Auto Resume for unfinished workers, pause all, resume all, and the destructive Stop run. */
function RunControls(props: { client: UiClient; run: RunView; globalOff: boolean }): JSX.Element {
  const { client, run } = props;
  const on = run.defaultPolicy.mode === "auto";
  const active = run.status === "active";
  return (
    <section aria-labelledby="run-title" data-testid="run-controls">
      <h2 id="run-title">Run: {run.name}</h2>
      {run.objective ? <p class="muted">{run.objective}</p> : null}
      <div class="row">
        <span id="run-ar-label">Auto Resume unfinished workers</span>
        <ActionButton
          label={on ? "On" : "Off"}
          labelId="run-ar-state"
          labelledBy="run-ar-label run-ar-state"
          checked={on}
          class="switch"
          testId="run-auto-resume"
          disabled={!active}
          run={() =>
            act(client, "run_continuation_set_default", {
              runId: run.id,
              patch: { mode: on ? "manual" : "auto" },
            })
          }
        />
        <ActionButton
          label="Pause all after current turns"
          testId="pause-all"
          disabled={!active}
          run={() => act(client, "run_pause_all", { runId: run.id })}
        />
        <ActionButton
          label="Resume all unfinished"
          testId="resume-all"
          disabled={!active}
          run={() => act(client, "run_resume_all", { runId: run.id })}
        />
        <ConfirmButton
          label="Stop run"
          question={`Stop the run "${run.name}"? Every unfinished worker is stopped; this cannot be undone.`}
          testId="stop-run"
          disabled={!active}
          run={() => act(client, "run_stop", { runId: run.id, reason: "stopped by the operator" })}
        />
      </div>
      {props.globalOff ? (
        // The popup's global switch wins over every run's default (docs/operator-guide.md, Controls).
        <p class="muted" data-testid="global-auto-resume-off">
          The popup's Auto Resume switch is Off: no worker continues by itself, whatever this run's setting
          says.
        </p>
      ) : null}
    </section>
  );
}
