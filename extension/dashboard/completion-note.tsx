// The drill-down's note on what may end or block this worker: its policy's `completionSignal` in operator words
// (docs/continuation-core.md, "Completion signal"), so a block the worker wrote that changed nothing is explained.
import type { JSX } from "preact";
import type { ContinuationPolicy } from "../../shared/continuation-policy.ts";

export function completionWords(signal: ContinuationPolicy["completionSignal"]): string {
  switch (signal) {
    case "mcp":
      return (
        "Worker tools decide (worker_complete, worker_await_human, …). A continuation-state block counts only " +
        "when it says blocked or complete; anything else in a block is ignored."
      );
    case "output_block":
      return (
        "The continuation-state block at the end of each answer decides (complete, blocked, working). Worker " +
        "tools (worker_complete, worker_await_human, …) still work."
      );
    case "either":
      return (
        "Worker tools and the continuation-state block both count; a turn that made progress through the tools " +
        "needs no block."
      );
  }
}

export function CompletionNote(props: { policy: Pick<ContinuationPolicy, "completionSignal"> }): JSX.Element {
  return (
    <p data-testid="completion-note" data-signal={props.policy.completionSignal}>
      <strong>Completion signal ({props.policy.completionSignal}):</strong>{" "}
      {completionWords(props.policy.completionSignal)}
    </p>
  );
}
