// The completion signal policy (docs/continuation-core.md): what the continuation-state block of a finished turn
// does. Under `mcp` it is advisory; under `output_block` / `either` complete ends the worker, blocked asks a
// person, working keeps it eligible, and a missing or malformed block fails safe (no progress, then a pause).
import type { ContinuationBlockReport } from "../../../shared/continuation-block-report.ts";
import type { ContinuationPolicy } from "../../../shared/continuation-policy.ts";
import { recordProgress } from "./attempts.ts";
import type { Ctx, DraftWorker } from "./context.ts";
import { endWorker } from "./worker-end.ts";

export const INVALID_BLOCK_CODE = "CONTINUATION_BLOCK_INVALID";

/** Shown as the Needs-you question when a blocked block carries no usable summary. */
export const BLOCKED_FALLBACK_QUESTION =
  "The assistant reported that it is blocked. Open the conversation to see what it needs.";

export type BlockOutcome = "none" | "valid" | "invalid";

/**
 * Applies the block that ended a turn, before the turn's attempt is closed (so a changed `current:`/`next:`
 * marks the attempt productive and complete/blocked decide how it ends). Returns whether it was valid.
 */
export function applyBlock(
  ctx: Ctx,
  w: DraftWorker,
  report: ContinuationBlockReport | undefined,
  policy: ContinuationPolicy,
): BlockOutcome {
  if (report === undefined || w.status !== "active") return "none";
  if (policy.completionSignal === "mcp") {
    honourUnderMcp(ctx, w, report);
    return "none";
  }
  const state = (w.outputBlock ??= { invalidStreak: 0 });
  if (report.result !== "block") return "invalid";
  state.invalidStreak = 0;
  if (report.progressHash !== state.progressHash) {
    state.progressHash = report.progressHash;
    recordProgress(ctx, w, policy, false);
  }
  switch (report.status) {
    case "working":
      return "valid";
    case "complete":
      endWorker(ctx, w, "completed", "the continuation-state block says complete");
      return "valid";
    case "blocked":
      askPerson(
        ctx,
        w,
        "the continuation-state block says blocked",
        report.summary ?? BLOCKED_FALLBACK_QUESTION,
      );
      return "valid";
  }
}

/** Shown when, under the `mcp` signal, the block says complete but the worker never called worker_complete. */
export const COMPLETE_UNCONFIRMED_QUESTION =
  "The assistant reports the objective complete but did not confirm it with worker_complete. Check the " +
  "conversation: Stop the worker if it is done, or answer to let it continue.";

/**
 * Under the `mcp` signal, where only the worker tools end a worker: the block still decides whether to
 * prompt again. `blocked` suppresses automatic continuation until a person resolves it; `complete` cannot complete
 * the worker (its durable state does not say so) but must not be answered with another prompt either, so a person
 * confirms. `working` and missing or malformed blocks change nothing: the tools are the signal.
 */
function honourUnderMcp(ctx: Ctx, w: DraftWorker, report: ContinuationBlockReport): void {
  if (report.result !== "block" || w.wait) return;
  if (report.status === "blocked") {
    askPerson(
      ctx,
      w,
      "the continuation-state block says blocked",
      report.summary ?? BLOCKED_FALLBACK_QUESTION,
    );
  } else if (report.status === "complete") {
    askPerson(ctx, w, "the continuation-state block says complete", COMPLETE_UNCONFIRMED_QUESTION);
  }
}

function askPerson(ctx: Ctx, w: DraftWorker, reason: string, question: string): void {
  if (w.wait?.kind === "human") return;
  w.wait = { kind: "human", reason, question, requestedAt: ctx.now };
  ctx.emit("worker.awaiting_human", w.runId, w.id, { reason: "continuation_block", question });
}

/**
 * After the turn's attempt is closed (it has already counted as without progress): one more turn without a
 * valid block; past the policy's limit the worker pauses with a reason a person can act on. Under `either`,
 * a turn that reported progress through the worker tools did not need a block.
 */
export function countInvalidBlock(
  ctx: Ctx,
  w: DraftWorker,
  report: ContinuationBlockReport,
  policy: ContinuationPolicy,
  progressThroughTools: boolean,
): void {
  if (w.status !== "active" || (policy.completionSignal === "either" && progressThroughTools)) return;
  const state = (w.outputBlock ??= { invalidStreak: 0 });
  state.invalidStreak += 1;
  const n = state.invalidStreak;
  const what = report.result === "missing" ? "without" : "with a malformed";
  ctx.emit("continuation.warning", w.runId, w.id, {
    why: `the response ended ${what} continuation-state block`,
    invalidBlocks: n,
  });
  const limit = policy.pauseAfterInvalidBlocks;
  if (limit === null || n < limit || w.pause) return;
  const reason = `${n} responses in a row ended without a valid continuation-state block (last: ${report.result})`;
  w.pause = { source: "error", reason, at: ctx.now, errorCode: INVALID_BLOCK_CODE };
  // A person who resumes gets a fresh allowance rather than a pause on the very next bad block.
  state.invalidStreak = 0;
  ctx.emit("execution.paused", w.runId, w.id, { source: "error", errorCode: INVALID_BLOCK_CODE, reason });
}
