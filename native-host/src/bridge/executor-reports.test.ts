// How a `conversation.state` message becomes the core's `conversation.observed` input: the rollover's turn-end fields
// (the handoff brief and the visible length) go through as they came, and only when the message has them.
import { describe, expect, it } from "vitest";
import type { ConversationStateMessage } from "../../../shared/native-messages.ts";
import type { Input } from "../core/inputs.ts";
import type { OperationsContext } from "../operations/context.ts";
import { recordingLogger } from "../../../test/store/helpers.ts";
import { ExecutorReports } from "./executor-reports.ts";

/** Reports applied to a context that only records the inputs (the mapping is what is under test here). */
function reportsInto(inputs: Input[]): ExecutorReports {
  const engine = {
    apply: (input: Input) => {
      inputs.push(input);
      return Promise.resolve({ state: {}, effects: [] });
    },
  } as unknown as OperationsContext;
  return new ExecutorReports(engine, recordingLogger().log);
}

const idle: ConversationStateMessage = {
  kind: "conversation.state",
  workerId: "w-1",
  state: "idle",
  seq: 7,
  since: 1_800_000_000_000,
};

describe("conversation.state → conversation.observed", () => {
  it("passes the handoff brief and the visible length on with the idle report", async () => {
    const inputs: Input[] = [];
    await reportsInto(inputs).report(
      { ...idle, handoffBrief: "done: a\nnext steps: b", visibleChars: 0 },
      "exec-1",
    );
    expect(inputs).toEqual([
      {
        type: "conversation.observed",
        workerId: "w-1",
        state: "idle",
        seq: 7,
        since: 1_800_000_000_000,
        handoffBrief: "done: a\nnext steps: b",
        visibleChars: 0,
        executorId: "exec-1",
      },
    ]);
  });

  it("adds neither field when the message has none", async () => {
    const inputs: Input[] = [];
    await reportsInto(inputs).report(idle, "exec-1");
    expect(inputs[0]).not.toHaveProperty("handoffBrief");
    expect(inputs[0]).not.toHaveProperty("visibleChars");
  });
});
