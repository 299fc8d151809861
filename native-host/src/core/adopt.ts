// Adopting an existing ChatGPT conversation (zero-setup mode): it becomes a worker of a new or chosen run with Auto
// Resume on and the block as its completion signal; no new chat is opened, the first turn is sent into it. It is
// named after the conversation's title (adopted-name.ts), so two adopted workers never look alike.
import { castDraft } from "immer";
import {
  applyPolicyPatch,
  DEFAULT_CONTINUATION_POLICY,
  type PolicyPatch,
} from "../../../shared/continuation-policy.ts";
import { adoptedName, adoptedPath } from "./adopted-name.ts";
import { type Ctx, type Rejection, reject } from "./context.ts";
import type { Input } from "./inputs.ts";
import { addWake } from "./intents.ts";
import type { Worker } from "./model.ts";

type Of<T extends Input["type"]> = Extract<Input, { type: T }>;

/** The worker's own policy: Auto Resume on, ended or blocked by its continuation-state block. */
export const ADOPTED_POLICY: PolicyPatch = { mode: "auto", completionSignal: "output_block" };

export const ADOPTED_OBJECTIVE = "Continue the work of this conversation until it is complete.";

/** The wake reason of an adoption's first turn; like `spawn`, it makes that turn the bootstrap. */
export const ADOPT_WAKE = "adopt";

const CONVERSATION_ID = /\/c\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?=$|[/?#])/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The conversation id of a ChatGPT URL (`…/c/<uuid>`, also inside a project) or of a bare id, lower case. */
export function conversationId(value: string): string | undefined {
  const trimmed = value.trim();
  if (UUID.test(trimmed)) return trimmed.toLowerCase();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" || url.hostname !== "chatgpt.com") return undefined;
  return CONVERSATION_ID.exec(url.pathname)?.[1]?.toLowerCase();
}

/** The unfinished worker bound to a conversation, if any. */
export function activeWorkerOf(workers: Iterable<Worker>, id: string): Worker | undefined {
  for (const w of workers) {
    if (
      w.status === "active" &&
      w.conversation.url !== undefined &&
      conversationId(w.conversation.url) === id
    )
      return w;
  }
  return undefined;
}

/** The paths of a run's workers, ended ones included (a path is never given twice in a run). */
function pathsOf(ctx: Ctx, runId: string): Set<string> {
  return new Set(
    Object.values(ctx.base.workers)
      .filter((w) => w.runId === runId)
      .map((w) => w.path),
  );
}

export function adoptConversation(ctx: Ctx, input: Of<"worker.adopt">): Rejection | void {
  const id = conversationId(input.conversationUrl);
  if (!id) {
    return reject("INVALID_INPUT", "conversationUrl must be a chatgpt.com conversation URL (…/c/<id>)");
  }
  const holder = activeWorkerOf(Object.values(ctx.base.workers), id);
  if (holder) {
    return reject(
      "CONFLICT",
      `this conversation is already kept going by worker ${holder.path} (${holder.id}) of run ${holder.runId}`,
    );
  }
  if (ctx.worker(input.workerId)) return reject("CONFLICT", `worker ${input.workerId} already exists`);
  if (input.newRun) {
    if (ctx.run(input.runId)) return reject("CONFLICT", `run ${input.runId} already exists`);
    ctx.state.runs[input.runId] = {
      id: input.runId,
      name: input.newRun.name,
      objective: input.objective ?? "",
      status: "active",
      createdAt: ctx.now,
      defaultPolicy: DEFAULT_CONTINUATION_POLICY,
    };
    ctx.emit("run.created", input.runId, undefined, {
      name: input.newRun.name,
      policy: DEFAULT_CONTINUATION_POLICY,
    });
  }
  const run = ctx.run(input.runId);
  if (!run) return reject("NOT_FOUND", `no run ${input.runId}`);
  if (run.status !== "active") return reject("RUN_TERMINAL", `run ${run.id} is ${run.status}`);
  const merged = applyPolicyPatch(run.defaultPolicy, ADOPTED_POLICY);
  if (!merged.ok) return reject("INVALID_POLICY", merged.message);
  const name = adoptedName(input.title, input.objective, id);
  const path = adoptedPath(pathsOf(ctx, run.id), name);
  const root = Object.values(ctx.base.workers).find((r) => r.runId === run.id && r.path === "/root");
  const w: Worker = {
    id: input.workerId,
    runId: run.id,
    path,
    name,
    ...(path !== "/root" && root ? { parentId: root.id } : {}),
    objective: input.objective ?? ADOPTED_OBJECTIVE,
    acceptance: [],
    createdAt: ctx.now,
    status: "active",
    policyOverride: ADOPTED_POLICY,
    // Bound to the person's tab from the start; the first turn waits for the executor to report its state.
    conversation: {
      state: "unknown",
      binding: "bound",
      changes: 0,
      observedSeq: 0,
      since: ctx.now,
      url: input.conversationUrl.trim(),
      ...(input.executorId !== undefined ? { executorId: input.executorId } : {}),
    },
    attemptCount: 0,
    autoResumes: 0,
    stall: {
      noProgressAttempts: 0,
      progressCursor: 0,
      baselineAt: ctx.now,
      clockRunning: false,
      warned: false,
    },
    inboxSeq: 0,
    inboxReadSeq: 0,
    adoptedAt: ctx.now,
  };
  ctx.state.workers[w.id] = castDraft(w);
  ctx.emit("worker.spawned", run.id, w.id, { path, parentId: w.parentId ?? null, adopted: true });
  ctx.emit("binding.changed", run.id, w.id, { binding: "bound" });
  const draft = ctx.worker(w.id);
  if (draft) addWake(ctx, draft, { reason: ADOPT_WAKE, explicit: true });
}
