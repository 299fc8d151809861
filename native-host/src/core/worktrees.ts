// Worktree ownership (docs/continuation-core.md): a worker claims named work locations; one owner per location per run.
// Only claim, release and the worker's own end change ownership: attempts, resumes and restarts never do.
import { castDraft } from "immer";
import { type Ctx, type DraftWorker, type Rejection, reject } from "./context.ts";
import type { Input } from "./inputs.ts";
import type { LifecycleStatus, Worker, WorktreeClaim } from "./model.ts";

type Of<T extends Input["type"]> = Extract<Input, { type: T }>;

export const MAX_WORKTREE_LENGTH = 1_000;

/**
 * The stored form of a location: trimmed, without trailing slashes or backslashes, so `impl/backend/`
 * and `impl/backend` are one location. Case is kept: git branches and most file systems are case-sensitive.
 */
export function normalizeWorktree(raw: string): string | Rejection {
  const trimmed = raw.trim();
  const location = trimmed.length > 1 ? trimmed.replace(/[/\\]+$/, "") || trimmed[0]! : trimmed;
  if (location === "") return reject("INVALID_INPUT", "a worktree must be a non-empty path or branch name");
  if (location.length > MAX_WORKTREE_LENGTH) {
    return reject("INVALID_INPUT", `a worktree name must be at most ${MAX_WORKTREE_LENGTH} characters`);
  }
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u001f\u007f]/.test(location)) {
    return reject("INVALID_INPUT", "a worktree name must not contain control characters");
  }
  return location;
}

/** Claims this worker has not released and that did not end with it. */
export function ownedClaims(w: Worker): readonly WorktreeClaim[] {
  return (w.worktrees ?? []).filter((c) => c.releasedAt === undefined);
}

/** The active worker of `runId` owning `location`, if any (ended workers have released everything). */
export function ownerOf(workers: Iterable<Worker>, runId: string, location: string): Worker | undefined {
  for (const w of workers) {
    if (w.runId !== runId || w.status !== "active") continue;
    if (ownedClaims(w).some((c) => c.location === location)) return w;
  }
  return undefined;
}

/** Refuses a location another worker of the run owns, naming that owner. */
function conflict(ctx: Ctx, runId: string, location: string, claimantId: string): Rejection | undefined {
  // Read on the input state: going through the draft would make immer proxy every worker. Within one
  // transition only the claimant's own claims change, and those never conflict with themselves.
  const owner = ownerOf(Object.values(ctx.base.workers), runId, location);
  if (!owner || owner.id === claimantId) return undefined;
  return reject(
    "WORKTREE_OWNED",
    `worktree '${location}' is already owned by worker ${owner.path} (${owner.id}) of run ${runId}`,
  );
}

/**
 * Checks a spawn's locations before anything is created: each must be valid, unique in the list and not
 * owned by another worker of the run. Returns the normalized list.
 */
export function checkSpawnWorktrees(
  ctx: Ctx,
  runId: string,
  raw: readonly string[],
  workerId: string,
): string[] | Rejection {
  const out: string[] = [];
  for (const r of raw) {
    const location = normalizeWorktree(r);
    if (typeof location !== "string") return location;
    if (out.includes(location)) return reject("INVALID_INPUT", `worktree '${location}' is listed twice`);
    const refused = conflict(ctx, runId, location, workerId);
    if (refused) return refused;
    out.push(location);
  }
  return out;
}

/** Records new claims for a worker that passed the checks, one event each. */
export function addClaims(ctx: Ctx, w: DraftWorker, locations: readonly string[]): void {
  if (locations.length === 0) return;
  w.worktrees ??= [];
  for (const location of locations) {
    w.worktrees.push(castDraft({ location, claimedAt: ctx.now }));
    ctx.emit("worktree.claimed", w.runId, w.id, { worktree: location });
  }
}

export function claimWorktree(ctx: Ctx, input: Of<"worker.claim_worktree">): Rejection | void {
  const w = ctx.worker(input.workerId);
  if (!w) return reject("NOT_FOUND", `no worker ${input.workerId}`);
  if (w.status !== "active") return reject("WORKER_TERMINAL", `worker ${w.path} is ${w.status}`);
  const location = normalizeWorktree(input.worktree);
  if (typeof location !== "string") return location;
  const refused = conflict(ctx, w.runId, location, w.id);
  if (refused) return refused;
  if (ownedClaims(w).some((c) => c.location === location)) {
    ctx.reply = { alreadyOwned: true, worktree: location };
    return;
  }
  addClaims(ctx, w, [location]);
  ctx.reply = { alreadyOwned: false, worktree: location };
}

export function releaseWorktree(ctx: Ctx, input: Of<"worker.release_worktree">): Rejection | void {
  const w = ctx.worker(input.workerId);
  if (!w) return reject("NOT_FOUND", `no worker ${input.workerId}`);
  const location = normalizeWorktree(input.worktree);
  if (typeof location !== "string") return location;
  const claim = w.worktrees?.find((c) => c.location === location && c.releasedAt === undefined);
  if (!claim) return reject("NOT_OWNER", `worker ${w.path} does not own worktree '${location}'`);
  claim.releasedAt = ctx.now;
  claim.releaseReason = "released";
  ctx.emit("worktree.released", w.runId, w.id, { worktree: location, reason: "released" });
  ctx.reply = { worktree: location };
}

/** The worker ended (complete, fail, stop): its ownership ends with it, and says how. */
export function releaseOnEnd(ctx: Ctx, w: DraftWorker, status: Exclude<LifecycleStatus, "active">): void {
  for (const claim of w.worktrees ?? []) {
    if (claim.releasedAt !== undefined) continue;
    claim.releasedAt = ctx.now;
    claim.releaseReason = status;
    ctx.emit("worktree.released", w.runId, w.id, { worktree: claim.location, reason: status });
  }
}
