// The operator dashboard (spec 17.4, 17.5, 16.4): runs and run controls, Needs-you items to answer, stall
// warnings with their recovery actions, the worker table, a worker drill-down (attempts and event trail) and
// diagnostics. Everything is read live from the host; nothing is kept in extension storage.
import type { JSX } from "preact";
import { CopyConnectorUrl, useHostSettings } from "../options/mcp-settings.tsx";
import { useState } from "preact/hooks";
import {
  act,
  ActionButton,
  type AnswerAction,
  Announcer,
  runCall,
  ConfirmButton,
  ConnectionBanner,
  StorageBanner,
  ConnectionChip,
  connectionWords,
  Root,
  StateChip,
  WorkerControls,
} from "../ui/components.tsx";
import { ago, attemptLine, clock, eventWords, stateWords, workerName } from "../ui/format.ts";
import { useLive } from "../ui/live.ts";
import { LivenessLine } from "../ui/liveness-view.tsx";
import { remedyPlan } from "../ui/remedy.ts";
import type { UiClient } from "../ui/ui-client.ts";
import { CompletionNote } from "./completion-note.tsx";
import {
  runGetSchema,
  runListSchema,
  summarySchema,
  workerDetailSchema,
  type RunView,
  type WorkerView,
} from "../ui/view-models.ts";

export interface DashboardProps {
  readonly client: UiClient;
  readonly now: () => number;
}

const RUN_LIST = { includeEnded: true };

export function Dashboard(props: DashboardProps): JSX.Element {
  const { client } = props;
  const status = client.status.value;
  const connected = status?.connection === "connected";
  const runs = useLive(client, "run_list", RUN_LIST, runListSchema);
  // Only for `storage`: whether changes can be saved (a full disk) is shown above everything else.
  const summary = useLive(client, "ui_summary", {}, summarySchema);
  const [chosenRun, setChosenRun] = useState<string | null>(null);
  const list = runs.data?.runs ?? [];
  const runId = chosenRun ?? list.find((r) => r.status === "active")?.id ?? list[0]?.id ?? null;
  const detail = useLive(client, runId === null ? null : "run_get", { runId }, runGetSchema);
  const [workerId, setWorkerId] = useState<string | null>(null);
  const workers = runId !== null && detail.data?.run.id === runId ? detail.data.workers : [];
  const facts = new Map<string, string>([["connection", `Connection ${connectionWords(status).text}`]]);
  for (const w of workers) facts.set(w.id, `${workerName(w)}: ${stateWords(w)}`);
  return (
    <Root testId="dashboard">
      <header class="spread">
        <h1>ChatGPT Orchestrator — Dashboard</h1>
        <ConnectionChip status={status} />
      </header>
      <Announcer facts={facts} />
      <ConnectionBanner client={client} />
      {connected ? <StorageBanner storage={summary.data?.storage} now={props.now()} /> : null}
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
                  close={() => setWorkerId(null)}
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

/** Spec 17.5: Auto Resume for unfinished workers, pause all, resume all, and the destructive Stop run. */
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

function NeedsYou(props: { client: UiClient; workers: readonly WorkerView[] }): JSX.Element | null {
  const items = props.workers.filter((w) => w.label === "Needs you" && w.wait?.kind === "human");
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="needs-title" data-testid="needs-you">
      <h2 id="needs-title">Needs you ({items.length})</h2>
      {items.map((w) => (
        <NeedsYouItem key={w.id} client={props.client} worker={w} />
      ))}
    </section>
  );
}

function NeedsYouItem(props: { client: UiClient; worker: WorkerView }): JSX.Element | null {
  const { client, worker: w } = props;
  const [answer, setAnswer] = useState("");
  if (w.wait?.kind !== "human") return null;
  const id = `answer-${w.id}`;
  const resolve = (text: string | undefined) =>
    act(client, "human_resolve", { workerId: w.id, ...(text ? { answer: text } : {}) });
  return (
    <div class="card" data-testid="needs-you-item" data-worker-id={w.id}>
      <h3>
        <span aria-hidden="true">! </span>
        {workerName(w)} <span class="muted">{w.path}</span>
      </h3>
      <p>
        <strong>Question:</strong> {w.wait.question}
      </p>
      {w.wait.reason ? <p class="muted">Why: {w.wait.reason}</p> : null}
      {w.wait.choices && w.wait.choices.length > 0 ? (
        <div class="row" role="group" aria-label="Choices">
          {w.wait.choices.map((c) => (
            <ActionButton key={c} label={c} testId="choice" run={() => resolve(c)} />
          ))}
        </div>
      ) : null}
      <label for={id}>Your answer</label>
      <textarea
        id={id}
        rows={2}
        style="width:100%"
        value={answer}
        onInput={(e) => setAnswer(e.currentTarget.value)}
        data-testid="answer"
      />
      <div class="row">
        <ActionButton
          label="Send answer"
          testId="send-answer"
          class="primary"
          disabled={answer.trim() === ""}
          run={() => resolve(answer.trim())}
        />
        <ActionButton label="Resolve without answer" testId="resolve" run={() => resolve(undefined)} />
      </div>
    </div>
  );
}

/**
 * Spec 16.4: Continue anyway / Pause / Open conversation / Stop worker, for warned and stall-paused workers. Continue
 * anyway is the stall's remedy (docs/ui.md): only a stall pause has one; a warned worker still runs.
 */
function StallWarnings(props: { client: UiClient; workers: readonly WorkerView[] }): JSX.Element | null {
  const { client } = props;
  const items = props.workers.filter(
    (w) => w.status === "active" && (w.label === "Stalled" || w.stallWarning),
  );
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="stall-title" data-testid="stalls">
      <h2 id="stall-title">Stall warnings ({items.length})</h2>
      {items.map((w) => (
        <div class="warn" key={w.id} data-testid="stall-item" data-worker-id={w.id}>
          <p>
            <span aria-hidden="true">⚠ </span>
            <strong>{workerName(w)}</strong>: {w.noProgressAttempts} turns without progress
            {w.label === "Stalled" ? " — paused for stall" : " — still running"}.
          </p>
          <div class="row">
            <StallRemedy client={client} worker={w} />
            {w.label !== "Stalled" ? (
              <ActionButton
                label="Pause"
                testId="stall-pause"
                run={() => act(client, "worker_pause", { workerId: w.id })}
              />
            ) : null}
            <button
              type="button"
              data-testid="open-conversation"
              onClick={() => client.openConversation(w.id, w.conversation.url)}
            >
              Open conversation
            </button>
            <ConfirmButton
              label="Stop worker"
              question={`Stop ${workerName(w)} for good? This cannot be undone.`}
              testId="stall-stop"
              run={() => act(client, "worker_stop", { workerId: w.id, reason: "stopped after a stall" })}
            />
          </div>
        </div>
      ))}
    </section>
  );
}

/** The stall's remedy button (Continue anyway), from the worker's liveness; nothing while it still runs. */
function StallRemedy(props: { client: UiClient; worker: WorkerView }): JSX.Element | null {
  const l = props.worker.liveness;
  const plan = l?.reason === "stalled" ? remedyPlan(props.worker.id, l) : undefined;
  if (plan?.kind !== "call") return null;
  return (
    <ActionButton label={plan.label} testId={plan.testId} run={() => runCall(props.client, plan.call)} />
  );
}

/** The `answer` remedy in the worker table: focus that worker's answer box in the Needs-you section above. */
function answerIn(w: WorkerView): AnswerAction | undefined {
  if (w.wait?.kind !== "human") return undefined;
  return {
    label: "Answer",
    open: () => {
      const box = document.getElementById(`answer-${w.id}`);
      box?.scrollIntoView({ block: "center" });
      box?.focus();
    },
  };
}

function WorkerTable(props: {
  client: UiClient;
  run: RunView;
  workers: readonly WorkerView[];
  now: () => number;
  select: (id: string) => void;
}): JSX.Element {
  return (
    <section aria-labelledby="workers-title">
      <h2 id="workers-title">Workers</h2>
      <table data-testid="worker-table">
        <thead>
          <tr>
            <th scope="col">Worker</th>
            <th scope="col">State</th>
            <th scope="col">Disposition</th>
            <th scope="col">Attempt</th>
            <th scope="col">Last progress</th>
            <th scope="col">Auto Resume</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.workers.map((w) => {
            const override = w.policyOverride.mode !== undefined;
            return (
              <tr key={w.id} data-testid="worker-row" data-worker-id={w.id}>
                <th scope="row">
                  <button type="button" data-testid="drill-down" onClick={() => props.select(w.id)}>
                    {workerName(w)}
                  </button>
                  <div class="muted">{w.path}</div>
                </th>
                <td>
                  <StateChip worker={w} />
                  <LivenessLine worker={w} now={props.now} />
                </td>
                <td>{w.disposition.replace(/_/g, " ")}</td>
                <td>{attemptLine(w)}</td>
                <td>{ago(w.lastProgressAt, props.now())}</td>
                <td data-testid="policy">
                  {override ? (
                    <span class="override">
                      {w.policy.mode === "auto" ? "On" : "Off"} (worker override; run default{" "}
                      {props.run.defaultPolicy.mode === "auto" ? "On" : "Off"})
                    </span>
                  ) : (
                    <span>{w.policy.mode === "auto" ? "On" : "Off"} (run default)</span>
                  )}
                </td>
                <td>
                  <WorkerControls client={props.client} worker={w} answer={answerIn(w)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function WorkerDrillDown(props: {
  client: UiClient;
  workerId: string;
  now: () => number;
  close: () => void;
}): JSX.Element {
  const detail = useLive(
    props.client,
    "ui_worker_detail",
    { workerId: props.workerId, recentEvents: 50 },
    workerDetailSchema,
  );
  const d = detail.data;
  return (
    <section aria-labelledby="drill-title" data-testid="drill">
      <div class="spread">
        <h2 id="drill-title">Worker {d ? workerName(d.worker) : ""}</h2>
        <button type="button" onClick={props.close}>
          Close details
        </button>
      </div>
      {detail.error ? <p role="alert">{detail.error.message}</p> : null}
      {d ? (
        <>
          <p>
            <StateChip worker={d.worker} /> · {attemptLine(d.worker)}
            {d.worker.summary ? ` · ${d.worker.summary}` : ""}
          </p>
          <LivenessLine worker={d.worker} now={props.now} />
          {d.worker.liveness ? (
            <p class="muted" data-testid="liveness-since">
              Since {clock(d.worker.liveness.since)}
            </p>
          ) : null}
          {d.worker.pause ? <p>Paused: {d.worker.pause.reason}</p> : null}
          <CompletionNote policy={d.worker.policy} />
          <h3>Provenance</h3>
          <dl data-testid="provenance">
            <dt>Path</dt>
            <dd>{d.worker.path}</dd>
            <dt>Conversation</dt>
            <dd>{d.worker.conversation.url ?? "not opened yet"}</dd>
            <dt>Owns</dt>
            <dd>
              {(d.worker.worktrees ?? []).length > 0 ? (d.worker.worktrees ?? []).join(", ") : "no worktree"}
            </dd>
            <dt>Automatic resumes</dt>
            <dd>{d.worker.autoResumes}</dd>
          </dl>
          <h3>Execution attempts</h3>
          <table data-testid="attempts">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Reason</th>
                <th scope="col">Scheduled</th>
                <th scope="col">Submitted</th>
                <th scope="col">Ended</th>
                <th scope="col">Outcome</th>
                <th scope="col">Prompt</th>
                <th scope="col">Browser</th>
              </tr>
            </thead>
            <tbody>
              {d.attempts.map((a) => (
                <tr key={a.seq}>
                  <td>{a.seq}</td>
                  <td>{a.reason.replace(/_/g, " ")}</td>
                  <td>{clock(a.scheduledAt)}</td>
                  <td>{clock(a.submittedAt)}</td>
                  <td>{clock(a.terminalAt)}</td>
                  <td>
                    {a.outcome ?? a.state}
                    {a.errorCode ? ` (${a.errorCode})` : ""}
                  </td>
                  <td>{a.promptId}</td>
                  <td>{a.executorId ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Event trail</h3>
          <ol data-testid="events">
            {d.events.map((e) => (
              <li key={e.seq}>
                {clock(e.at)} — {eventWords(e.type)}
                {/* What the worker reported with worker_progress (its newest 50 are kept: docs/privacy.md); text only. */}
                {typeof e.data.summary === "string" ? (
                  <>
                    : <span data-testid="event-summary">{e.data.summary}</span>
                  </>
                ) : null}
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </section>
  );
}

function Diagnostics(props: { client: UiClient }): JSX.Element {
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
