// The dashboard's worker table: each worker of the chosen run with its state, liveness and a move to a new
// conversation under way, disposition, attempt, last progress, Auto Resume (its own or the run's) and its controls.
import type { JSX } from "preact";
import type { RunView, WorkerView } from "../../shared/operations/views.ts";
import { type AnswerAction, StateChip, WorkerControls } from "../ui/components.tsx";
import { ago, attemptLine, workerName } from "../ui/format.ts";
import { LivenessLine } from "../ui/liveness-view.tsx";
import { RolloverLine } from "../ui/rollover-line.tsx";
import type { UiClient } from "../ui/ui-client.ts";

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

export function WorkerTable(props: {
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
                  <RolloverLine worker={w} />
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
