// The deterministic transaction sequence the crash tests commit, and the check that a recovered store holds exactly
// a prefix of it: rows 1..k (live or archived, each once, byte-exact) and counters that moved with every row.
import type { DurableStore } from "../../native-host/src/store/durable-store.ts";
import type { WriteTx } from "../../native-host/src/store/store-types.ts";

/** The payload of transaction i: deterministic, so any recovered row can be checked byte for byte. */
export function payloadOf(i: number): string {
  return JSON.stringify({ i, pad: String(i).padStart(10, "0").repeat(8) });
}

/** Transaction i of the sequence: one event row plus two counters that must move with it (torn = mismatch). */
export function applyTx(tx: WriteTx, i: number): void {
  tx.run("INSERT INTO events (seq, run_id, worker_id, type, at, data) VALUES (?, ?, ?, ?, ?, ?)", [
    i,
    `run-${Math.floor(i / 100)}`,
    "w",
    "progress",
    i,
    payloadOf(i),
  ]);
  tx.run("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'n'");
  tx.run("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 's'", [i]);
}

/** Checks the recovered state is exactly transactions 1..k (live rows + archive); returns k or throws. */
export async function verifySequence(store: DurableStore): Promise<number> {
  const counters = store.read((q) => q.all<{ key: string; value: string }>("SELECT key, value FROM meta"));
  const n = Number(counters.find((c) => c.key === "n")?.value ?? "0");
  const s = Number(counters.find((c) => c.key === "s")?.value ?? "0");
  const seen = new Set<number>();
  const check = (seq: number, data: unknown, where: string): void => {
    if (seen.has(seq)) throw new Error(`row ${seq} appears twice (${where})`);
    seen.add(seq);
    if (data !== payloadOf(seq)) throw new Error(`row ${seq} has wrong data (${where})`);
  };
  for await (const row of store.readArchive(undefined, { dedupeKey: null }))
    check(Number(row.seq), row.data, "archive");
  for (const row of store.read((q) => q.all<{ seq: number; data: string }>("SELECT seq, data FROM events"))) {
    check(row.seq, row.data, "live");
  }
  const k = seen.size;
  for (let i = 1; i <= k; i++)
    if (!seen.has(i)) throw new Error(`rows are not a prefix: ${i} missing, ${k} present`);
  if (n !== k || s !== (k * (k + 1)) / 2)
    throw new Error(`counters n=${n} s=${s} do not match ${k} rows: torn`);
  return k;
}
