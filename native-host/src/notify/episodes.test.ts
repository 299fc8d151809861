// Episodes are what the outbox deduplicates on: the same state gives the same keys (also after the JSON round trip a
// restart makes), the operator's own Pause is no episode unless asked for, ended runs and workers are, and an episode
// that was notified and is over reads "resolved".
import { describe, expect, it } from "vitest";
import { DEFAULT_NOTIFY_SETTINGS, type NotifyKinds } from "../../../shared/notify-settings.ts";
import { CONNECTED_ENV, type LivenessEnv } from "../core/liveness.ts";
import type { DomainState } from "../core/model.ts";
import { Simulation } from "../core/simulation.ts";
import { ALL_KINDS, ENDED_WINDOW_MS, openEpisodes, resolvedEpisodes, SETTLE_MS } from "./episodes.ts";

const DEFAULTS = DEFAULT_NOTIFY_SETTINGS.kinds;
const keys = (
  state: DomainState,
  now: number,
  kinds: NotifyKinds = DEFAULTS,
  env: LivenessEnv = CONNECTED_ENV,
) => openEpisodes(state, now, env, kinds).map((e) => e.key);

describe("openEpisodes", () => {
  it("a question is one Needs-you episode whose key is stable across calls, time and a JSON round trip", () => {
    const sim = new Simulation();
    sim.start();
    expect(keys(sim.state, sim.now)).toEqual([]); // generating: nothing to say
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "choice", question: "A or B?" });
    const first = openEpisodes(sim.state, sim.now, CONNECTED_ENV, DEFAULTS);
    expect(first).toEqual([
      {
        key: `held:w-1:question:${sim.now}`,
        kind: "needs_you",
        toggle: "needsYou",
        runId: "run-1",
        workerId: "w-1",
        reason: "question",
        since: sim.now,
      },
    ]);
    const asked = sim.now;
    sim.advance(60_000);
    expect(keys(sim.state, sim.now)).toEqual([`held:w-1:question:${asked}`]);
    const restored = JSON.parse(JSON.stringify(sim.state)) as DomainState;
    expect(keys(restored, sim.now)).toEqual(keys(sim.state, sim.now));
    expect(keys(sim.state, sim.now, { ...DEFAULTS, needsYou: false })).toEqual([]);
  });

  it("the operator's own Pause is no episode unless operatorPause is on", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.pause", workerId: "w-1" });
    sim.observe("w-1", "idle");
    expect(keys(sim.state, sim.now)).toEqual([]);
    const paused = openEpisodes(sim.state, sim.now, CONNECTED_ENV, { ...DEFAULTS, operatorPause: true });
    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatchObject({ kind: "needs_you", toggle: "operatorPause", reason: "paused" });
    expect(paused[0]!.key).toMatch(/^held:w-1:paused:\d+$/);
  });

  it("a run that completes or fails is an episode, a stopped one is not; workers only with workerEnded", () => {
    const done = new Simulation();
    done.start();
    done.apply({ type: "worker.complete", workerId: "w-1", summary: "done" });
    expect(done.state.runs["run-1"]?.status).toBe("completed");
    expect(keys(done.state, done.now)).toEqual(["run:run-1:completed"]);
    expect(keys(done.state, done.now, { ...DEFAULTS, workerEnded: true })).toEqual([
      "run:run-1:completed",
      "worker:w-1:completed",
    ]);
    expect(keys(done.state, done.now, { ...DEFAULTS, runEnded: false })).toEqual([]);
    // Old news is not news: an hour later the ended run is no longer an episode.
    expect(keys(done.state, done.now + ENDED_WINDOW_MS + 1)).toEqual([]);

    const failed = new Simulation();
    failed.start();
    failed.apply({ type: "worker.fail", workerId: "w-1", reason: "cannot" });
    expect(keys(failed.state, failed.now, { ...DEFAULTS, workerEnded: true })).toEqual([
      "run:run-1:failed",
      "worker:w-1:failed",
    ]);
    expect(openEpisodes(failed.state, failed.now, CONNECTED_ENV, DEFAULTS)[0]?.kind).toBe("run_failed");

    const stopped = new Simulation();
    stopped.start();
    stopped.apply({ type: "run.stop", runId: "run-1" });
    expect(stopped.state.runs["run-1"]?.status).toBe("cancelled");
    expect(keys(stopped.state, stopped.now, ALL_KINDS)).toEqual([]);
  });

  it("a browser gone for a moment (a host restart) is no episode; gone for a minute it is", () => {
    const sim = new Simulation();
    sim.start();
    sim.observe("w-1", "error", "RESPONSE_FAILED");
    const gone: LivenessEnv = { browser: { connected: false, since: sim.now }, dispatch: () => undefined };
    expect(keys(sim.state, sim.now + 1_000, DEFAULTS, gone)).toEqual([]);
    const settle = SETTLE_MS.browser_not_connected!;
    expect(keys(sim.state, sim.now + settle, DEFAULTS, gone)).toEqual([
      `held:w-1:browser_not_connected:${sim.now}`,
    ]);
  });
});

describe("resolvedEpisodes", () => {
  it("a notified Needs-you episode that is no longer open is resolved; open ones and ended runs are not", () => {
    const sim = new Simulation();
    sim.start();
    sim.apply({ type: "worker.await_human", workerId: "w-1", reason: "choice", question: "A or B?" });
    const [question] = keys(sim.state, sim.now);
    const open = new Set(keys(sim.state, sim.now));
    expect(resolvedEpisodes([question!], open)).toEqual([]);
    sim.apply({ type: "human.resolve", workerId: "w-1", answer: "A" });
    const after = new Set(keys(sim.state, sim.now));
    expect(after.has(question!)).toBe(false);
    expect(resolvedEpisodes([question!, question!, "run:run-1:completed"], after)).toEqual([
      `resolved:${question!}`,
    ]);
  });
});
