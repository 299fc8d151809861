// The line every worker view shows while the worker moves to a new conversation (docs/ui.md, "Continue in a new
// conversation"): asking for the handoff brief or opening the new conversation, and why.
import type { JSX } from "preact";
import type { WorkerView } from "../../shared/operations/views.ts";
import { rolloverLine } from "./rollover-words.ts";

export function RolloverLine(props: { worker: Pick<WorkerView, "rollover"> }): JSX.Element | null {
  const r = props.worker.rollover;
  if (!r) return null;
  return (
    <p data-testid="rollover-line" data-phase={r.phase}>
      <span aria-hidden="true">↪ </span>
      {rolloverLine(r)}
    </p>
  );
}
