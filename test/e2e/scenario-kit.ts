// Shared pieces of the end-to-end scenarios: the fast policy, the assertions every scenario makes (no manual
// prompt, no duplicate user message, Retry never clicked), and failure diagnostics.
import { expect } from "vitest";
import type { AssistantTurn, FakeChatGPT } from "../fake-chatgpt/server.ts";

/** Short timings so a scenario takes seconds: resume 300 ms after idle, no spacing floor. */
export const FAST_POLICY = {
  mode: "auto",
  idleGraceMs: 300,
  minContinuationSpacingMs: 0,
  activeKeepaliveMinMs: 600_000,
  activeKeepaliveMaxMs: 600_000,
};

/** The output block every answer ends with (docs/prompts.md, "The output block"). */
export function block(status: "working" | "complete" | "blocked", summary: string): string {
  return `status: ${status}\nsummary: ${summary}\ncurrent: -\nnext: -`;
}

/** A working turn: progress through MCP, then an answer that says it is still working. */
export async function workingTurn(turn: AssistantTurn, step: string): Promise<void> {
  await turn.say("Looking at the repository.");
  await turn.tool("worker_progress", { workerId: turn.workerId, summary: step });
  await turn.say(`\n\n${block("working", step)}`);
}

/** A completing turn: worker_complete through MCP, then the final answer. */
export async function completingTurn(turn: AssistantTurn, summary = "all done"): Promise<void> {
  await turn.say("Finishing up.");
  await turn.tool("worker_complete", { workerId: turn.workerId, summary });
  await turn.say(`\n\n${block("complete", summary)}`);
}

/** Every stored user message was an orchestrator prompt (it carries the executor's marker line). */
export function manualPrompts(fake: FakeChatGPT): number {
  return fake.stored().filter((m) => !/\[ref: orc-[0-9a-z]{16}\]\s*$/.test(m.text)).length;
}

/** What holds in every scenario: no manual prompt, no duplicate user message, no Retry or Stop click. */
export function expectCleanRun(fake: FakeChatGPT): void {
  expect(manualPrompts(fake), "manual prompts").toBe(0);
  expect(fake.duplicateUserMessages(), "duplicate user messages").toBe(0);
  expect(fake.clicks("retry"), "Retry clicks").toBe(0);
  expect(fake.clicks("stop"), "Stop clicks").toBe(0);
  expect(fake.scriptErrors, "assistant script errors").toEqual([]);
}

/** A promise the test resolves by hand: holds an assistant turn open until the test has acted. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Assistant turns held open until the test acts; `releaseAll` (in afterEach) opens a failed test's leftovers. */
export class HeldTurns {
  private readonly gates: { resolve: () => void }[] = [];

  hold(): ReturnType<typeof deferred> {
    const d = deferred();
    this.gates.push(d);
    return d;
  }

  releaseAll(): void {
    for (const g of this.gates.splice(0)) g.resolve();
  }
}
