// Test fixtures for the prompt templates: a run, /root and one lane, built by hand (no core needed).
import { DEFAULT_CONTINUATION_POLICY } from "../../../../shared/continuation-policy.ts";
import type { PromptRequest } from "../effects.ts";
import type { PromptKind, Run, Worker } from "../model.ts";
import type { PromptContext } from "./templates.ts";

export const PROMPT_KINDS: readonly PromptKind[] = [
  "bootstrap",
  "resume",
  "keepalive",
  "followup",
  "corrective",
  "continue",
  "handoff",
  "rollover",
];

export const RUN: Run = {
  id: "run-1",
  name: "Billing rewrite",
  objective: "Replace the billing module with the new invoice pipeline.",
  status: "active",
  createdAt: 0,
  defaultPolicy: { ...DEFAULT_CONTINUATION_POLICY, mode: "auto" },
};

function worker(id: string, path: string, name: string, objective: string, acceptance: string[]): Worker {
  return {
    id,
    runId: RUN.id,
    path,
    name,
    objective,
    acceptance,
    createdAt: 0,
    status: "active",
    policyOverride: {},
    conversation: { state: "idle", binding: "bound", changes: 3, observedSeq: 3, since: 0 },
    attemptCount: 2,
    autoResumes: 1,
    stall: { noProgressAttempts: 0, progressCursor: 4, baselineAt: 0, clockRunning: true, warned: false },
    inboxSeq: 0,
    inboxReadSeq: 0,
  };
}

export const ROOT = worker("w-root", "/root", "Coordinator", "Coordinate the billing rewrite.", []);
export const LANE = worker("w-api", "/root/api", "API lane", "Build the invoice API.", [
  "POST /invoices returns 201",
  "npm test passes",
]);

export const LANE_CTX: PromptContext = { worker: LANE, run: RUN, rootWorker: ROOT };
export const ROOT_CTX: PromptContext = { worker: ROOT, run: RUN, rootWorker: ROOT };

export function request(kind: PromptKind, patch: Partial<PromptRequest> = {}): PromptRequest {
  return {
    kind,
    workerPath: LANE.path,
    attemptSeq: 3,
    reason: kind === "bootstrap" ? "initial" : "auto_resume",
    wakeReasons: [],
    texts: kind === "followup" || kind === "corrective" ? ["Use the v2 schema for invoices."] : [],
    ...patch,
  };
}
