// What the extension reports about the continuation-state block of the newest assistant turn (zero-setup mode):
// the parse result, the status, a hash of current:/next: (progress without storing text) and, only for
// `blocked`, a bounded summary that becomes the Needs-you question. Schema shared by host and extension.
import { z } from "zod";
import {
  continuationStatusSchema,
  parseContinuationBlock,
  type ContinuationBlock,
  type ContinuationBlockError,
} from "./continuation-block.ts";

/** The blocked summary is the agent's message to the person; bounded like a worker_await_human reason. */
export const MAX_BLOCKED_SUMMARY_CHARS = 500;

export const continuationBlockReportSchema = z.discriminatedUnion("result", [
  z
    .object({
      result: z.literal("block"),
      status: continuationStatusSchema,
      /** SHA-256 (hex) of the block's `current:` and `next:` values: changes count as progress. */
      progressHash: z.string().regex(/^[0-9a-f]{64}$/),
      /** Only with `blocked`. */
      summary: z.string().min(1).max(MAX_BLOCKED_SUMMARY_CHARS).optional(),
    })
    .strict()
    .refine((r) => r.summary === undefined || r.status === "blocked", {
      message: "summary is sent only for a blocked block",
    }),
  z.object({ result: z.enum(["missing", "malformed"]) }).strict(),
]);

export type ContinuationBlockReport = z.infer<typeof continuationBlockReportSchema>;

/** Hex SHA-256 through WebCrypto, available in the extension's worker and in Node. */
async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Builds the report for the text of the newest assistant turn. Only the final block counts (quoted or
 * earlier fenced examples never do: `parseContinuationBlock`); no response text leaves except the
 * bounded summary of a `blocked` block.
 */
export async function continuationBlockReport(responseText: string): Promise<ContinuationBlockReport> {
  return blockReportFromParse(parseContinuationBlock(responseText));
}

/** The report for an already parsed block (the page adapter parses once, when the turn ends). */
export async function blockReportFromParse(
  parsed: ContinuationBlock | ContinuationBlockError,
): Promise<ContinuationBlockReport> {
  if ("error" in parsed) return { result: parsed.error };
  const progressHash = await sha256Hex(`current:${parsed.current}\nnext:${parsed.next}`);
  if (parsed.status !== "blocked") return { result: "block", status: parsed.status, progressHash };
  const summary = parsed.summary.replace(/\s+/g, " ").trim().slice(0, MAX_BLOCKED_SUMMARY_CHARS);
  return { result: "block", status: "blocked", progressHash, summary };
}
