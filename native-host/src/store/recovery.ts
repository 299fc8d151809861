// Startup recovery, read-only until it has proven the files consistent: verify the snapshot, scan the journal
// (a torn tail is noted for cutting, damage anywhere else is refused), then replay the records the snapshot lacks.
import { decodeJournalHeader, JOURNAL_HEADER_BYTES, type JournalHeader } from "./file-headers.ts";
import { FRAME_HEADER_BYTES, scanFrames } from "./frame-codec.ts";
import { decodeTxRecord, type DecodedRecord, TX_PAYLOAD_PREFIX } from "./record-codec.ts";
import { readSnapshotFile, type LoadedSnapshot } from "./snapshot-file.ts";
import type { AckMark } from "./ack-mark.ts";
import type { SqlEngine } from "./sql-engine.ts";
import type { StoreLoss } from "./store-types.ts";
import { StoreError, describeError } from "./store-error.ts";
import { readIfPresent } from "./read-if-present.ts";

export interface JournalState {
  header: JournalHeader;
  fileBytes: number;
  /** Where valid records end: fileBytes, or less with a torn tail to cut or preallocated zeros after the records. */
  validEnd: number;
  tornTail: { droppedBytes: number; reason: string } | undefined;
  records: DecodedRecord[];
  /** The raw frame (length, crc, payload) of each record, for carrying records into a rebased journal. */
  frames: Buffer[];
}

export interface RecoveryPlan {
  snapshot: LoadedSnapshot | undefined;
  journal: JournalState | undefined;
  /** Last seq the snapshot holds (0 without one). */
  snapshotSeq: number;
  /** Last seq after replay. */
  lastSeq: number;
}

/** Reads and cross-checks snapshot and journal. Changes nothing on disk; throws STORE_CORRUPT naming the file. */
export function inspectDataFiles(
  snapshotPath: string,
  journalPath: string,
  opts: { journalEnd?: number } = {},
): RecoveryPlan {
  const snapshot = readSnapshotFile(snapshotPath);
  const journal = readJournal(journalPath, opts.journalEnd);
  const snapshotSeq = snapshot?.header.lastSeq ?? 0;
  if (snapshot && !journal) {
    throw new StoreError(
      "STORE_CORRUPT",
      `journal ${journalPath} is missing although snapshot ${snapshotPath} exists; transactions after the snapshot ` +
        "would be lost silently, so the store refuses to open",
      { path: journalPath },
    );
  }
  if (journal && journal.header.baseSeq > snapshotSeq) {
    throw new StoreError(
      "STORE_CORRUPT",
      `journal ${journalPath} follows a snapshot holding transactions up to ${journal.header.baseSeq}, but ` +
        (snapshot
          ? `snapshot ${snapshotPath} holds only up to ${snapshotSeq}`
          : `snapshot ${snapshotPath} is missing`),
      { path: journalPath },
    );
  }
  const last = journal?.records.at(-1)?.seq ?? 0;
  return { snapshot, journal, snapshotSeq, lastSeq: Math.max(snapshotSeq, last) };
}

export const LOSS_REMEDY =
  "restore the data directory from a backup, or run `orchestrator repair --accept-loss` to open it without them " +
  "(the loss is recorded as an event)";

/**
 * Whether the files hold fewer transactions than were acknowledged: the mark (store.mark) names a higher seq than the
 * snapshot and journal reach, or the directory was clearly used (owner generation past 1) while the store files and
 * the mark are all gone, or the mark itself is damaged. A torn tail is not a loss: the mark only ever names records that were durable.
 */
export function findLoss(
  plan: RecoveryPlan,
  mark: AckMark | StoreLoss | undefined,
  generation: number,
  paths: { dir: string; snapshot: string; journal: string; mark: string },
): StoreLoss | undefined {
  const kept = plan.lastSeq;
  if (mark && "message" in mark) return mark; // a damaged mark: the loss is already described
  if (mark && mark.seq > kept) {
    const where =
      !plan.snapshot && !plan.journal
        ? `${paths.snapshot} and ${paths.journal} are missing`
        : `${paths.journal} holds transactions up to ${kept}` +
          (plan.snapshot ? ` (its snapshot up to ${plan.snapshotSeq})` : "");
    return {
      acknowledgedSeq: mark.seq,
      keptSeq: kept,
      path: plan.journal ? paths.journal : paths.dir,
      message:
        `${where}, but ${paths.mark} says transactions up to ${mark.seq} were acknowledged: ` +
        `${mark.seq - kept} acknowledged transaction(s) (${kept + 1}..${mark.seq}) are missing, so the store refuses ` +
        `to open rather than lose them silently; ${LOSS_REMEDY}`,
    };
  }
  if (!mark && !plan.snapshot && !plan.journal && generation > 1) {
    return {
      acknowledgedSeq: null,
      keptSeq: 0,
      path: paths.dir,
      message:
        `${paths.dir} was used before (opened ${generation - 1} time(s), see owner.json) but ${paths.snapshot}, ` +
        `${paths.journal} and ${paths.mark} are all missing: everything it held is gone, so the store refuses to ` +
        `start empty; ${LOSS_REMEDY}`,
    };
  }
  return undefined;
}

/** Applies every journalled transaction the snapshot does not hold, in one SQL transaction (much faster than one each). */
export function replayJournal(engine: SqlEngine, plan: RecoveryPlan, journalPath: string): void {
  const records = plan.journal?.records.filter((r) => r.seq > plan.snapshotSeq) ?? [];
  if (records.length === 0) return;
  engine.begin();
  let current = 0;
  try {
    for (const record of records) {
      current = record.seq;
      for (const stmt of record.stmts) {
        if (!stmt.failed) {
          engine.run(stmt.sql, stmt.params);
          continue;
        }
        // The statement raised an error the caller caught; it must fail again, leaving the same partial effects.
        let failedAgain = false;
        try {
          engine.run(stmt.sql, stmt.params);
        } catch {
          failedAgain = true;
        }
        if (!failedAgain)
          throw new Error(`statement "${stmt.sql.slice(0, 80)}" succeeded but failed originally`);
      }
    }
    engine.commit();
  } catch (error) {
    // No ROLLBACK here: open() discards this engine, and a second error from SQLite would only hide the first.
    throw new StoreError(
      "STORE_CORRUPT",
      `replaying transaction ${current} of ${journalPath} failed (${describeError(error)}); ` +
        "the journal does not match the snapshot or a statement was not deterministic",
      { path: journalPath, cause: error },
    );
  }
}

/** `end`: read only this far (a running store rolling back: bytes after its durable records are not its). */
function readJournal(path: string, end?: number): JournalState | undefined {
  let file = readIfPresent(path);
  if (file === undefined) return undefined;
  if (end !== undefined) file = file.subarray(0, end);
  const header = decodeJournalHeader(file, path);
  const scan = scanFrames(file, JOURNAL_HEADER_BYTES, TX_PAYLOAD_PREFIX, { zeroFilledTail: true });
  if (scan.kind === "corrupt") {
    throw new StoreError(
      "STORE_CORRUPT",
      `journal ${path} has a damaged record at byte ${scan.badOffset} (${scan.reason}) followed by a valid record at ` +
        `byte ${scan.nextValidOffset}; this is not a torn write, so nothing is cut and the store refuses to open`,
      { path },
    );
  }
  const records: DecodedRecord[] = [];
  const frames: Buffer[] = [];
  let expected = header.baseSeq + 1;
  for (const frame of scan.frames) {
    let record: DecodedRecord;
    try {
      record = decodeTxRecord(frame.payload);
    } catch (error) {
      throw new StoreError(
        "STORE_CORRUPT",
        `journal ${path} has an undecodable record at byte ${frame.offset}: ${describeError(error)}`,
        { path, cause: error },
      );
    }
    if (record.seq !== expected) {
      throw new StoreError(
        "STORE_CORRUPT",
        `journal ${path} has transaction ${record.seq} at byte ${frame.offset} where ${expected} was expected`,
        { path },
      );
    }
    expected++;
    records.push(record);
    frames.push(file.subarray(frame.offset, frame.offset + FRAME_HEADER_BYTES + frame.payload.length));
  }
  return {
    header,
    fileBytes: file.length,
    validEnd: scan.end,
    tornTail:
      scan.kind === "torn-tail" ? { droppedBytes: scan.droppedBytes, reason: scan.reason } : undefined,
    records,
    frames,
  };
}
