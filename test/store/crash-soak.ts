// `npm run soak:crash [-- KILLS [SEED]]`: the crash test's kill-and-restart campaign at soak scale (default 3000
// SIGKILLs), printing progress. Exits non-zero on the first recovered state that is not a prefix holding every ack.
import { runCrashCampaign } from "./crash-harness.ts";
import { buildChildBundle } from "./helpers.ts";

const kills = Number(process.argv[2] ?? 3000);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
if (!Number.isSafeInteger(kills) || kills < 1) {
  console.error(`usage: npm run soak:crash -- [KILLS] [SEED]  (got KILLS=${process.argv[2]})`);
  process.exit(64);
}

const bundle = await buildChildBundle();
const started = Date.now();
console.log(`crash soak: ${kills} SIGKILLs, seed ${seed}`);
try {
  const lanes = await runCrashCampaign({
    kills,
    lanes: 3,
    seed,
    bundle,
    snapshotAfterBytes: 4096,
    archiveEvery: 64,
    progress: (m) => console.log(`  ${m} (${((Date.now() - started) / 1000).toFixed(0)} s)`),
  });
  for (const [i, l] of lanes.entries()) {
    console.log(
      `lane ${i}: ${l.kills} kills (${l.killsDuringStartup} during startup), ${l.maxAcked} acked, ` +
        `${l.recovered} recovered; recoveries: ${l.snapshotTempsRemoved} mid-snapshot, ${l.journalRebases} ` +
        `between snapshot and journal reset, ${l.archiveCuts} mid-archive, ${l.tornTails} torn journal tails`,
    );
  }
  console.log(`ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  bundle.dispose();
}
