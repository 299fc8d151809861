// Test kit for the views: worker and run fixtures in every state a view shows, a scripted background behind a real
// UiClient (calls answered from a table, recorded), rendering into happy-dom, and the axe-core check.
import axe from "axe-core";
import { render, type ComponentChild } from "preact";
import { expect } from "vitest";
import { DEFAULT_CONTINUATION_POLICY } from "../../shared/continuation-policy.ts";
import { type Liveness, livenessOf } from "../../shared/liveness.ts";
import { UiClient, type ClientPort } from "../../extension/ui/ui-client.ts";
import { DEFAULT_LOCAL_PREFS, type UiStatus, type ViewMessage } from "../../extension/ui/ui-protocol.ts";
import type { AutoResume } from "../../shared/operations/records.ts";
import {
  type RunView,
  STATE_LABELS,
  type StateLabel,
  type WorkerView,
} from "../../shared/operations/views.ts";
import { FakeEvent } from "./fake-browser.ts";
import { waitFor } from "../wait-for.ts";

export const NOW = 1_780_000_000_000;

export const STATES: readonly StateLabel[] = [
  "Working",
  "Resuming",
  "Needs you",
  "Waiting",
  "Paused",
  "Stalled",
  "Complete",
];

/** The liveness the host derives each label from (docs/operator-guide.md, Labels): one typical reason per label. */
export function livenessFor(label: StateLabel): Liveness | null {
  switch (label) {
    case "Working":
      return livenessOf("generating", NOW - 2_000);
    case "Resuming":
      return livenessOf("idle_grace", NOW - 200, { until: NOW + 2_800 });
    case "Needs you":
      return livenessOf("question", NOW - 1000);
    case "Waiting":
      return livenessOf("waiting_for_dependency", NOW - 1000, { detail: { condition: "backend lands" } });
    case "Paused":
      return livenessOf("paused", NOW - 500);
    case "Stalled":
      return livenessOf("stalled", NOW - 500);
    case "Idle":
      return livenessOf("auto_resume_off", NOW - 800);
    case "Complete":
    case "Failed":
    case "Stopped":
      return null;
  }
}

export function worker(label: StateLabel, over: Partial<WorkerView> = {}): WorkerView {
  const slug = label.toLowerCase().replace(/\s+/g, "-");
  const terminal = label === "Complete" || label === "Failed" || label === "Stopped";
  return {
    id: `w-${slug}`,
    runId: "run-1",
    path: `/root/${slug}`,
    name: `${label} worker`,
    objective: "do the thing",
    acceptance: [],
    status: terminal ? (label === "Complete" ? "completed" : "failed") : "active",
    disposition: "running",
    label,
    liveness: livenessFor(label),
    turns: 3,
    summary: null,
    attempt: { seq: 3, reason: "auto_resume", state: label === "Working" ? "generating" : "idle" },
    autoResumes: 2,
    lastProgressAt: NOW - 65_000,
    noProgressAttempts: label === "Stalled" ? 20 : 0,
    stallWarning: label === "Stalled",
    conversation: {
      state: label === "Working" ? "generating" : "idle",
      binding: "bound",
      url: "https://chatgpt.com/c/6800f3a1-0000-8000-9000-000000000001",
      reportedStatus: null,
    },
    wait:
      label === "Needs you"
        ? {
            kind: "human",
            reason: "choice",
            question: "Ship A or B?",
            requestedAt: NOW - 1000,
            choices: ["A", "B"],
          }
        : label === "Waiting"
          ? { kind: "dependency", condition: "backend lands", onWorkerIds: [], requestedAt: NOW - 1000 }
          : null,
    pause:
      label === "Paused"
        ? { source: "operator", reason: "paused by the operator", at: NOW - 500 }
        : label === "Stalled"
          ? { source: "stall", reason: "20 turns without progress", at: NOW - 500 }
          : null,
    pendingContinuation: label === "Resuming" ? { reasons: ["idle"], since: NOW - 200 } : null,
    policy: { ...DEFAULT_CONTINUATION_POLICY, mode: "auto" },
    policyOverride: {},
    unreadMessages: 0,
    ...over,
  };
}

/** The global Auto Resume switch as ui_summary reports it: allowed, and `automatic` workers continue by themselves. */
export function autoResume(automatic = 1, enabled = true): AutoResume {
  return { enabled, on: enabled && automatic > 0, automatic };
}

export function run(over: Partial<RunView> = {}): RunView {
  return {
    id: "run-1",
    name: "Migration",
    objective: "move everything",
    status: "active",
    createdAt: NOW - 3_600_000,
    endedAt: null,
    defaultPolicy: { ...DEFAULT_CONTINUATION_POLICY, mode: "auto" },
    counts: Object.fromEntries(STATE_LABELS.map((l) => [l, 0])) as RunView["counts"],
    ...over,
  };
}

export function status(over: Partial<UiStatus> = {}): UiStatus {
  return {
    connection: "connected",
    hostVersion: "0.1.0",
    executorId: "chromium-0a1b2c3d",
    browser: "chromium",
    extensionVersion: "0.1.0",
    prefs: DEFAULT_LOCAL_PREFS,
    generating: 1,
    maxGenerating: 3,
    tabWorkerId: null,
    bindings: [],
    ...over,
  };
}

type Answer = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

/** A background that answers calls from `answers` (op → result or function of params) and records them. */
export class ScriptedBackground {
  readonly calls: { op: string; params: Record<string, unknown> }[] = [];
  readonly other: ViewMessage[] = [];
  readonly answers = new Map<string, (params: Record<string, unknown>) => Answer>();
  private readonly toView = new FakeEvent<(m: unknown) => void>();
  readonly client: UiClient;
  /** The background end as a view sees it; more clients (the overlay's) may connect to it. */
  readonly port: ClientPort;

  constructor(initial: UiStatus | null = status()) {
    const port: ClientPort = (this.port = {
      postMessage: (raw) => {
        const m = structuredClone(raw) as ViewMessage;
        if (m.type !== "call") {
          this.other.push(m);
          return;
        }
        this.calls.push({ op: m.op, params: m.params ?? {} });
        const answer = this.answers.get(m.op)?.(m.params ?? {}) ?? {
          ok: false,
          error: { code: "NOT_FOUND", message: `no answer for ${m.op}` },
        };
        queueMicrotask(() => this.toView.emit({ type: "result", id: m.id, ...answer }));
      },
      disconnect: () => undefined,
      onMessage: this.toView,
      onDisconnect: new FakeEvent<(p: ClientPort) => void>(),
    });
    this.client = new UiClient(() => port, "test", {
      setTimeout: () => undefined,
      clearTimeout: () => undefined,
    });
    if (initial) this.push({ type: "status", status: initial });
  }

  answer(op: string, result: unknown): this {
    this.answers.set(op, (p) => ({
      ok: true,
      result: typeof result === "function" ? (result as (p: Record<string, unknown>) => unknown)(p) : result,
    }));
    return this;
  }

  refuse(op: string, code: string, message: string): this {
    this.answers.set(op, () => ({ ok: false, error: { code, message } }));
    return this;
  }

  push(message: unknown): void {
    this.toView.emit(message);
  }

  setStatus(over: Partial<UiStatus>): void {
    this.push({ type: "status", status: status(over) });
  }

  changed(eventSeq = 1): void {
    this.push({ type: "changed", eventSeq });
  }

  callsOf(op: string): Record<string, unknown>[] {
    return this.calls.filter((c) => c.op === op).map((c) => c.params);
  }
}

let mounted: HTMLElement | undefined;

/**
 * Renders into a fresh container in the (happy-dom) document, unmounting what the last call rendered (clearing the
 * document alone would leave its components running: their effects, such as a countdown's tick, never cleaned up).
 */
export function mount(node: ComponentChild): HTMLElement {
  if (mounted) render(null, mounted);
  document.body.innerHTML = "";
  const container = document.createElement("main");
  document.body.appendChild(container);
  render(node, container);
  mounted = container;
  return container;
}

export async function until(condition: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  await waitFor(condition, what, timeoutMs, 0);
}

/** Lets pending microtasks, effects and timers of zero delay run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise((r) => setTimeout(r, 0));
}

export function byTestId(root: ParentNode, id: string): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
}

export function button(root: ParentNode, name: string | RegExp): HTMLButtonElement {
  const all = [...root.querySelectorAll("button")];
  const found = all.find((b) =>
    typeof name === "string" ? b.textContent?.trim() === name : name.test(b.textContent ?? ""),
  );
  if (!found) throw new Error(`no button ${String(name)} among ${all.map((b) => b.textContent).join(" | ")}`);
  return found;
}

/** axe-core on the element: no serious or critical violation (colour contrast is not computed by happy-dom). */
export async function expectAccessible(root: Element): Promise<void> {
  const result = await axe.run(root, {
    resultTypes: ["violations"],
    rules: { "color-contrast": { enabled: false }, region: { enabled: false } },
  });
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.html).join(", ")})`)).toEqual([]);
}
