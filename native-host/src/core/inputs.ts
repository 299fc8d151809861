// Everything that can happen to the domain: operations (MCP, UI, root), executor observations and the clock.
import type { ContinuationStatus } from "../../../shared/continuation-block.ts";
import type { ContinuationBlockReport } from "../../../shared/continuation-block-report.ts";
import type { PolicyPatch } from "../../../shared/continuation-policy.ts";
import type { BindingState, ConversationState } from "./model.ts";

/** Who asked: the operator (popup, dashboard, overlay), a worker (through MCP) or the system itself. */
export type Actor = "operator" | "system" | { readonly workerId: string };

export type Input =
  // Runs
  | {
      readonly type: "run.create";
      readonly runId: string;
      readonly name: string;
      readonly objective?: string;
      readonly policy?: PolicyPatch;
    }
  | { readonly type: "run.stop"; readonly runId: string; readonly reason?: string }
  | { readonly type: "run.pause_all"; readonly runId: string }
  | { readonly type: "run.resume_all"; readonly runId: string }
  | { readonly type: "run.set_default_policy"; readonly runId: string; readonly patch: PolicyPatch }
  // Workers
  | {
      readonly type: "worker.spawn";
      readonly runId: string;
      readonly workerId: string;
      readonly path: string;
      readonly name?: string;
      readonly objective: string;
      readonly acceptance?: readonly string[];
      readonly policy?: PolicyPatch;
      /** Work locations (worktree paths or branches) the worker owns from the start. */
      readonly worktrees?: readonly string[];
      /** A chatgpt.com GPT or project page to start the worker's conversation in (default: a plain new chat). */
      readonly startUrl?: string;
    }
  | { readonly type: "worker.claim_worktree"; readonly workerId: string; readonly worktree: string }
  | { readonly type: "worker.release_worktree"; readonly workerId: string; readonly worktree: string }
  | {
      readonly type: "worker.adopt";
      readonly workerId: string;
      readonly runId: string;
      /** Create this run (with `runId`) for the conversation instead of joining an existing one. */
      readonly newRun?: { readonly name: string };
      /** The existing conversation, `https://chatgpt.com/…/c/<id>`: no new chat is opened. */
      readonly conversationUrl: string;
      readonly objective?: string;
      /** The conversation's title as the page shows it: the worker's name (a name, not transcript text). */
      readonly title?: string;
      /** The executor whose tab shows the conversation (the UI request came from it): it holds the worker. */
      readonly executorId?: string;
    }
  | { readonly type: "worker.progress"; readonly workerId: string; readonly summary?: string }
  | {
      /** Move the worker to a new conversation (docs/continuation-core.md, "Rollover"). */
      readonly type: "worker.rollover";
      readonly workerId: string;
      readonly trigger: "operator" | "agent";
      /** The agent's handoff brief: held in memory only, for the new conversation's first prompt. */
      readonly brief?: string;
      readonly reason?: string;
    }
  | { readonly type: "worker.complete"; readonly workerId: string; readonly summary?: string }
  | { readonly type: "worker.fail"; readonly workerId: string; readonly reason: string }
  | {
      readonly type: "worker.await_human";
      readonly workerId: string;
      readonly reason: string;
      readonly question: string;
      readonly choices?: readonly string[];
      readonly context?: string;
    }
  | {
      readonly type: "worker.await_dependency";
      readonly workerId: string;
      readonly condition: string;
      readonly onWorkerIds?: readonly string[];
    }
  | { readonly type: "human.resolve"; readonly workerId: string; readonly answer?: string }
  | { readonly type: "worker.pause"; readonly workerId: string; readonly reason?: string }
  | { readonly type: "worker.resume"; readonly workerId: string }
  | {
      readonly type: "worker.continue_now";
      readonly workerId: string;
      /** Clear a human or dependency wait instead of failing. */
      readonly overrideWait?: boolean;
      /** Clear a pause (operator or stall) instead of failing. */
      readonly clearPause?: boolean;
    }
  | { readonly type: "worker.stop"; readonly workerId: string; readonly reason?: string }
  | { readonly type: "worker.followup"; readonly workerId: string; readonly text: string }
  | {
      readonly type: "worker.steer";
      readonly workerId: string;
      readonly text: string;
      /** Deduplication key; repeated identical corrections are dropped. Defaults to the text. */
      readonly key?: string;
    }
  | {
      readonly type: "worker.set_policy";
      readonly workerId: string;
      readonly patch: PolicyPatch;
      /** Fields whose override is removed so the run default applies again. */
      readonly reset?: readonly (keyof PolicyPatch)[];
    }
  // Messages
  | {
      readonly type: "message.send";
      readonly messageId: string;
      readonly from: Actor;
      readonly toWorkerId: string;
      readonly body: string;
    }
  | { readonly type: "message.read"; readonly workerId: string; readonly upToSeq: number }
  // Executor observations
  | {
      readonly type: "conversation.observed";
      readonly workerId: string;
      readonly state: ConversationState;
      /** Per-worker sequence from the executor; reports not newer than the last applied one are stale. */
      readonly seq: number;
      readonly errorCode?: string;
      readonly url?: string;
      /** `status:` of the newest continuation-state block: recorded as a signal, never authority. */
      readonly continuationStatus?: ContinuationStatus;
      /** The executor that observed it; recorded on the attempt it proves running. */
      readonly executorId?: string;
      /** The newest assistant turn's continuation-state block, sent with the report that ends a turn. */
      readonly continuationBlock?: ContinuationBlockReport;
      /** With RATE_LIMITED / USAGE_CAP: the reset time the page showed (epoch ms), if it showed one. */
      readonly resetAt?: number;
      /** When the page's evidence for this state appeared (its end of turn, for idle): the idle grace counts from it. */
      readonly since?: number;
      /** With a turn's end: the handoff block of the newest answer, if it has one (memory only: never stored). */
      readonly handoffBrief?: string;
      /** With a turn's end: the conversation's visible text length (a size, for the rollover budget). */
      readonly visibleChars?: number;
    }
  | {
      readonly type: "binding.changed";
      readonly workerId: string;
      readonly binding: Exclude<BindingState, "none">;
      readonly url?: string;
      /** The executor that reported it: a bound or detached conversation is held by it. */
      readonly executorId?: string;
    }
  // The bridge routed the worker's command to this executor, or a person adopted its conversation again there
  | { readonly type: "conversation.held"; readonly workerId: string; readonly executorId: string }
  | {
      readonly type: "command.acked";
      readonly workerId: string;
      readonly commandId: string;
      readonly executorId?: string;
    }
  | {
      readonly type: "command.result";
      readonly workerId: string;
      readonly commandId: string;
      readonly outcome: "submitted" | "failed";
      readonly errorCode?: string;
      readonly detail?: string;
      readonly url?: string;
      readonly executorId?: string;
    }
  // A browser (executor) said hello: commands refused for want of one are tried again at once
  | { readonly type: "executor.connected"; readonly executorId: string }
  // The popup's global Auto Resume switch
  | { readonly type: "auto_resume.set"; readonly enabled: boolean }
  // Time
  | { readonly type: "tick" }
  // The store opened with transactions missing that it had acknowledged, the operator having accepted the loss
  | {
      readonly type: "store.loss_accepted";
      /** Highest seq acknowledged before the loss (null: unknown). */
      readonly acknowledgedSeq: number | null;
      /** Highest seq the files still held. */
      readonly keptSeq: number;
      readonly detail: string;
    };

export type InputType = Input["type"];
