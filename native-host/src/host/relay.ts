// A relay: a host that found the data directory owned. It forwards its executor's frames to the owner's IPC
// socket and back, never opening the database; when the owner goes away it reports so and can take over.
import { connect, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { encodeFrame, FrameDecoder } from "../bridge/native-framing.ts";
import { ipcAddress } from "../store/owner-lock.ts";
import type { StoreLogger } from "../store/store-types.ts";
import { IPC_AUTH_TIMEOUT_MS, ipcAnswerSchema, readFirstFrame, readIpcSecret } from "./ipc-auth.ts";

export type RelayEnd =
  | { readonly kind: "input-ended"; readonly why: string }
  | { readonly kind: "owner-gone"; readonly lastHello: unknown };

/**
 * Connects to the owner of `dir` and authenticates (the secret is read after the connect: the owner writes it
 * before it listens, so it is the secret of the owner we reached). Resolves with the socket paused, positioned
 * after the owner's `ipc.ok`; rejects if the owner refuses or does not answer.
 */
export function connectToOwner(dir: string): Promise<Socket> {
  const address = ipcAddress(dir);
  return new Promise<Socket>((resolve, reject) => {
    const socket = connect({ path: address });
    socket.once("error", reject);
    socket.once("connect", () => {
      try {
        socket.write(encodeFrame({ kind: "ipc.auth", secret: readIpcSecret(dir) }, Number.MAX_SAFE_INTEGER));
        resolve(socket);
      } catch (error) {
        socket.destroy();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }).then(async (socket) => {
    const first = await readFirstFrame(socket, IPC_AUTH_TIMEOUT_MS * 2);
    const answer = first.kind === "frame" ? ipcAnswerSchema.safeParse(first.value) : undefined;
    if (answer?.success && answer.data.kind === "ipc.ok") return socket;
    socket.destroy();
    const why =
      first.kind === "none"
        ? first.why
        : answer?.success && answer.data.kind === "ipc.error"
          ? `${answer.data.code}: ${answer.data.message}`
          : "an unexpected first frame";
    throw new Error(`the owner of ${dir} did not accept this relay: ${why}`);
  });
}

export async function runRelay(opts: {
  dir: string;
  input: Readable;
  output: Writable;
  log: StoreLogger;
  /** Frames the executor sent before this relay started (replayed first, e.g. after a takeover). */
  replay?: readonly unknown[];
}): Promise<RelayEnd> {
  const socket = await connectToOwner(opts.dir);
  let lastHello: unknown;
  const fromExecutor = new FrameDecoder();
  for (const frame of opts.replay ?? []) socket.write(encodeFrame(frame, Number.MAX_SAFE_INTEGER));
  return new Promise<RelayEnd>((resolve) => {
    const onData = (chunk: Buffer) => {
      for (const event of fromExecutor.push(chunk)) {
        if (event.kind !== "message") continue; // the owner would drop it too
        if ((event.value as { kind?: unknown } | null)?.kind === "hello") lastHello = event.value;
        socket.write(encodeFrame(event.value, Number.MAX_SAFE_INTEGER));
      }
    };
    let finished = false;
    const finish = (end: RelayEnd) => {
      if (finished) return;
      finished = true;
      // Pause before detaching: a flowing stream without listeners would drop what the executor sends next.
      opts.input.pause();
      opts.input.off("data", onData);
      opts.input.off("end", onEnd);
      if (end.kind === "owner-gone") {
        socket.destroy();
        resolve(end);
        return;
      }
      // The executor's last frames may still sit in the socket's buffer: end (flush, then FIN) instead of destroy,
      // so a report sent right before the browser closed the port still reaches the owner.
      socket.end(() => resolve(end));
    };
    opts.input.on("data", onData);
    const onEnd = () => finish({ kind: "input-ended", why: "eof" });
    opts.input.once("end", onEnd);
    // Owner → executor bytes are already framed by the owner: pass them through untouched.
    socket.on("data", (chunk: Buffer) => opts.output.write(chunk));
    socket.resume(); // connectToOwner left it paused after the handshake
    socket.once("close", () => finish({ kind: "owner-gone", lastHello }));
    socket.once("error", (e) => opts.log.warn(`relay: owner socket error: ${e.message}`));
  });
}
