// MCP tool annotations of the operations, every hint explicit: what ChatGPT and other MCP clients are told about a
// tool's effects before they call it.

/**
 * Every hint explicit (a missing one fails to compile). ChatGPT treats a tool without `readOnlyHint` as a write that
 * needs confirmation, and its app review rejects tools that leave `destructiveHint` or `openWorldHint` unset, whatever
 * the MCP defaults say. No tool reaches beyond this local orchestrator, so `openWorldHint` is false throughout; a tool
 * that does must change this type on purpose.
 */
export type ToolAnnotations = typeof READ_ONLY | WriteAnnotations;

/** A read: it changes nothing, so it is never destructive and repeating it adds nothing. */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export interface WriteAnnotations {
  readonly readOnlyHint: false;
  /** Ends something for good (a worker or run cannot be reopened). */
  readonly destructiveHint: boolean;
  /** Repeating the same call changes nothing more (it coalesces, is deduplicated, or is refused as already done). */
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

/** A write, with its two hints said where it is defined. */
export function write(hints: { destructive: boolean; idempotent: boolean }): WriteAnnotations {
  return {
    readOnlyHint: false,
    destructiveHint: hints.destructive,
    idempotentHint: hints.idempotent,
    openWorldHint: false,
  };
}
