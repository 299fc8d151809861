// `orchestrator native-host` (what the browser launches) and `orchestrator serve` (no browser).
import type { Readable, Writable } from "node:stream";
import type { StoreLogger } from "../store/store-types.ts";
import { type OwnerHandle, type OwnerOptions, startOwner } from "./owner.ts";
import { runRelay } from "./relay.ts";

export interface HostRunOptions extends OwnerOptions {
  readonly input: Readable;
  readonly output: Writable;
}

/**
 * Serves the browser's port until it closes: as the owner if the data directory is free, otherwise as a
 * relay to the owner; a relay whose owner goes away takes over and replays the executor's hello.
 */
export async function runNativeHost(opts: HostRunOptions): Promise<number> {
  let replay: unknown;
  for (let round = 0; round < 20; round++) {
    const owner = await startOwner(opts);
    if (owner !== "locked") {
      opts.log.info(`owner of ${opts.dir} (pid ${process.pid})`);
      const stream = owner.serveStream(opts.input, opts.output, "browser");
      if (replay !== undefined) stream.inject(replay);
      const why = await stream.ended;
      opts.log.info(`executor port ended (${why}); shutting down`);
      await owner.close();
      return 0;
    }
    opts.log.info(`${opts.dir} is owned by another process: relaying`);
    const end = await runRelay({
      dir: opts.dir,
      input: opts.input,
      output: opts.output,
      log: opts.log,
      ...(replay !== undefined ? { replay: [replay] } : {}),
    }).catch((e: unknown) => {
      // The owner vanished between our lock attempt and the connect: try to own again.
      opts.log.warn(`relay could not connect: ${String(e)}`);
      return { kind: "owner-gone" as const, lastHello: replay };
    });
    if (end.kind === "input-ended") return 0;
    // A relay that lost its owner before its executor said anything (a second takeover, or an owner that was
    // closing when it connected) has no newer hello: keep the one it replayed, or the next owner never learns which
    // executor this is (status would list no browser while the popup shows Live).
    replay = end.lastHello ?? replay;
  }
  opts.log.warn("gave up: the data directory kept changing owner");
  return 1;
}

/** Runs the backend in the foreground until SIGINT/SIGTERM. */
export async function runServe(
  opts: OwnerOptions & {
    log: StoreLogger;
    onReady?: (owner: Pick<OwnerHandle, "mcpUrl" | "mcpError">) => void;
    /** Called instead of a log line when another live process owns the data directory. */
    onLocked?: () => void;
  },
): Promise<number> {
  const owner = await startOwner(opts);
  if (owner === "locked") {
    if (opts.onLocked) opts.onLocked();
    else opts.log.warn(`another process already owns ${opts.dir}`);
    return 1;
  }
  opts.onReady?.(owner);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await owner.close();
  return 0;
}
