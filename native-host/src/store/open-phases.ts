// The two phases of DurableStore.open before it takes writes: recovering the state read-only (proving the files
// consistent, refusing a loss of acknowledged transactions unless the operator accepts it), then repairing what a
// crash legitimately leaves behind (temp files, a torn journal tail, a journal behind its snapshot, unconfirmed archive).
import { closeSync, fsyncSync, ftruncateSync, openSync } from "node:fs";
import type { SqlJsStatic } from "sql.js";
import { type AckMark, MARK_FILE, readAckMark } from "./ack-mark.ts";
import { cutUnconfirmed, inspectArchive } from "./archive.ts";
import { removeStaleTemps, writeFileAtomic } from "./atomic-file.ts";
import { encodeJournalHeader } from "./file-headers.ts";
import { IPC_SECRET_FILE, OWNER_FILE, type OwnerLock } from "./owner-lock.ts";
import { findLoss, inspectDataFiles, LOSS_REMEDY, type RecoveryPlan, replayJournal } from "./recovery.ts";
import { SqlEngine } from "./sql-engine.ts";
import { StoreError, isStoreError } from "./store-error.ts";
import {
  ARCHIVE_END_KEY,
  ARCHIVE_FILE,
  type DataFilePaths,
  JOURNAL_FILE,
  SNAPSHOT_FILE,
} from "./store-files.ts";
import type { StoreLogger, StoreLoss, StoreOptions } from "./store-types.ts";

export interface RecoveredState {
  readonly plan: RecoveryPlan;
  /** The state in memory: the snapshot with the journal replayed onto it. */
  readonly engine: SqlEngine;
  /** The loss the operator accepted at this open, if any. */
  readonly loss: StoreLoss | undefined;
  /** The mark on disk when it is intact and no loss was found in it. */
  readonly existingMark: AckMark | undefined;
  /** Archive bytes the database says are committed. */
  readonly archiveEnd: number;
  /** Archive bytes after that: an append whose delete never committed. */
  readonly unconfirmedArchiveBytes: number;
}

/** Phase 1, read-only: nothing on disk changes, so a refused directory is left exactly as it was found. */
export async function recoverState(
  sql: SqlJsStatic,
  paths: DataFilePaths,
  generation: number,
  acceptLoss: StoreOptions["acceptLoss"],
  log: StoreLogger,
): Promise<RecoveredState> {
  const plan = inspectDataFiles(paths.snapshot, paths.journal);
  // Fewer transactions on disk than were acknowledged (the journal cut short or zeroed, the files deleted): refuse,
  // unless the operator accepted the loss (`orchestrator repair --accept-loss`).
  const markOrLoss = readMarkOrLoss(paths.mark, plan.lastSeq);
  const existingMark = markOrLoss && "seq" in markOrLoss ? markOrLoss : undefined;
  const loss = findLoss(plan, markOrLoss, generation, {
    dir: paths.dir,
    snapshot: paths.snapshot,
    journal: paths.journal,
    mark: paths.mark,
  });
  if (loss && !(acceptLoss && (await acceptLoss(loss)))) {
    throw new StoreError("STORE_CORRUPT", loss.message, { path: loss.path });
  }
  if (loss) log.warn(`opened with an accepted loss: ${loss.message}`);
  const engine = SqlEngine.create(sql, plan.snapshot?.body);
  try {
    replayJournal(engine, plan, paths.journal);
    const archiveEnd = readArchiveEnd(engine);
    const { unconfirmedBytes } = inspectArchive(paths.archive, archiveEnd);
    return { plan, engine, loss, existingMark, archiveEnd, unconfirmedArchiveBytes: unconfirmedBytes };
  } catch (error) {
    engine.close();
    throw error;
  }
}

/** Phase 2: makes the files what phase 1 proved them to hold. Returns where the journal's records end. */
export async function repairFiles(
  paths: DataFilePaths,
  recovered: RecoveredState,
  lock: OwnerLock,
  log: StoreLogger,
): Promise<number> {
  const { plan, archiveEnd, unconfirmedArchiveBytes } = recovered;
  const removed = await removeStaleTemps(paths.dir, [
    SNAPSHOT_FILE,
    JOURNAL_FILE,
    ARCHIVE_FILE,
    OWNER_FILE,
    IPC_SECRET_FILE,
    MARK_FILE,
  ]);
  if (removed.length > 0) log.info(`removed temp files left by a crash: ${removed.join(", ")}`);
  const journalState = plan.journal;
  if (journalState?.tornTail) {
    log.warn(
      `journal ${paths.journal}: cut a torn tail of ${journalState.tornTail.droppedBytes} bytes at byte ` +
        `${journalState.validEnd} (${journalState.tornTail.reason}); transactions up to ${plan.lastSeq} kept`,
    );
  }
  let journalBytes: number;
  if (!journalState || journalState.header.baseSeq !== plan.snapshotSeq) {
    // Fresh directory, or a crash between a snapshot's rename and the journal reset: start a journal that follows
    // the snapshot on disk, carrying the records it lacks. Appending to the old one would leave a seq gap whenever
    // the snapshot holds transactions the old journal never received.
    const carried =
      journalState?.frames.filter((_, i) => journalState.records[i]!.seq > plan.snapshotSeq) ?? [];
    const header = encodeJournalHeader({ generation: lock.generation, baseSeq: plan.snapshotSeq });
    await writeFileAtomic(paths.journal, [header, ...carried], () => lock.assertOwner());
    journalBytes = header.length + carried.reduce((n, f) => n + f.length, 0);
    if (journalState) log.info(`journal ${paths.journal} rebased onto snapshot seq ${plan.snapshotSeq}`);
  } else {
    if (journalState.tornTail) truncateDurably(paths.journal, journalState.validEnd);
    journalBytes = journalState.validEnd;
  }
  if (unconfirmedArchiveBytes > 0) {
    cutUnconfirmed(paths.archive, archiveEnd);
    log.warn(
      `archive ${paths.archive}: cut ${unconfirmedArchiveBytes} bytes of an append whose delete never ` +
        "committed (those rows are still in the live database)",
    );
  }
  return journalBytes;
}

/**
 * The mark, or (when the file is damaged) a loss of unknown extent: the store cannot tell what was acknowledged, so
 * it opens only with the loss accepted, which writes a fresh mark from the files.
 */
function readMarkOrLoss(path: string, keptSeq: number): AckMark | StoreLoss | undefined {
  try {
    return readAckMark(path);
  } catch (error) {
    if (!isStoreError(error, "STORE_CORRUPT")) throw error;
    return {
      acknowledgedSeq: null,
      keptSeq,
      path,
      message: `${error.message}; ${LOSS_REMEDY}`,
    };
  }
}

function readArchiveEnd(engine: SqlEngine): number {
  const table = engine.get(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_store_meta'",
    [],
  );
  if (!table) return 0;
  const row = engine.get<{ value: string }>("SELECT value FROM _store_meta WHERE key = ?", [ARCHIVE_END_KEY]);
  return row ? Number(row.value) : 0;
}

function truncateDurably(path: string, length: number): void {
  const fd = openSync(path, "r+");
  try {
    ftruncateSync(fd, length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
