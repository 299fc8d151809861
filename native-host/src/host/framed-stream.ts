// Binds a byte stream pair (stdio, or an IPC socket) to framed messages in both directions.
import type { Readable, Writable } from "node:stream";
import { encodeFrame, FrameDecoder } from "../bridge/native-framing.ts";
import type { StoreLogger } from "../store/store-types.ts";

export interface FramedStream {
  send(message: unknown): void;
  /** Resolves when the input ends (EOF) or breaks beyond repair. */
  readonly ended: Promise<string>;
}

export function framedStream(
  input: Readable,
  output: Writable,
  onMessage: (value: unknown) => void,
  log: StoreLogger,
  label: string,
): FramedStream {
  const decoder = new FrameDecoder();
  let bad = 0;
  const ended = new Promise<string>((resolve) => {
    input.on("data", (chunk: Buffer) => {
      for (const event of decoder.push(chunk)) {
        if (event.kind === "message") onMessage(event.value);
        // Every one is reported: the host's logger passes a few per minute and counts the rest (log-rate-limit.ts).
        else log.warn(`${label}: bad frame #${++bad}: ${event.reason}`);
      }
      // An impossible length cannot be resynchronised: stop reading, like the browser would.
      if (decoder.fatal) {
        input.removeAllListeners("data");
        resolve(`unrecoverable framing: ${decoder.fatal}`);
      }
    });
    input.on("end", () =>
      resolve(decoder.pending > 0 ? `input ended inside a frame (${decoder.pending} bytes)` : "eof"),
    );
    input.on("close", () => resolve("closed"));
    input.on("error", (e) => resolve(`input error: ${e.message}`));
  });
  output.on("error", (e) => log.warn(`${label}: output error: ${e.message}`));
  // A relay that handed this input over paused it; a 'data' listener alone does not restart a paused stream.
  input.resume();
  return {
    send(message) {
      output.write(encodeFrame(message));
    },
    ended,
  };
}
