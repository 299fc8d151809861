import { describe, expect, it } from "vitest";
import type { CommandMessage } from "../../shared/native-messages.ts";
import {
  advance,
  canAdvance,
  helloPhase,
  JournalTransitionError,
  needsReport,
  newEntry,
  type JournalPhase,
} from "./journal.ts";

const command: CommandMessage = {
  kind: "command",
  type: "conversation.send",
  commandId: "w:1:cmd",
  idempotencyKey: "conversation.send:w:1",
  executionId: "w:1",
  runId: "r",
  workerId: "w",
  deadlineAt: 10_000,
  prompt: { promptId: "resume@1", text: "the prompt" },
};

const PHASES: JournalPhase[] = ["received", "submission-started", "submitted", "completed", "failed"];

describe("journal state machine", () => {
  it("allows exactly received → submission-started → submitted → completed, and failed before submission", () => {
    const allowed = PHASES.flatMap((from) =>
      PHASES.filter((to) => canAdvance(from, to)).map((to) => `${from}→${to}`),
    );
    expect(allowed).toEqual([
      "received→submission-started",
      "received→failed",
      "submission-started→submitted",
      "submission-started→failed",
      "submitted→completed",
    ]);
    expect(() => advance(newEntry(command, "m", 1), "submitted", {}, 2)).toThrow(JournalTransitionError);
  });

  it("keeps the prompt only while received, and stamps each phase", () => {
    const received = newEntry(command, "orc-x", 1);
    expect(received.prompt?.text).toBe("the prompt");
    const started = advance(received, "submission-started", { tabId: 7 }, 2);
    expect(started).not.toHaveProperty("prompt");
    expect(started).toMatchObject({
      phase: "submission-started",
      tabId: 7,
      submissionStartedAt: 2,
      marker: "orc-x",
    });
    const submitted = advance(started, "submitted", { url: "https://chatgpt.com/c/a" }, 3);
    const completed = advance(submitted, "completed", {}, 4);
    expect(completed).toMatchObject({ phase: "completed", resultSent: true, submittedAt: 3, finishedAt: 4 });
    expect(advance(received, "failed", { errorCode: "TAB_CLOSED" }, 5)).not.toHaveProperty("prompt");
  });

  it("tells the host unfinished entries and unreported failures; a live submission counts as held", () => {
    const received = newEntry(command, "m", 1);
    const started = advance(received, "submission-started", {}, 2);
    expect(needsReport(received)).toBe(true);
    expect(needsReport(started)).toBe(true);
    expect(needsReport(advance(advance(started, "submitted", {}, 3), "completed", {}, 4))).toBe(false);
    expect(needsReport(advance(started, "failed", { errorCode: "X" }, 3))).toBe(true);
    expect(needsReport(advance(started, "failed", { errorCode: "X", resultSent: true }, 3))).toBe(false);
    expect(helloPhase(started, true)).toBe("received");
    expect(helloPhase(started, false)).toBe("submission-started");
  });
});
