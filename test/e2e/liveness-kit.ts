// Shared steps of the "no silent hang" scenarios (docs/continuation-core.md, "Liveness"): reading a worker's
// liveness through MCP, checking that every active worker is in a named state, and observation windows in which
// nothing may be sent.
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { LIVENESS_REASONS, livenessSchema, type Liveness } from "../../shared/liveness.ts";
import type { FakeChatGPT } from "../fake-chatgpt/server.ts";
import { tool, waitFor, type ChromiumE2E, type WorkerOut } from "./harness.ts";
import { manualPrompts } from "./scenario-kit.ts";

/** The worker's liveness as worker_get reports it. */
export function livenessOf(w: WorkerOut): Liveness | null {
  return (w.worker as { liveness?: Liveness | null }).liveness ?? null;
}

/** Waits until the worker's liveness has `reason` (and satisfies `ok`); resolves with it. */
export async function waitLiveness(
  e2e: ChromiumE2E,
  workerId: string,
  reason: Liveness["reason"],
  ok: (l: Liveness, w: WorkerOut) => boolean = () => true,
  timeoutMs = 60_000,
): Promise<Liveness> {
  const w = await e2e.waitWorker(
    workerId,
    `liveness ${reason}`,
    (x) => {
      const l = livenessOf(x);
      return l?.reason === reason && ok(l, x);
    },
    timeoutMs,
  );
  return livenessOf(w)!;
}

interface SummaryWorker {
  id: string;
  path: string;
  status: string;
  liveness: unknown;
}

/**
 * The invariant at this instant: every active worker (ui_summary lists the unfinished ones of active runs) has a
 * liveness from the closed list, its state the one that reason belongs to, a due time when due, and worker_get says
 * the same state. The two reads are not one snapshot (a turn may start between them), so a disagreement is read
 * again until they agree, within a few seconds; each read on its own must always be valid. Returns the workers by id.
 */
export async function expectNamedLiveness(
  e2e: ChromiumE2E,
  agreeWithinMs = 5_000,
): Promise<Map<string, Liveness>> {
  const deadline = Date.now() + agreeWithinMs;
  for (;;) {
    const { workers } = await tool<{ workers: SummaryWorker[] }>(e2e.mcp, "ui_summary", {});
    const out = new Map<string, Liveness>();
    const disagreements: { path: string; summary: string; get: string | undefined }[] = [];
    for (const w of workers) {
      if (w.status !== "active") continue;
      const parsed = livenessSchema.safeParse(w.liveness);
      expect(parsed.success, `${w.path}: liveness ${JSON.stringify(w.liveness)}`).toBe(true);
      const l = parsed.data!;
      expect(l.state, `${w.path}: the state of ${l.reason}`).toBe(LIVENESS_REASONS[l.reason].state);
      if (l.state === "due") expect(l.until, `${w.path}: the due time of ${l.reason}`).toBeTypeOf("number");
      const fromGet = livenessOf(await e2e.worker(w.id));
      if (fromGet?.state !== l.state)
        disagreements.push({ path: w.path, summary: l.state, get: fromGet?.state });
      out.set(w.id, l);
    }
    if (disagreements.length === 0) return out;
    if (Date.now() > deadline) {
      const d = disagreements[0]!;
      expect(d.get, `${d.path}: worker_get's state`).toBe(d.summary);
    }
  }
}

/**
 * A fixed observation window (the negative check "nothing is sent"): until `ms` from now, polled every 250 ms, no
 * user message reaches the fake page and `ok` holds for the worker's record at every poll. Not a synchronisation:
 * the condition must stay true for the whole window.
 */
export async function quietFor(
  e2e: ChromiumE2E,
  workerId: string,
  ms: number,
  what: string,
  ok: (w: WorkerOut) => boolean = () => true,
): Promise<WorkerOut> {
  const messages = e2e.fake.userMessages.length;
  const end = Date.now() + ms;
  for (;;) {
    const w = await e2e.worker(workerId);
    const left = `${end - Date.now()} ms before the end of the window`;
    expect(e2e.fake.userMessages.length, `${what}: no prompt (${left})`).toBe(messages);
    expect(ok(w), `${what} (${left}): ${JSON.stringify(livenessOf(w))}`).toBe(true);
    if (Date.now() >= end) return w;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The clean-run checks of scenario-kit's `expectCleanRun` where a person also typed `byHand` messages. */
export function expectCleanRunWithHandTyped(fake: FakeChatGPT, byHand: number): void {
  expect(manualPrompts(fake), "prompts not sent by the orchestrator").toBe(byHand);
  expect(fake.duplicateUserMessages(), "duplicate user messages").toBe(0);
  expect(fake.clicks("retry"), "Retry clicks").toBe(0);
  expect(fake.clicks("stop"), "Stop clicks").toBe(0);
  expect(fake.scriptErrors, "assistant script errors").toEqual([]);
}

/** The popup's row of one worker. */
export function popupRow(popup: Page, workerId: string) {
  return popup.locator(`[data-testid="worker"][data-worker-id="${workerId}"]`);
}

/** The stored user messages of the conversation whose first prompt named this worker (none if it has none). */
export function promptsOf(fake: FakeChatGPT, workerId: string): number {
  const ids = [...fake.conversations.values()].filter((c) => c.workerId === workerId).map((c) => c.id);
  return fake.stored().filter((m) => ids.includes(m.conversationId)).length;
}

/** Waits until the fake has stored `n` user messages in all. */
export function waitPrompts(fake: FakeChatGPT, n: number, what: string, timeoutMs = 60_000): Promise<true> {
  return waitFor(() => fake.stored().length >= n || undefined, what, timeoutMs);
}
