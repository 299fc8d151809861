// Kill-and-restart campaign shared by the crash test and the soak: children commit the deterministic sequence and
// print acks; we SIGKILL them at random moments and require every restart to recover a prefix holding every ack.
import { seededRandom } from "../../native-host/src/core/simulation.ts";
import { setTimeout as delay } from "node:timers/promises";
import { Child, type ChildBundle, makeTempDir, removeDir, waitFor } from "./helpers.ts";

export interface CrashCampaignOptions {
  /** Total SIGKILLs, spread over the lanes. */
  kills: number;
  /** Independent data directories killed concurrently (keeps both cores busy). */
  lanes: number;
  seed: number;
  bundle: ChildBundle;
  /** Small, so that kills also land while a snapshot is written and the journal swapped. */
  snapshotAfterBytes: number;
  /** Move old events to the archive every this many transactions, so kills also land inside moveToArchive. */
  archiveEvery: number;
  progress?: (message: string) => void;
}

export interface LaneReport {
  kills: number;
  /** Kills that landed before the child reported its recovered state (i.e. during open/recovery). */
  killsDuringStartup: number;
  maxAcked: number;
  /** Transactions present after the final recovery. */
  recovered: number;
  /** Torn journal tails cut during recovery (a warning each). */
  tornTails: number;
  /** Unconfirmed archive appends cut during recovery. */
  archiveCuts: number;
  /** Recoveries that found a snapshot temp file (killed while writing a snapshot). */
  snapshotTempsRemoved: number;
  /** Recoveries that rebased the journal (killed between a snapshot's rename and the journal reset). */
  journalRebases: number;
}

export async function runCrashCampaign(o: CrashCampaignOptions): Promise<LaneReport[]> {
  const lanes: Promise<LaneReport>[] = [];
  let done = 0;
  const tick = (): void => {
    done++;
    if (o.progress && (done % 50 === 0 || done === o.kills)) o.progress(`${done}/${o.kills} kills`);
  };
  for (let lane = 0; lane < o.lanes; lane++) {
    const kills = Math.floor(o.kills / o.lanes) + (lane < o.kills % o.lanes ? 1 : 0);
    lanes.push(runLane(o, lane, kills, tick));
  }
  return Promise.all(lanes);
}

async function runLane(
  o: CrashCampaignOptions,
  lane: number,
  kills: number,
  tick: () => void,
): Promise<LaneReport> {
  const random = seededRandom(o.seed + lane * 7919);
  const dir = makeTempDir(`crash-lane${lane}`);
  const report: LaneReport = {
    kills: 0,
    killsDuringStartup: 0,
    maxAcked: 0,
    recovered: 0,
    tornTails: 0,
    archiveCuts: 0,
    snapshotTempsRemoved: 0,
    journalRebases: 0,
  };
  const config = { dir, snapshotAfterBytes: o.snapshotAfterBytes, archiveEvery: o.archiveEvery };
  let failed = true;
  try {
    for (let n = 0; n < kills; n++) {
      // Acks this child prints come after its ready line: its recovered state is judged against earlier acks only.
      const floor = report.maxAcked;
      const child = Child.spawn(o.bundle, { mode: "crash-loop", ...config, expectAtLeast: floor });
      let acksSinceStart = 0;
      child.onLine((line) => {
        if (line.startsWith("ack ")) {
          report.maxAcked = Math.max(report.maxAcked, Number(line.slice(4)));
          acksSinceStart++;
        } else if (line.startsWith("warn ")) {
          if (line.includes("torn tail")) report.tornTails++;
          if (line.includes("archive")) report.archiveCuts++;
        } else if (line.startsWith("info ")) {
          if (/temp files .*store\.snapshot\./.test(line)) report.snapshotTempsRemoved++;
          if (line.includes("rebased")) report.journalRebases++;
        }
      });
      const where = (): string =>
        `seed ${o.seed}, lane ${lane}, kill ${n + 1}, dir ${dir}\nstdout tail: ${child.lines.slice(-8).join("\n")}\nstderr: ${child.stderr}`;
      const strategy = random();
      try {
        if (strategy < 0.15) {
          // Somewhere in process start, recovery, the torn-tail cut or the first commits.
          await delay(10 + random() * 150);
        } else {
          checkReady(await child.waitLine(/^ready /), floor, report, where);
          if (strategy < 0.55) await delay(random() * 40);
          else {
            const target = 1 + Math.floor(random() * 60);
            await waitFor(
              () => acksSinceStart >= target || child.lines.some((l) => l.startsWith("fatal")),
              "acks",
            );
          }
        }
      } finally {
        child.kill(); // also when a check failed: never leave a writer running
      }
      const exit = await child.exited;
      const readyLine = child.lines.find((l) => l.startsWith("ready "));
      if (strategy < 0.15) {
        if (readyLine) checkReady(readyLine, floor, report, where);
        else report.killsDuringStartup++;
      }
      if (exit.signal !== "SIGKILL")
        throw new Error(`child ended by itself (${JSON.stringify(exit)}): ${where()}`);
      report.kills++;
      tick();
    }
    const verifier = Child.spawn(o.bundle, { mode: "verify", ...config });
    const ready = await verifier.waitLine(/^ready /, 30_000);
    checkReady(
      ready,
      report.maxAcked,
      report,
      () => `final verification of lane ${lane}: ${verifier.stderr}`,
    );
    report.recovered = Number(ready.split(" ")[1]);
    const exit = await verifier.exited;
    if (exit.code !== 0) throw new Error(`verifier exited with ${JSON.stringify(exit)}: ${verifier.stderr}`);
    failed = false;
    return report;
  } finally {
    // A failing lane keeps its directory for inspection (its path is in the error message).
    if (!failed || process.env.KEEP_CRASH_DIRS === undefined) removeDir(dir);
  }
}

/** `ready <k> ok`: the recovered prefix must hold every ack so far, and never shrink between restarts. */
function checkReady(line: string, floor: number, report: LaneReport, where: () => string): void {
  const [, kText, status] = line.split(" ");
  const k = Number(kText);
  if (status === "short" || (status === "ok" && k < floor)) {
    throw new Error(`recovered ${k} transactions but ${floor} were acknowledged: ${where()}`);
  }
  if (status !== "ok")
    throw new Error(`recovered state is not a prefix of the sequence: ${line}\n${where()}`);
  if (k < report.recovered)
    throw new Error(`recovered ${k} transactions after an earlier ${report.recovered}: ${where()}`);
  report.recovered = k;
}
