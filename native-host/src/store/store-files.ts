// The names of the store's own files in the data directory, and where it records how much of the archive is
// committed (a _store_meta key, so the archive's end moves in the same transaction as the rows it received).
import { join } from "node:path";
import { MARK_FILE } from "./ack-mark.ts";

export const SNAPSHOT_FILE = "store.snapshot";
export const JOURNAL_FILE = "store.journal";
export const ARCHIVE_FILE = "events-archive.log";

export const ARCHIVE_END_KEY = "archive_end";

export interface DataFilePaths {
  readonly dir: string;
  readonly snapshot: string;
  readonly journal: string;
  readonly archive: string;
  /** The acknowledged-transactions mark (ack-mark.ts). */
  readonly mark: string;
}

export function dataFilePaths(dir: string): DataFilePaths {
  return {
    dir,
    snapshot: join(dir, SNAPSHOT_FILE),
    journal: join(dir, JOURNAL_FILE),
    archive: join(dir, ARCHIVE_FILE),
    mark: join(dir, MARK_FILE),
  };
}
