// A `worker_progress` summary goes into its `worker.progress` event, cut to 2,000 characters (docs/privacy.md), so
// the dashboard's timeline can show it; a call without one adds no summary.
import { describe, expect, it } from "vitest";
import { Simulation } from "./simulation.ts";
import { MAX_PROGRESS_SUMMARY } from "./worker-lifecycle.ts";

function lastProgress(sim: Simulation) {
  const e = sim.events.filter((x) => x.type === "worker.progress").at(-1);
  if (!e) throw new Error("no worker.progress event");
  return e;
}

describe("worker.progress summary", () => {
  it("is carried by the event, with the stall cursor, as the worker gave it", () => {
    const sim = new Simulation();
    const w = sim.start();
    sim.apply({ type: "worker.progress", workerId: w, summary: "migrated <b>3</b> of 5 tables" });
    const e = lastProgress(sim);
    expect(e).toMatchObject({ workerId: w, runId: "run-1" });
    expect(e.data.summary).toBe("migrated <b>3</b> of 5 tables");
    expect(e.data.cursor).toBe(sim.worker(w).stall.progressCursor);
  });

  it("is cut to 2,000 characters", () => {
    const sim = new Simulation();
    const w = sim.start();
    sim.apply({ type: "worker.progress", workerId: w, summary: "é".repeat(2_500) });
    expect(MAX_PROGRESS_SUMMARY).toBe(2_000);
    expect(lastProgress(sim).data.summary).toBe("é".repeat(2_000));
  });

  it("is absent when the call gave none (or an empty one)", () => {
    const sim = new Simulation();
    const w = sim.start();
    sim.apply({ type: "worker.progress", workerId: w });
    expect(lastProgress(sim).data).not.toHaveProperty("summary");
    sim.apply({ type: "worker.progress", workerId: w, summary: "" });
    expect(lastProgress(sim).data).not.toHaveProperty("summary");
  });
});
