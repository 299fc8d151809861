// A worker's liveness as every view shows it (docs/ui.md, "Liveness and remedies"): the host's words with their
// details, a countdown to a due time that moves once a second without asking the host, and the remedy in words.
import type { JSX } from "preact";
import { hasCountdown, livenessLine, showsRemedyText } from "./liveness-words.ts";
import { useSecondTick } from "./ticker.ts";
import type { WorkerView } from "../../shared/operations/views.ts";

export function LivenessLine(props: {
  worker: Pick<WorkerView, "liveness">;
  now: () => number;
  /** Also say what the person can do (the remedy's words); off where space is short. */
  remedyText?: boolean;
}): JSX.Element | null {
  const l = props.worker.liveness;
  useSecondTick(hasCountdown(l));
  if (!l) return null;
  return (
    <div class="liveness" data-testid="liveness" data-reason={l.reason} data-liveness={l.state}>
      <p data-testid="liveness-line">{livenessLine(l, props.now())}</p>
      {props.remedyText !== false && showsRemedyText(l) ? (
        <p class="muted" data-testid="remedy-text">
          {l.remedy.text}
        </p>
      ) : null}
    </div>
  );
}
