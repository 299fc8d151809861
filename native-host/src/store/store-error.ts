// Errors of the durable store as data: a stable `code` callers branch on, and a message that names the file at fault.
// Every failure the store reports is one of these (SQL errors raised by a caller's own statements pass through as-is).

export type StoreErrorCode =
  /** A snapshot, journal header, journal record in the middle, or the archive is damaged; nothing was changed on disk. */
  | "STORE_CORRUPT"
  /** A file was written by a newer on-disk format than this code understands. */
  | "STORE_VERSION"
  /** Another live process owns the data directory. */
  | "STORE_LOCKED"
  /** owner.json no longer carries our generation: another owner took over, so we stop writing (fencing). */
  | "STORE_FENCED"
  /** A write or fsync failed; the store has failed closed and must be reopened. */
  | "STORE_IO"
  /** The store failed earlier (STORE_IO / STORE_FENCED); it refuses all work until reopened. */
  | "STORE_FAILED"
  /** The store was closed. */
  | "STORE_CLOSED"
  /** A programming error: nested or async write, non-deterministic SQL, bad parameter, export inside a transaction. */
  | "STORE_MISUSE"
  /** A schema migration failed, or the database is newer than the migrations this code knows. */
  | "STORE_MIGRATION"
  /** moveToArchive's delete did not remove exactly the rows its select archived. */
  | "STORE_ARCHIVE_MISMATCH";

export class StoreError extends Error {
  override readonly name = "StoreError";
  readonly code: StoreErrorCode;
  /** The file or directory the error is about, when there is one. */
  readonly path: string | undefined;

  constructor(code: StoreErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path;
  }
}

export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code);
}

/** Renders an unknown thrown value for a message (sql.js throws Error objects, but callers may throw anything). */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
