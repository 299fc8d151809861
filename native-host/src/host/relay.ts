// A relay: a host that found the data directory owned. It forwards its executor's frames to the owner's IPC
// socket and back, never opening the database; when the owner goes away it reports so and can take over.
import { realpathSync } from "node:fs";
import { connect, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { encodeFrame, FrameDecoder } from "../bridge/native-framing.ts";
import { ownerLockAddress, resolveLockKind } from "../store/owner-lock.ts";
import type { OwnerLockKind, StoreLogger } from "../store/store-types.ts";

export type RelayEnd =
  | { readonly kind: "input-ended"; readonly why: string }
  | { readonly kind: "owner-gone"; readonly lastHello: unknown };

export function connectToOwner(dir: string, lockKind?: OwnerLockKind): Promise<Socket> {
  const address = ownerLockAddress(realpathSync(dir), resolveLockKind(lockKind));
  return new Promise((resolve, reject) => {
    const socket = connect({ path: address });
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

export async function runRelay(opts: {
  dir: string;
  input: Readable;
  output: Writable;
  log: StoreLogger;
  lockKind?: OwnerLockKind;
  /** Frames the executor sent before this relay started (replayed first, e.g. after a takeover). */
  replay?: readonly unknown[];
}): Promise<RelayEnd> {
  const socket = await connectToOwner(opts.dir, opts.lockKind);
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
    socket.once("close", () => finish({ kind: "owner-gone", lastHello }));
    socket.once("error", (e) => opts.log.warn(`relay: owner socket error: ${e.message}`));
  });
}
