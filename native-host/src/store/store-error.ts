// Errors of the durable store as data: a stable `code` callers branch on, and a message that names the file at fault.
// Every failure the store reports is one of these (SQL errors raised by a caller's own statements pass through as-is).
import type { StoreErrorCode } from "../../../shared/error-codes.ts";

/** The store's codes, each explained where the closed list of error codes is (shared/error-codes.ts). */
export type { StoreErrorCode };

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

/** What an operating-system error code means for the disk, in the words an operator needs to fix it. */
const DISK_PROBLEMS: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on the device holding",
  EDQUOT: "the disk quota is exhausted on the device holding",
  EIO: "an I/O error on the device holding",
  EROFS: "the file system is read-only at",
  EACCES: "permission denied writing to",
  EPERM: "permission denied writing to",
  EFBIG: "the file grew past the file system's limit in",
};

/**
 * STORE_IO for a failed write of `path` in the data directory `dir`: names the cause in plain words ("no space left on
 * the device holding /data") with the system's own code, so the message says what to fix without a stack trace.
 */
export function diskWriteError(path: string, dir: string, error: unknown): StoreError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const problem = code ? DISK_PROBLEMS[code] : undefined;
  const cause = problem ? `${problem} ${dir}` : describeError(error);
  return new StoreError("STORE_IO", `writing ${path} failed: ${cause}${code ? ` (${code})` : ""}`, {
    path,
    cause: error,
  });
}
