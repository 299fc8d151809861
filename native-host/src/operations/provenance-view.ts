// The provenance read model (shared/operations/provenance.ts): who owns a worktree, which conversation hosts it,
// which attempt is active, how many automatic resumes happened and the state in operator words; plus the lookups.
import { conversationId } from "../core/adopt.ts";
import type { Attempt, DomainState, Worker } from "../core/model.ts";
import { dispositionOf } from "../core/policy.ts";
import { isEnded } from "../core/attempts.ts";
import { normalizeWorktree } from "../core/worktrees.ts";
import { workerLiveness } from "../core/liveness.ts";
import type { ErrorCode } from "../../../shared/error-codes.ts";
import type { Immutable } from "../../../shared/operations/index.ts";
import type { Provenance } from "../../../shared/operations/provenance.ts";
import { conversationChain } from "./conversation-chain.ts";
import { attemptView, detachedView, stateLabel, type ViewContext } from "./views.ts";

export type { Provenance } from "../../../shared/operations/provenance.ts";

/** `stored` is the durable attempt history; the worker's current attempt in memory is the freshest copy. */
export function provenanceOf(
  state: DomainState,
  w: Worker,
  stored: readonly Attempt[],
  view: ViewContext = detachedView(),
): Immutable<Provenance> {
  const run = state.runs[w.runId];
  const current = w.current;
  const attempts = stored.map((a) => (current && a.id === current.id ? current : a));
  if (current && !attempts.some((a) => a.id === current.id)) attempts.push(current);
  return {
    worker: { id: w.id, path: w.path, name: w.name },
    run: { id: w.runId, name: run?.name ?? "", status: run?.status ?? "unknown" },
    worktrees: (w.worktrees ?? []).map((c) => ({
      worktree: c.location,
      owned: c.releasedAt === undefined && w.status === "active",
      claimedAt: c.claimedAt,
      releasedAt: c.releasedAt ?? null,
      releaseReason: c.releaseReason ?? null,
    })),
    conversation: {
      url: w.conversation.url ?? null,
      state: w.conversation.state,
      binding: w.conversation.binding,
    },
    conversations: conversationChain(w),
    activeAttempt: current && !isEnded(current.state) ? attemptView(current) : null,
    attempts: attempts.map(attemptView),
    autoResumes: w.autoResumes,
    state: stateLabel(w, run, workerLiveness(state, w, view.now, view.env)),
    disposition: dispositionOf(w),
  };
}

export type Lookup = { readonly worker: Worker } | { readonly code: ErrorCode; readonly message: string };

/** Newest first, active before ended: the order in which candidates for one key are preferred. */
function preferred(a: Worker, b: Worker): number {
  const active = Number(b.status === "active") - Number(a.status === "active");
  return active !== 0 ? active : b.createdAt - a.createdAt;
}

/**
 * The worker behind a worktree: its current owner, else the worker that owned it last. A location owned
 * now in several runs needs `runId` to say which one.
 */
export function byWorktree(state: DomainState, raw: string, runId?: string): Lookup {
  const location = normalizeWorktree(raw);
  if (typeof location !== "string") return location;
  const holders = Object.values(state.workers).filter(
    (w) => (runId === undefined || w.runId === runId) && w.worktrees?.some((c) => c.location === location),
  );
  const owners = holders.filter(
    (w) => w.status === "active" && w.worktrees?.some((c) => c.location === location && !c.releasedAt),
  );
  if (owners.length > 1) {
    const runs = owners.map((w) => `${w.runId} (${w.path})`).join(", ");
    return {
      code: "AMBIGUOUS",
      message: `worktree '${location}' is owned in several runs: ${runs}; pass runId`,
    };
  }
  if (owners[0]) return { worker: owners[0] };
  const claimedAt = (w: Worker) =>
    Math.max(...(w.worktrees ?? []).filter((c) => c.location === location).map((c) => c.claimedAt));
  const last = holders.sort((a, b) => claimedAt(b) - claimedAt(a))[0];
  if (last) return { worker: last };
  return {
    code: "NOT_FOUND",
    message: `no worker owns or has owned worktree '${location}'${runId ? ` in run ${runId}` : ""}`,
  };
}

/** The conversation id where there is one (URL or bare id), else the trimmed text itself. */
function conversationKey(value: string): string {
  return conversationId(value) ?? value.trim().replace(/\/+$/, "");
}

/**
 * The worker hosted by a conversation, given its URL or its `/c/<uuid>` id: the one it lives in now, else one that
 * moved on from it (docs/operator-guide.md, "Rollover"), so an old conversation still leads to its worker.
 */
export function byConversation(state: DomainState, raw: string, runId?: string): Lookup {
  const key = conversationKey(raw);
  const matches = (url: string | undefined) => url !== undefined && conversationKey(url) === key;
  const inRun = Object.values(state.workers).filter((w) => runId === undefined || w.runId === runId);
  const hosted = inRun.filter((w) => matches(w.conversation.url)).sort(preferred);
  if (hosted[0]) return { worker: hosted[0] };
  const left = inRun.filter((w) => (w.pastConversations ?? []).some((p) => matches(p.url))).sort(preferred);
  if (left[0]) return { worker: left[0] };
  return { code: "NOT_FOUND", message: `no worker is bound to conversation '${raw.trim()}'` };
}

export function byWorker(state: DomainState, id: string): Lookup {
  const w = state.workers[id];
  return w ? { worker: w } : { code: "NOT_FOUND", message: `no worker ${id}` };
}
