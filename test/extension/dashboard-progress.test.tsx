// @vitest-environment happy-dom
// The dashboard's worker timeline shows what workers report with worker_progress: the real operations on a real
// Engine on disk answer the dashboard's calls, so a summary goes worker_progress → events table → ui_worker_detail → view.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Dashboard } from "../../extension/dashboard/dashboard-view.tsx";
import { UiClient, type ClientPort } from "../../extension/ui/ui-client.ts";
import { Engine } from "../../native-host/src/engine/engine.ts";
import { OPERATIONS } from "../../native-host/src/operations/all-operations.ts";
import { invoke } from "../../native-host/src/operations/registry.ts";
import { FakeEvent } from "./fake-browser.ts";
import { byTestId, expectAccessible, mount, NOW, status, until } from "./ui-kit.ts";

let dir: string;
let backend: Engine;

beforeEach(async () => {
  // Not test/store/helpers.ts: it resolves import.meta.url, which happy-dom's URL does not take.
  dir = mkdtempSync(join(tmpdir(), "orch-dashboard-progress-"));
  backend = await Engine.open({ dir, log: { warn: () => undefined, info: () => undefined } });
});

afterEach(async () => {
  document.body.innerHTML = "";
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A view port whose calls run the host's operations on `backend`, as the background's bridge would forward them. */
function hostClient(): { client: UiClient; changed: () => void } {
  const toView = new FakeEvent<(m: unknown) => void>();
  const port: ClientPort = {
    postMessage: (raw) => {
      const m = structuredClone(raw) as { type: string; id: string; op: string; params?: unknown };
      if (m.type !== "call") return;
      void invoke(OPERATIONS, m.op, m.params ?? {}, backend).then((r) =>
        toView.emit(
          structuredClone(
            r.ok
              ? { type: "result", id: m.id, ok: true, result: r.value }
              : { type: "result", id: m.id, ...r },
          ),
        ),
      );
    },
    disconnect: () => undefined,
    onMessage: toView,
    onDisconnect: new FakeEvent<(p: ClientPort) => void>(),
  };
  const client = new UiClient(() => port, "test", {
    setTimeout: () => undefined,
    clearTimeout: () => undefined,
  });
  toView.emit({ type: "status", status: status() });
  return { client, changed: () => toView.emit({ type: "changed", eventSeq: backend.lastEventSeq() }) };
}

async function call(op: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await invoke(OPERATIONS, op, params, backend);
  if (!r.ok) throw new Error(`${op}: ${r.error.code} ${r.error.message}`);
  return r.value;
}

const timeline = (root: HTMLElement) =>
  byTestId(byTestId(root, "events")[0] ?? root, "event-summary").map((s) => s.textContent);

describe("dashboard worker timeline", () => {
  it("shows worker_progress summaries as text, newest last, and follows new ones", async () => {
    const { run } = (await call("run_create", { name: "r", policy: { mode: "manual" } })) as {
      run: { id: string };
    };
    const { worker } = (await call("worker_spawn", { runId: run.id, path: "/root", objective: "lead" })) as {
      worker: { id: string };
    };
    const markup = '<img src="x" onerror="alert(1)"> tables 1–3 migrated';
    await call("worker_progress", { workerId: worker.id, summary: "schema drafted" });
    await call("worker_progress", { workerId: worker.id }); // no summary: the event shows without text
    await call("worker_progress", { workerId: worker.id, summary: markup });

    const { client, changed } = hostClient();
    const root = mount(<Dashboard client={client} now={() => NOW} />);
    await until(() => byTestId(root, "drill-down").length === 1, "worker row");
    byTestId(root, "drill-down")[0]!.click();
    await until(() => timeline(root).length === 2, "summaries in the timeline");

    expect(timeline(root)).toEqual(["schema drafted", markup]);
    const events = byTestId(root, "events")[0]!;
    // Escaped: the markup is text, no element came from it.
    expect(events.querySelector("img")).toBeNull();
    const progressItems = [...events.querySelectorAll("li")].filter((li) =>
      li.textContent.includes("worker progress"),
    );
    expect(progressItems).toHaveLength(3);
    expect(progressItems.at(-1)!.textContent).toContain(markup);
    await expectAccessible(root);

    await call("worker_progress", { workerId: worker.id, summary: "cut over" });
    changed();
    await until(() => timeline(root).length === 3, "the new summary");
    expect(timeline(root).at(-1)).toBe("cut over");
    client.close();
  });
});
