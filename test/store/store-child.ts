// Child process driven by the store tests: commits a deterministic transaction sequence until killed ("crash-loop"),
// opens and holds a store ("hold"), or dies at a named fault point ("fault"). Talks to the parent in stdout lines.
import { DurableStore } from "../../native-host/src/store/durable-store.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";
import { isStoreError } from "../../native-host/src/store/store-error.ts";
import type { StoreFaultPoint } from "../../native-host/src/store/store-types.ts";
import { applyTx, verifySequence } from "./crash-sequence.ts";

export interface ChildConfig {
  mode: "crash-loop" | "verify" | "hold" | "fault" | "commit-exit";
  dir: string;
  snapshotAfterBytes?: number;
  /** crash-loop: move old events to the archive every this many transactions (0 = never). */
  archiveEvery?: number;
  /** crash-loop: stop before writing anything if fewer transactions than this were recovered (keeps the evidence). */
  expectAtLeast?: number;
  /** commit-exit: how many transactions of the sequence to commit before exiting without close(). */
  count?: number;
  /** fault: the point at which the child SIGKILLs itself. */
  fault?: StoreFaultPoint;
}

function out(line: string): void {
  // Pipes are synchronous on POSIX: once this returns the parent will read the line even if we are killed next.
  process.stdout.write(`${line}\n`);
}

let traced: DurableStore | undefined;
/** The fault point that kills us once reached (fault mode arms it only after its setup commits). */
let armed: StoreFaultPoint | undefined;

async function open(config: ChildConfig): Promise<DurableStore> {
  traced = undefined;
  const store = await DurableStore.open({
    dir: config.dir,
    migrations: MIGRATIONS,
    snapshotAfterBytes: config.snapshotAfterBytes,
    log: { warn: (m) => out(`warn ${m}`), info: (m) => out(`info ${m}`) },
    faultHook: (point) => {
      if (point === (armed ?? config.fault)) process.kill(process.pid, "SIGKILL");
      if (process.env.STORE_TRACE && traced) out(`trace ${point} ${JSON.stringify(traced.stats())}`);
    },
  });
  traced = store;
  return store;
}

async function crashLoop(config: ChildConfig, verifyOnly: boolean): Promise<void> {
  const store = await open(config);
  let k: number;
  try {
    k = await verifySequence(store);
  } catch (error) {
    out(`ready -1 bad ${(error as Error).message}`);
    process.exit(4);
  }
  if (k < (config.expectAtLeast ?? 0)) {
    out(`ready ${k} short`);
    process.exit(4);
  }
  out(`ready ${k} ok`);
  if (verifyOnly) {
    await store.close();
    return;
  }
  await store.write((tx) => {
    tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')");
  });
  const archiveEvery = config.archiveEvery ?? 0;
  let archiving: Promise<number> = Promise.resolve(0);
  for (let i = k + 1; ;) {
    // Groups of 1-4 concurrent transactions exercise group commit; acks go out as each becomes durable.
    const group = 1 + (i % 4);
    const writes: Promise<void>[] = [];
    for (let j = 0; j < group; j++, i++) {
      const n = i;
      writes.push(store.write((tx) => applyTx(tx, n)).then(() => out(`ack ${n}`)));
      if (archiveEvery > 0 && n % archiveEvery === 0) {
        await archiving;
        const upTo = n - 30;
        archiving = store.moveToArchive(
          { sql: "SELECT * FROM events WHERE seq <= ? ORDER BY seq", params: [upTo] },
          { sql: "DELETE FROM events WHERE seq <= ?", params: [upTo] },
        );
      }
    }
    await Promise.all(writes);
  }
}

async function hold(config: ChildConfig): Promise<void> {
  let store: DurableStore;
  try {
    store = await open(config);
  } catch (error) {
    if (isStoreError(error)) {
      out(`error ${error.code} ${error.message}`);
      process.exit(3);
    }
    throw error;
  }
  out(`opened ${store.generation} ${store.lock.address.replace("\0", "@")}`);
  // Hold until the parent closes stdin, then close cleanly.
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
  await store.close();
  out("closed");
}

/** Commits 20 transactions, then arms the fault and provokes its point (where faultHook kills us). */
async function fault(config: ChildConfig): Promise<void> {
  const store = await open({ ...config, fault: undefined });
  await store.write((tx) => tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')"));
  for (let i = 1; i <= 20; i++) await store.write((tx) => applyTx(tx, i));
  out("committed 20");
  armed = config.fault;
  if (config.fault === "archive-appended") {
    await store.moveToArchive(
      { sql: "SELECT * FROM events WHERE seq <= ? ORDER BY seq", params: [10] },
      { sql: "DELETE FROM events WHERE seq <= ?", params: [10] },
    );
  } else if (config.fault === "journal-written") {
    await store.write((tx) => applyTx(tx, 21));
  } else {
    await store.snapshot();
  }
  out("fault point not reached");
  process.exit(5);
}

/** Commits transactions 1..count, then exits without close(): recovery must come from the journal alone. */
async function commitExit(config: ChildConfig): Promise<void> {
  const store = await open(config);
  await store.write((tx) => tx.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('n', '0'), ('s', '0')"));
  for (let i = 1; i <= (config.count ?? 10); i++) await store.write((tx) => applyTx(tx, i));
  out(`committed ${JSON.stringify(store.stats())}`);
  process.exit(0);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "{}") as ChildConfig;
  switch (config.mode) {
    case "crash-loop":
      return crashLoop(config, false);
    case "verify":
      return crashLoop(config, true);
    case "hold":
      return hold(config);
    case "fault":
      return fault(config);
    case "commit-exit":
      return commitExit(config);
  }
}

main().catch((error: unknown) => {
  out(
    `fatal ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`.replace(/\n/g, " | "),
  );
  process.exit(2);
});
