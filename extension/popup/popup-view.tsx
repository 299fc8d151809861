// The toolbar popup: is the orchestrator connected, is Auto Resume on, which workers are working,
// resuming or blocked, does anything need me, and what is this tab's worker doing — at a glance.
import type { JSX } from "preact";
import {
  act,
  ActionButton,
  Announcer,
  ConnectionBanner,
  StorageBanner,
  ConnectionChip,
  connectionWords,
  Root,
  StateChip,
  WorkerControls,
} from "../ui/components.tsx";
import { ago, attemptLine, countsOf, workerName } from "../ui/format.ts";
import { useLive } from "../ui/live.ts";
import { LivenessLine } from "../ui/liveness-view.tsx";
import type { UiClient } from "../ui/ui-client.ts";
import { AdoptPanel, ReleaseButton } from "../ui/adopt-panel.tsx";
import { ObjectiveLine } from "../ui/objective-line.tsx";
import { RolloverLine } from "../ui/rollover-line.tsx";
import { movingSuffix } from "../ui/rollover-words.ts";
import type { AutoResume } from "../../shared/operations/records.ts";
import type { WorkerView } from "../../shared/operations/views.ts";

export interface PopupProps {
  readonly client: UiClient;
  /** Opens an extension page (dashboard or options) in a tab. */
  readonly openPage: (page: "dashboard" | "options") => void;
  readonly now: () => number;
}

export function Popup(props: PopupProps): JSX.Element {
  const { client } = props;
  const status = client.status.value;
  const summary = useLive(client, "ui_summary", {});
  const data = summary.data;
  const connected = status?.connection === "connected";
  const facts = new Map<string, string>([["connection", `Connection ${connectionWords(status).text}`]]);
  for (const w of data?.workers ?? []) facts.set(w.id, `${workerName(w)}: ${w.label}${movingSuffix(w)}`);
  return (
    <Root testId="popup">
      <header class="spread">
        <h1>ChatGPT Orchestrator</h1>
        <ConnectionChip status={status} />
      </header>
      <Announcer facts={facts} />
      <ConnectionBanner client={client} />
      {connected ? <StorageBanner storage={data?.storage} now={props.now()} /> : null}
      {summary.error && connected ? (
        <p role="alert" data-testid="load-error">
          Could not read the orchestrator state: {summary.error.message}
        </p>
      ) : null}
      {data && connected ? <Body {...props} autoResume={data.autoResume} workers={data.workers} /> : null}
      {connected && !data && !summary.error ? <p class="muted">Loading…</p> : null}
      <footer class="spread" style="margin-top:10px">
        <button type="button" data-testid="open-dashboard" onClick={() => props.openPage("dashboard")}>
          Open dashboard
        </button>
        <button type="button" data-testid="open-settings" onClick={() => props.openPage("options")}>
          Settings
        </button>
      </footer>
    </Root>
  );
}

function Body(props: PopupProps & { autoResume: AutoResume; workers: readonly WorkerView[] }): JSX.Element {
  const { client, autoResume, workers } = props;
  const counts = countsOf(workers);
  const tabWorker = workers.find((w) => w.id === client.status.value?.tabWorkerId);
  // The popup has no answer form: the dashboard's Needs-you section has it.
  const answer = { label: "Answer in dashboard", open: () => props.openPage("dashboard") };
  return (
    <>
      <section aria-labelledby="ec-title">
        <h2 id="ec-title">Execution continuity</h2>
        <div class="spread">
          <span id="ar-label">Auto Resume</span>
          <AutoResumeSwitch
            autoResume={autoResume}
            idle={workers.length === 0}
            set={(enabled) => act(client, "auto_resume_set", { enabled })}
          />
        </div>
        <p class="muted" id="ar-help">
          Keep unfinished workers running across ChatGPT turn boundaries. {autoResumeWords(autoResume)}
        </p>
        <dl class="counts" data-testid="counts">
          <dt>Active workers</dt>
          <dd data-testid="count-active">{counts.active}</dd>
          <dt>Working</dt>
          <dd data-testid="count-working">{counts.working}</dd>
          <dt>Resuming</dt>
          <dd data-testid="count-resuming">{counts.resuming}</dd>
          <dt>Needs you</dt>
          <dd data-testid="count-needs-you">{counts.needsYou}</dd>
          {counts.stalled > 0 ? (
            <>
              <dt>Paused for stall</dt>
              <dd data-testid="count-stalled">{counts.stalled}</dd>
            </>
          ) : null}
        </dl>
      </section>
      <section aria-labelledby="workers-title">
        <h2 id="workers-title">Workers</h2>
        {workers.length === 0 ? <p class="muted">No unfinished workers.</p> : null}
        <ul style="list-style:none;padding:0;margin:0">
          {workers.map((w) => (
            <li class="card" key={w.id} data-testid="worker" data-worker-id={w.id}>
              <div class="spread">
                <h3>{workerName(w)}</h3>
                <StateChip worker={w} />
              </div>
              <ObjectiveLine worker={w} />
              <p class="muted">
                {w.path} · last progress {ago(w.lastProgressAt, props.now())}
              </p>
              <LivenessLine worker={w} now={props.now} />
              <RolloverLine worker={w} />
              <p>{attemptLine(w)}</p>
              {w.wait?.kind === "human" ? <p>Asks: {w.wait.question}</p> : null}
              <WorkerControls
                client={client}
                worker={w}
                show={{ continueNow: false, stop: false }}
                answer={answer}
              />
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="tab-title" data-testid="current-tab">
        <h2 id="tab-title">Current conversation</h2>
        {tabWorker ? (
          <div class="card">
            <div class="spread">
              <h3>{workerName(tabWorker)}</h3>
              <StateChip worker={tabWorker} />
            </div>
            <ObjectiveLine worker={tabWorker} />
            <p class="muted">{tabWorker.path}</p>
            <LivenessLine worker={tabWorker} now={props.now} remedyText={false} />
            <RolloverLine worker={tabWorker} />
            <p>
              {!autoResume.enabled
                ? "Auto Resume off (switched off for every worker)"
                : `Auto Resume ${tabWorker.policy.mode === "auto" ? "on" : "off"}${
                    tabWorker.policyOverride.mode !== undefined ? " (this worker's own setting)" : ""
                  }`}
            </p>
            <WorkerControls client={client} worker={tabWorker} show={{ stop: false }} answer={answer} />
            {tabWorker.adopted === true ? (
              <>
                <ReleaseButton client={client} workerId={tabWorker.id} />
                <p class="muted" id="release-help">
                  Release stops keeping this conversation going; its history stays.
                </p>
              </>
            ) : null}
          </div>
        ) : client.status.value?.tabAdoptable === true ? (
          <AdoptPanel client={client} />
        ) : (
          <p class="muted">No unfinished worker in this tab.</p>
        )}
      </section>
    </>
  );
}

/** What the switch means right now, in words (it reads On only while something continues by itself). */
export function autoResumeWords(a: AutoResume): string {
  if (!a.enabled) return "Off: nothing continues by itself; what you ask for still goes.";
  if (a.on) {
    if (a.automatic === 0) return "Every worker with Auto Resume on is paused.";
    return a.automatic === 1
      ? "1 worker continues by itself."
      : `${a.automatic} workers continue by themselves.`;
  }
  return "No unfinished worker has Auto Resume on.";
}

/**
 * The global switch (`auto_resume_set`, docs/operator-guide.md "Controls"): On iff the host says something auto-
 * resumes, so it never reads Off while anything does. Nothing to switch while it is allowed and no worker is active.
 */
function AutoResumeSwitch(props: {
  autoResume: AutoResume;
  idle: boolean;
  set: (enabled: boolean) => Promise<string | undefined>;
}): JSX.Element {
  const { on, enabled } = props.autoResume;
  return (
    <ActionButton
      label={on ? "On" : "Off"}
      labelId="ar-state"
      testId="auto-resume"
      class="switch"
      disabled={enabled && props.idle}
      describedBy="ar-help"
      labelledBy="ar-label ar-state"
      checked={on}
      run={() => props.set(!on)}
    />
  );
}
