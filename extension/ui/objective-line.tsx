// A worker's objective (what it was spawned or adopted for) as a secondary line under its name: cut after a word
// where it is long, the whole text in `title` (a tooltip).
import type { JSX } from "preact";
import type { WorkerView } from "../../shared/operations/views.ts";

/** The longest objective a secondary line shows before it is cut. */
export const OBJECTIVE_LINE_MAX = 120;

/** `text` within `max` characters, cut after a whole word with "…" when longer. */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(" ");
  return `${(space > 0 ? head.slice(0, space) : head).trimEnd()}…`;
}

export function ObjectiveLine(props: {
  worker: Pick<WorkerView, "objective">;
  max?: number;
}): JSX.Element | null {
  const text = props.worker.objective.replace(/\s+/g, " ").trim();
  if (text === "") return null;
  return (
    <p class="muted" data-testid="worker-objective" title={text}>
      <span class="sr-only">Objective: </span>
      {clipped(text, props.max ?? OBJECTIVE_LINE_MAX)}
    </p>
  );
}
