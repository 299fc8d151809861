// The dashboard's worker drill-down: state and liveness, a move to a new conversation under way, provenance
// (conversation, worktrees, resumes), the chain of conversations with Continue in a new conversation, every execution
// attempt and the newest events, read live with ui_worker_detail.
import type { JSX } from "preact";
import { NewConversationButton, StateChip } from "../ui/components.tsx";
import { attemptLine, clock, eventLine, workerName } from "../ui/format.ts";
import { useLive } from "../ui/live.ts";
import { LivenessLine } from "../ui/liveness-view.tsx";
import { ObjectiveLine } from "../ui/objective-line.tsx";
import { RolloverLine } from "../ui/rollover-line.tsx";
import type { UiClient } from "../ui/ui-client.ts";
import { CompletionNote } from "./completion-note.tsx";
import { ConversationChain } from "./conversation-chain.tsx";

export function WorkerDrillDown(props: {
  client: UiClient;
  workerId: string;
  now: () => number;
  close: () => void;
}): JSX.Element {
  const detail = useLive(props.client, "ui_worker_detail", { workerId: props.workerId, recentEvents: 50 });
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
          {/* The worker detail has room: the whole objective, never cut. */}
          <ObjectiveLine worker={d.worker} max={Number.POSITIVE_INFINITY} />
          <p>
            <StateChip worker={d.worker} /> · {attemptLine(d.worker)}
            {d.worker.summary ? ` · ${d.worker.summary}` : ""}
          </p>
          <LivenessLine worker={d.worker} now={props.now} />
          <RolloverLine worker={d.worker} />
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
          <h3>Conversations</h3>
          <NewConversationButton client={props.client} worker={d.worker} />
          <ConversationChain client={props.client} worker={d.worker} conversations={d.conversations ?? []} />
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
                {clock(e.at)} — {eventLine(e)}
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
