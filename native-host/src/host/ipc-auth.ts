// The handshake that opens a session on the owner's IPC socket. The socket sits in the 0700 data directory, and the
// peer's first frame must also carry the secret from ipc.secret (0600), so only the user who owns the data can relay.
import { timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { encodeFrame } from "../bridge/native-framing.ts";
import { IPC_SECRET_FILE } from "../store/owner-lock.ts";
import type { StoreLogger } from "../store/store-types.ts";

/** A peer that has not authenticated by then is refused: an idle connection must not hold a slot forever. */
export const IPC_AUTH_TIMEOUT_MS = 5_000;
/** The handshake frames are ~100 bytes; a larger announced length is refused before anything is buffered. */
const MAX_HANDSHAKE_FRAME_BYTES = 1024;

/** The peer's first frame. */
export const ipcAuthSchema = z
  .object({ kind: z.literal("ipc.auth"), secret: z.string().min(1).max(256) })
  .strict();
/** The owner's answer: `ipc.ok`, after which both sides speak the executor protocol, or one `ipc.error` then close. */
export const ipcAnswerSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("ipc.ok") }).strict(),
  z
    .object({ kind: z.literal("ipc.error"), code: z.literal("IPC_UNAUTHENTICATED"), message: z.string() })
    .strict(),
]);
export type IpcAnswer = z.infer<typeof ipcAnswerSchema>;

/** The current owner's secret, as the file holds it (without the newline). */
export function readIpcSecret(dir: string): string {
  return readFileSync(join(dir, IPC_SECRET_FILE), "utf8").trim();
}

type FirstFrame =
  | { readonly kind: "frame"; readonly value: unknown }
  /** `empty`: the peer closed without sending a byte (a liveness probe such as `uninstall`'s, not an attempt). */
  | { readonly kind: "none"; readonly why: string; readonly empty?: boolean };

/**
 * Reads exactly one frame off `socket`, then pauses it and puts any bytes that followed back, so whoever reads next
 * (the executor session) sees the stream from the second frame on. Resolves "none" on a close, a bad or oversized
 * frame, or when `timeoutMs` passes.
 */
export function readFirstFrame(socket: Socket, timeoutMs: number): Promise<FirstFrame> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    let done = false;
    const finish = (result: FirstFrame, rest?: Buffer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", onError);
      socket.pause();
      if (rest && rest.length > 0) socket.unshift(rest);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length < 4) return;
      const length = buffer.readUInt32LE(0);
      if (length > MAX_HANDSHAKE_FRAME_BYTES) {
        finish({ kind: "none", why: `its first frame announces ${length} bytes` });
        return;
      }
      if (buffer.length < 4 + length) return;
      let value: unknown;
      try {
        value = JSON.parse(buffer.subarray(4, 4 + length).toString("utf8"));
      } catch {
        finish({ kind: "none", why: "its first frame is not JSON" });
        return;
      }
      finish({ kind: "frame", value }, buffer.subarray(4 + length));
    };
    const onEnd = () =>
      finish({ kind: "none", why: "it closed before its first frame", empty: buffer.length === 0 });
    const onError = (e: Error) => finish({ kind: "none", why: `socket error: ${e.message}` });
    const timer = setTimeout(
      () => finish({ kind: "none", why: `no frame within ${timeoutMs} ms` }),
      timeoutMs,
    );
    timer.unref();
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("close", onEnd);
    socket.once("error", onError);
    socket.resume();
  });
}

/**
 * Owner side: resolves true once the peer's first frame carried `expected` (compared in constant time) and `ipc.ok`
 * was sent; otherwise sends one `ipc.error` IPC_UNAUTHENTICATED, ends the connection, logs one line and resolves
 * false.
 * Nothing the peer sent before or with a failed handshake is ever handled.
 */
export async function authenticatePeer(
  socket: Socket,
  expected: Buffer,
  opts: { log: StoreLogger; label: string; timeoutMs?: number },
): Promise<boolean> {
  const first = await readFirstFrame(socket, opts.timeoutMs ?? IPC_AUTH_TIMEOUT_MS);
  let why: string;
  if (first.kind === "none") why = first.why;
  else {
    const parsed = ipcAuthSchema.safeParse(first.value);
    if (!parsed.success) why = "its first frame is not an ipc.auth frame";
    else {
      const given = Buffer.from(parsed.data.secret);
      if (given.length === expected.length && timingSafeEqual(given, expected)) {
        socket.write(encodeFrame({ kind: "ipc.ok" } satisfies IpcAnswer));
        return true;
      }
      why = "wrong secret";
    }
  }
  // A peer that connected and closed without a byte only asked whether the owner answers: worth a line, not a warning.
  if (first.kind === "none" && first.empty === true)
    opts.log.info(`${opts.label}: a peer connected and closed (${why})`);
  else opts.log.warn(`${opts.label}: refused an unauthenticated IPC peer (${why})`);
  const answer: IpcAnswer = {
    kind: "ipc.error",
    code: "IPC_UNAUTHENTICATED",
    message: `the first frame must be {kind:"ipc.auth", secret} with the secret from ${IPC_SECRET_FILE}`,
  };
  // Keep reading (and discarding) until the peer closes: closing on its unread frames would reset the connection,
  // and the peer could lose the error frame to an EPIPE on its own writes. A peer that never closes is cut off.
  socket.on("data", () => undefined);
  socket.resume();
  const cutOff = setTimeout(() => socket.destroy(), IPC_AUTH_TIMEOUT_MS);
  cutOff.unref();
  socket.once("close", () => clearTimeout(cutOff));
  if (socket.writable) socket.end(encodeFrame(answer));
  else socket.destroy();
  return false;
}
