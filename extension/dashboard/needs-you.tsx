// The dashboard's attention sections: Needs-you questions to answer (choices, a typed answer, or resolve without
// one) and stall warnings with their recovery actions (Continue anyway, Pause, Open conversation, Stop worker).
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { WorkerView } from "../../shared/operations/views.ts";
import { act, ActionButton, ConfirmButton, runCall } from "../ui/components.tsx";
import { workerName } from "../ui/format.ts";
import { remedyPlan } from "../ui/remedy.ts";
import type { UiClient } from "../ui/ui-client.ts";

export function NeedsYou(props: { client: UiClient; workers: readonly WorkerView[] }): JSX.Element | null {
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
 * Continue anyway / Pause / Open conversation / Stop worker, for warned and stall-paused workers. Continue
 * anyway is the stall's remedy (docs/ui.md): only a stall pause has one; a warned worker still runs.
 */
export function StallWarnings(props: {
  client: UiClient;
  workers: readonly WorkerView[];
}): JSX.Element | null {
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
