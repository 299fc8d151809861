// Every remedy of the closed list maps to one thing a view does: an operation (Continue now / Continue anyway clear
// a pause; Continue in a new conversation asks first), opening the conversation, the answer form, or words only.
import { describe, expect, it } from "vitest";
import { LIVENESS_REASON_NAMES, livenessOf, type LivenessReason } from "../../shared/liveness.ts";
import { offersContinueNow, PAUSE_REASONS, remedyPlan } from "./remedy.ts";
import { NEW_CONVERSATION_QUESTION } from "./rollover-words.ts";

const plan = (reason: LivenessReason) => remedyPlan("w1", livenessOf(reason, 0, { until: 1 }));

describe("remedyPlan", () => {
  it("maps each remedy action to its operation", () => {
    expect(plan("paused")).toEqual({
      kind: "call",
      label: "Resume",
      testId: "resume",
      call: { op: "worker_resume", params: { workerId: "w1" } },
    });
    expect(plan("run_paused")).toMatchObject({ call: { op: "worker_resume", params: { workerId: "w1" } } });
    // A pause (delivery uncertain) must be cleared to continue; clearPause is harmless for the other reasons.
    expect(plan("delivery_uncertain")).toMatchObject({
      label: "Continue now",
      call: { op: "worker_continue_now", params: { workerId: "w1", clearPause: true } },
    });
    for (const reason of [
      "rate_limited",
      "page_error",
      "auto_resume_off",
      "spacing_floor",
      "retry_backoff",
    ] as const)
      expect(plan(reason), reason).toEqual({
        kind: "call",
        label: "Continue now",
        testId: "continue-now",
        call: { op: "worker_continue_now", params: { workerId: "w1", clearPause: true } },
      });
    for (const reason of ["stalled", "cap_reached", "invalid_blocks"] as const)
      expect(plan(reason), reason).toEqual({
        kind: "call",
        label: "Continue anyway",
        testId: "continue-anyway",
        call: { op: "worker_continue_now", params: { workerId: "w1", clearPause: true } },
      });
    for (const reason of ["waiting_for_workers", "waiting_for_dependency"] as const)
      expect(plan(reason), reason).toEqual({
        kind: "call",
        label: "Release",
        testId: "release-wait",
        call: { op: "worker_resume", params: { workerId: "w1" } },
      });
  });

  it("opens the conversation, answers, or leaves it to words", () => {
    for (const reason of [
      "approval",
      "human_verification",
      "browser_unresponsive",
      "tab_unavailable",
    ] as const)
      expect(plan(reason), reason).toEqual({
        kind: "open",
        label: "Open conversation",
        testId: "open-conversation",
      });
    expect(plan("draft_in_composer")).toMatchObject({ kind: "open", label: "Open conversation" });
    expect(plan("tab_closed")).toEqual({
      kind: "open",
      label: "Reopen conversation",
      testId: "open-conversation",
    });
    expect(plan("signed_out")).toEqual({
      kind: "open",
      label: "Open conversation to sign in",
      testId: "open-conversation",
    });
    expect(plan("question")).toEqual({ kind: "answer", label: "Answer", testId: "answer-remedy" });
    for (const reason of [
      "browser_not_connected",
      "generating",
      "submitted",
      "idle_grace",
      "submitting",
      "tab_slot",
    ] as const)
      expect(plan(reason), reason).toEqual({ kind: "text" });
  });

  it("continues a conversation that is too long in a new one, only after the question is answered", () => {
    expect(plan("conversation_too_long")).toEqual({
      kind: "call",
      label: "Continue in a new conversation",
      testId: "new-conversation",
      call: { op: "worker_new_conversation", params: { workerId: "w1" } },
      confirm: NEW_CONVERSATION_QUESTION,
    });
    // No other remedy asks first.
    for (const reason of LIVENESS_REASON_NAMES.filter((r) => r !== "conversation_too_long"))
      expect(plan(reason), reason).not.toHaveProperty("confirm");
  });

  it("turns Auto Resume on globally for that remedy", () => {
    const l = {
      ...livenessOf("auto_resume_off", 0),
      remedy: { action: "turn_on_auto_resume" as const, text: "" },
    };
    expect(remedyPlan("w1", l)).toMatchObject({ call: { op: "auto_resume_set", params: { enabled: true } } });
  });

  it("covers every reason of the closed list, and every pause reason's remedy is a call", () => {
    for (const reason of LIVENESS_REASON_NAMES)
      expect(plan(reason).kind, reason).toMatch(/call|open|answer|text/);
    for (const reason of PAUSE_REASONS) expect(plan(reason).kind, reason).toBe("call");
  });
});

describe("offersContinueNow", () => {
  it("next to a plain Pause or Resume, not where the remedy is an answer, a release, the page or the pause itself", () => {
    const offers = (reason: LivenessReason) => offersContinueNow(livenessOf(reason, 0));
    expect(
      ["generating", "paused", "rate_limited", "auto_resume_off", "page_error"].map((r) =>
        offers(r as LivenessReason),
      ),
    ).toEqual([true, true, true, true, true]);
    expect(
      [
        "question",
        "approval",
        "waiting_for_workers",
        "signed_out",
        "tab_unavailable",
        "stalled",
        "conversation_too_long",
      ].map((r) => offers(r as LivenessReason)),
    ).toEqual([false, false, false, false, false, false, false]);
    expect(offersContinueNow(null)).toBe(false);
  });
});
