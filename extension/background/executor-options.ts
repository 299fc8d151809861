// The executor's timing and limit options, with their defaults; tests pass shorter ones. Kept apart from the
// executor so the modules it coordinates can read them without importing it.
import type { BackoffPolicy } from "../lib/backoff.ts";

export interface ExecutorOptions {
  /**
   * Tabs generating at once across workers, unless the `maxGenerating` preference says otherwise. The host keeps the
   * limit (it sends a command only when a slot is free); this browser tells it in `hello` and `executor.settings`.
   */
  readonly maxGenerating: number;
  /** How long a tab may take to load the content script before a command fails (nothing submitted). */
  readonly contentReadyTimeoutMs: number;
  /** How long the page may take to submit (wait for the composer, insert, click, confirm). */
  readonly submitTimeoutMs: number;
  /** One ping, marker or status question to a content script. */
  readonly probeTimeoutMs: number;
  /** After a restart: how long to wait for a tab's content script to come back before failing closed. */
  readonly recoveryWaitMs: number;
  /** A tab stops counting as generating at the latest after this long without an idle report. */
  readonly generatingHoldMs: number;
  /** Finished journal entries are kept this long (to answer a redelivered command), and at most this many. */
  readonly journalKeepMs: number;
  readonly journalKeepMax: number;
  readonly backoff?: BackoffPolicy;
}

export const DEFAULT_OPTIONS: ExecutorOptions = {
  maxGenerating: 3,
  contentReadyTimeoutMs: 45_000,
  submitTimeoutMs: 180_000,
  probeTimeoutMs: 3_000,
  recoveryWaitMs: 10_000,
  generatingHoldMs: 60 * 60_000,
  journalKeepMs: 24 * 60 * 60_000,
  journalKeepMax: 500,
};
