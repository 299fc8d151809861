// The versioned prompt templates: every kind renders, ids are stable, and each carries its contract.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CONTINUATION_BLOCK_LINES } from "../../../../shared/continuation-block.ts";
import {
  PROMPT_IDS,
  PROMPT_VERSIONS,
  promptIdFor,
  renderPrompt,
  renderTemplate,
  ROOT_PROMPT_VERSIONS,
} from "./render.ts";
import { LANE, LANE_CTX, PROMPT_KINDS, request, ROOT, ROOT_CTX, RUN } from "./test-fixtures.ts";

const PROGRESS_WAKE = "event:worker.progress:/root/api";

describe("prompt ids", () => {
  it("lists every template id, stable and unique", () => {
    expect(PROMPT_IDS).toEqual([
      "bootstrap@1",
      "resume@1",
      "keepalive@1",
      "root-wake@1",
      "root-keepalive@1",
      "followup@1",
      "corrective@1",
      "continue@1",
      "adopt-bootstrap@1",
      "block-resume@1",
      "block-followup@1",
      "handoff@1",
      "rollover@1",
      "block-handoff@1",
      "block-rollover@1",
    ]);
    expect(new Set(PROMPT_IDS).size).toBe(PROMPT_IDS.length);
    for (const id of PROMPT_IDS) expect(id).toMatch(/^[a-z-]+@[1-9][0-9]*$/);
  });

  it("maps every prompt kind to a listed id", () => {
    expect(Object.keys(PROMPT_VERSIONS).sort()).toEqual([...PROMPT_KINDS].sort());
    for (const id of [...Object.values(PROMPT_VERSIONS), ...Object.values(ROOT_PROMPT_VERSIONS)]) {
      expect(PROMPT_IDS).toContain(id);
    }
  });

  it("picks /root's variants only for /root resumes and keepalives", () => {
    expect(promptIdFor(request("resume", { wakeReasons: ["idle", PROGRESS_WAKE] }), ROOT_CTX)).toBe(
      "root-wake@1",
    );
    expect(
      promptIdFor(request("keepalive", { wakeReasons: ["event:worker.completed:/root/ui"] }), ROOT_CTX),
    ).toBe("root-wake@1");
    expect(promptIdFor(request("keepalive", { wakeReasons: ["active_keepalive"] }), ROOT_CTX)).toBe(
      "root-keepalive@1",
    );
    expect(promptIdFor(request("resume", { wakeReasons: ["event:message.sent"] }), ROOT_CTX)).toBe(
      "resume@1",
    );
    expect(promptIdFor(request("followup", { wakeReasons: [PROGRESS_WAKE] }), ROOT_CTX)).toBe("followup@1");
    expect(promptIdFor(request("resume", { wakeReasons: [PROGRESS_WAKE] }), LANE_CTX)).toBe("resume@1");
  });
});

describe("renderPrompt", () => {
  for (const kind of PROMPT_KINDS) {
    for (const ctx of [LANE_CTX, ROOT_CTX, { worker: LANE, run: RUN }]) {
      it(`renders ${kind} for ${ctx.worker.path}${ctx.rootWorker ? "" : " without a known root"}`, () => {
        const out = renderPrompt(request(kind, { wakeReasons: ["idle", PROGRESS_WAKE] }), ctx);
        expect(PROMPT_IDS).toContain(out.promptId);
        expect(out.text.trim()).toBe(out.text);
        expect(out.text.length).toBeGreaterThan(0);
        expect(out.text.length).toBeLessThan(4_500);
        expect(out.text).not.toMatch(/undefined|null|\[object/);
      });
    }
  }

  it("renders every template id, including ones no kind currently selects", () => {
    for (const id of PROMPT_IDS) {
      for (const kind of PROMPT_KINDS) {
        expect(renderTemplate(id, request(kind, { texts: [] }), LANE_CTX).length).toBeGreaterThan(0);
      }
    }
  });

  it("is pure: the same input gives the same text", () => {
    for (const kind of PROMPT_KINDS) {
      expect(renderPrompt(request(kind), LANE_CTX)).toEqual(renderPrompt(request(kind), LANE_CTX));
    }
  });

  it("continue is exactly the word continue", () => {
    expect(renderPrompt(request("continue"), LANE_CTX)).toEqual({ promptId: "continue@1", text: "continue" });
    expect(renderPrompt(request("continue", { wakeReasons: [PROGRESS_WAKE] }), ROOT_CTX).text).toBe(
      "continue",
    );
  });
});

describe("bootstrap@1", () => {
  const text = renderPrompt(request("bootstrap"), LANE_CTX).text;

  it("states identity and the whole assignment", () => {
    for (const s of [LANE.id, LANE.path, LANE.name, RUN.name, LANE.objective, ...LANE.acceptance]) {
      expect(text).toContain(s);
    }
  });

  it("explains the tools and where to report", () => {
    for (const tool of ["worker_progress", "message_send", "message_inbox", "message_ack", "worker_get"]) {
      expect(text).toContain(tool);
    }
    expect(text).toContain(`toWorkerId = /root (workerId "${ROOT.id}")`);
    expect(text).not.toContain("worker_spawn");
  });

  it("contains the completion contract", () => {
    expect(text).toMatch(/finished .*-> worker_complete/);
    expect(text).toMatch(/irrecoverable failure -> worker_fail/);
    expect(text).toMatch(/human input genuinely required -> worker_await_human/);
    expect(text).toMatch(/dependency condition prevents progress -> worker_await_dependency/);
    expect(text).toMatch(/otherwise -> make none of these calls; the worker stays active/);
    expect(text).toContain("only worker_complete completes it");
  });

  it("ends with the output block", () => {
    expect(text).toContain(CONTINUATION_BLOCK_LINES.join("\n"));
    expect(text).toContain("exactly one block");
    for (const status of ["working =", "complete =", "blocked ="]) expect(text).toContain(status);
  });

  it("gives /root the coordination tools and the run objective", () => {
    const root = renderPrompt(request("bootstrap"), ROOT_CTX).text;
    for (const s of ["worker_spawn", "events_wait", "worker_steer", "message_send", RUN.objective, RUN.id]) {
      expect(root).toContain(s);
    }
  });

  it("tells a lane how to find /root when its id is not known", () => {
    expect(renderPrompt(request("bootstrap"), { worker: LANE, run: RUN }).text).toContain(
      "its workerId is listed by worker_list",
    );
  });
});

describe("resume@1", () => {
  const text = renderPrompt(request("resume", { attemptSeq: 7, wakeReasons: ["idle"] }), LANE_CTX).text;

  it("gives the resume instruction without repeating the assignment body", () => {
    expect(text).toMatch(/^Continue the current orchestrated worker assignment\./);
    expect(text).toContain("Recover authoritative state");
    expect(text).toContain("Do not redo completed work");
    expect(text).toContain("Attempt 7 (unfinished assignment)");
    expect(text).not.toContain(LANE.objective);
    for (const c of LANE.acceptance) expect(text).not.toContain(c);
    for (const tool of ["worker_complete", "worker_fail", "worker_await_human", "worker_await_dependency"]) {
      expect(text).toContain(tool);
    }
    expect(text).toContain(CONTINUATION_BLOCK_LINES.join("\n"));
  });

  it("names the reason in words and adds notes for actionable wakes", () => {
    const manual = renderPrompt(
      request("resume", { reason: "manual_resume", wakeReasons: ["continue_now", "event:message.sent"] }),
      LANE_CTX,
    ).text;
    expect(manual).toContain("(operator request)");
    expect(manual).toContain("New messages are in your inbox");
    expect(manual).toContain("The operator asked for this turn");
  });
});

describe("keepalive@1", () => {
  const text = renderPrompt(request("keepalive", { wakeReasons: ["active_keepalive"] }), LANE_CTX).text;

  it("carries the checkpoint instructions", () => {
    expect(text).toMatch(/^Orchestrator checkpoint\./);
    for (const s of [
      "durable update about this assignment now",
      "latest checkpoint commit(s), if any",
      "what has been completed since the previous report",
      "what you are working on now",
      "what remains before the full assignment is complete",
      "blockers, risks, dependency changes or cross-lane contract changes",
      "Then continue working on the same assignment to completion",
      "Do not stop merely because you sent the update",
      "worker_complete",
      "worker_progress",
      "message_send",
    ]) {
      expect(text).toContain(s);
    }
    expect(text).toContain(`/root (workerId "${ROOT.id}")`);
    expect(text).toContain("Progress reports recorded so far: 4");
  });
});

describe("/root prompts", () => {
  it("root-wake@1 lists the lanes that reported and asks for a plan-level review", () => {
    const out = renderPrompt(
      request("resume", {
        wakeReasons: [PROGRESS_WAKE, "event:worker.completed:/root/ui", PROGRESS_WAKE, "event:message.sent"],
      }),
      ROOT_CTX,
    );
    expect(out.promptId).toBe("root-wake@1");
    expect(out.text).toContain("- /root/api reported progress\n- /root/ui declared its assignment complete");
    expect(out.text.match(/\/root\/api reported progress/g)).toHaveLength(1);
    for (const s of [
      "entire run objective",
      "worker_steer",
      "events_wait",
      "message_send",
      "message_inbox",
    ]) {
      expect(out.text).toContain(s);
    }
  });

  it("root-keepalive@1 asks for a run-level update and continued coordination", () => {
    const out = renderPrompt(request("keepalive", { wakeReasons: ["active_keepalive"] }), ROOT_CTX);
    expect(out.promptId).toBe("root-keepalive@1");
    expect(out.text).toContain("worker_progress");
    expect(out.text).toContain("events_wait");
    expect(out.text).toContain("Do not stop merely because you recorded the update");
  });
});

describe("followup@1 and corrective@1", () => {
  const tricky = "Line one\n```ts\nconst x = 1;\n```\nEnd.";

  it("include the texts verbatim, each in its own delimited block", () => {
    const out = renderPrompt(request("followup", { texts: ["First note.", tricky] }), LANE_CTX);
    expect(out.promptId).toBe("followup@1");
    expect(out.text).toContain("Follow-up 1 of 2:\n```\nFirst note.\n```");
    expect(out.text).toContain(`Follow-up 2 of 2:\n\`\`\`\`\n${tricky}\n\`\`\`\``);
  });

  it("corrective steering puts the correction first and asks for an acknowledgement", () => {
    const out = renderPrompt(
      request("corrective", { texts: ["Stop editing src/ui; that is the UI lane."] }),
      LANE_CTX,
    );
    expect(out.promptId).toBe("corrective@1");
    expect(out.text).toContain("Correction:\n```\nStop editing src/ui; that is the UI lane.\n```");
    expect(out.text).toContain("the correction wins");
    expect(out.text).toContain(`Acknowledge the correction to /root (workerId "${ROOT.id}")`);
  });

  it("a /root follow-up also names lanes that reported", () => {
    const out = renderPrompt(request("followup", { wakeReasons: [PROGRESS_WAKE] }), ROOT_CTX);
    expect(out.text).toContain("Lanes that also reported since your last turn: /root/api");
  });
});

/**
 * A shipped template is never edited (docs/prompts.md): these digests pin each id's text for a fixed
 * input. A failure here means a shipped version changed: restore it and add a new `@N+1` id instead. (The
 * digests also cover the fixtures in test-fixtures.ts; changing those legitimately means re-pinning all.)
 */
describe("shipped templates are frozen", () => {
  const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);
  const fixed = (kind: Parameters<typeof request>[0]) =>
    request(kind, { wakeReasons: ["idle", PROGRESS_WAKE, "event:message.sent"] });

  it("keeps each id's text unchanged", () => {
    const digests = Object.fromEntries(
      PROMPT_IDS.map((id) => {
        const ctx = id.startsWith("root-") ? ROOT_CTX : LANE_CTX;
        const kind =
          id === "root-wake@1" || id === "root-keepalive@1"
            ? "keepalive"
            : PROMPT_KINDS.find((k) => id.replace(/^(adopt|block)-/, "").startsWith(`${k}@`))!;
        return [id, digest(renderTemplate(id, fixed(kind), ctx))];
      }),
    );
    expect(digests).toEqual({
      "bootstrap@1": "9d1a2af2c172059a",
      "resume@1": "9e4cae9d143aec33",
      "keepalive@1": "232992d0bfb8cbc6",
      "root-wake@1": "88989e86bbd04688",
      "root-keepalive@1": "3bb4a83ca478c744",
      "followup@1": "367638413fae8adc",
      "corrective@1": "0f89258fd0592b8c",
      "continue@1": "e256ee8e7aff6957",
      "adopt-bootstrap@1": "f5f4accb71a5688e",
      "block-resume@1": "51efda67ea49541f",
      "block-followup@1": "c5749a27464d3365",
      "handoff@1": "3be413a180ec6e70",
      "rollover@1": "ea060e56ffbeae59",
      "block-handoff@1": "c4f2a37c82e015dd",
      "block-rollover@1": "b7195dd4ee441081",
    });
  });
});

describe("zero-setup mode", () => {
  const adopted = {
    ...LANE,
    adoptedAt: 1,
    objective: "Continue the work of this conversation until it is complete.",
    policyOverride: { mode: "auto" as const, completionSignal: "output_block" as const },
  };
  const ctx = { worker: adopted, run: RUN };

  it("picks the block prompts for an adopted, block-driven worker only", () => {
    expect(promptIdFor(request("bootstrap"), ctx)).toBe("adopt-bootstrap@1");
    expect(promptIdFor(request("resume"), ctx)).toBe("block-resume@1");
    expect(promptIdFor(request("keepalive"), ctx)).toBe("block-resume@1");
    expect(promptIdFor(request("followup"), ctx)).toBe("block-followup@1");
    expect(promptIdFor(request("continue"), ctx)).toBe("continue@1");
    expect(promptIdFor(request("bootstrap"), LANE_CTX)).toBe("bootstrap@1");
    expect(promptIdFor(request("resume"), LANE_CTX)).toBe("resume@1");
  });

  it("the bootstrap asks for the block and nothing of MCP; a typed objective is included", () => {
    const text = renderPrompt(request("bootstrap"), ctx).text;
    expect(text).toContain(CONTINUATION_BLOCK_LINES.join("\n"));
    expect(text).not.toMatch(/worker_|message_|MCP/);
    expect(text).not.toContain("Objective");
    const typed = renderPrompt(request("bootstrap"), {
      ...ctx,
      worker: { ...adopted, objective: "Ship v2" },
    });
    expect(typed.text).toContain("Objective:\nShip v2");
  });

  it("the continuation prompt is one line naming the block; a person's reply is quoted verbatim", () => {
    const resume = renderPrompt(request("resume"), ctx).text;
    expect(resume).not.toContain("\n");
    expect(resume).toContain("status: working | complete | blocked");
    const reply = renderPrompt(request("followup", { texts: ["Use SQLite"] }), ctx).text;
    expect(reply).toContain("```\nUse SQLite\n```");
    expect(reply).not.toMatch(/worker_|message_/);
  });
});
