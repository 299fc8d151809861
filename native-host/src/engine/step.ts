// One step of the engine: the current state → the core's transition → the repository's commit. Kept apart from the
// engine's effects and timer so store tests can drive the repository the way the engine does.
import type { Clock } from "../core/context.ts";
import type { DomainEvent } from "../core/events.ts";
import type { Input } from "../core/inputs.ts";
import { type TransitionResult, transition } from "../core/transition.ts";
import type { DomainRepository } from "../store/domain-repository.ts";

/**
 * Applies `input` to the repository's state and commits the result. Everything up to the commit runs synchronously
 * when called (state, event counter and transaction change together, so concurrent steps stay ordered and a caller
 * reads the new state at once); the promise resolves once the transaction is on disk. A refusal commits nothing.
 */
export async function step(repo: DomainRepository, input: Input, clock: Clock): Promise<TransitionResult> {
  const prev = repo.state;
  const result = transition(prev, input, clock);
  if (result.error) return result;
  const events: DomainEvent[] = [];
  for (const e of result.effects) if (e.kind === "event") events.push(e.event);
  await repo.commit(prev, result.state, events);
  return result;
}
