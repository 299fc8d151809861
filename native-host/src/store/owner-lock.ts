// Single owner per data directory: an OS-level lock the kernel drops when the process dies (SIGKILL included), plus a
// generation counter in owner.json that every later rename checks (fencing), so a former owner can never clobber files.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { realpath, rm } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-file.ts";
import { StoreError } from "./store-error.ts";
import type { OwnerLockKind } from "./store-types.ts";

export const OWNER_FILE = "owner.json";
export const OWNER_SOCKET_FILE = "owner.sock";

export interface OwnerInfo {
  pid: number;
  generation: number;
  startedAt: string;
}

export type ResolvedLockKind = Exclude<OwnerLockKind, "auto">;

export interface OwnerLock {
  readonly dir: string;
  readonly kind: ResolvedLockKind;
  /** What `net.connect({ path })` takes to reach the owner (the IPC relay of a later issue listens here). */
  readonly address: string;
  /** The listening server that embodies the lock. Unref'ed: holding the lock does not keep the process alive. */
  readonly server: Server;
  /** This owner's generation, as written to owner.json. */
  readonly generation: number;
  /** Throws STORE_FENCED unless owner.json still names this process and generation. */
  assertOwner(): void;
  release(): Promise<void>;
}

/**
 * Linux: a socket in the abstract namespace (no file; gone the instant the process dies).
 * Windows: a named pipe (same property). Elsewhere (macOS): a socket file in the directory, with stale detection.
 */
export function resolveLockKind(kind: OwnerLockKind = "auto", platform = process.platform): ResolvedLockKind {
  if (kind !== "auto") return kind;
  if (platform === "linux") return "abstract-socket";
  if (platform === "win32") return "named-pipe";
  return "socket-file";
}

/** The lock's address for a directory, named from a hash of its real path so every spelling of it collides. */
export function ownerLockAddress(realDir: string, kind: ResolvedLockKind): string {
  const key = process.platform === "win32" || process.platform === "darwin" ? realDir.toLowerCase() : realDir;
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 32);
  switch (kind) {
    case "abstract-socket":
      return `\0chatgpt-orchestrator-${hash}`;
    case "named-pipe":
      return `\\\\.\\pipe\\chatgpt-orchestrator-${hash}`;
    case "socket-file": {
      const inDir = join(realDir, OWNER_SOCKET_FILE);
      // sun_path holds ~104 bytes on macOS; a deep data directory falls back to the temp directory.
      return Buffer.byteLength(inDir) <= 100 ? inDir : join(tmpdir(), `chatgpt-orchestrator-${hash}.sock`);
    }
  }
}

export async function acquireOwnerLock(dir: string, kind: OwnerLockKind = "auto"): Promise<OwnerLock> {
  const real = await realpath(dir);
  const resolved = resolveLockKind(kind);
  const address = ownerLockAddress(real, resolved);
  const server = await listenExclusively(address, resolved, dir);
  server.unref();
  // Whoever serves on the lock later (the IPC relay) may leave connections open; release must not wait for them.
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  try {
    const previous = readOwnerInfo(dir);
    const info: OwnerInfo = {
      pid: process.pid,
      generation: (previous?.generation ?? 0) + 1,
      startedAt: new Date().toISOString(),
    };
    await writeFileAtomic(join(dir, OWNER_FILE), [Buffer.from(`${JSON.stringify(info)}\n`)]);
    return makeLock(dir, resolved, address, server, sockets, info.generation);
  } catch (error) {
    await closeServer(server, sockets);
    throw error;
  }
}

/** owner.json, or undefined if absent. Throws STORE_CORRUPT if present but unreadable (it is replaced atomically). */
export function readOwnerInfo(dir: string): OwnerInfo | undefined {
  const path = join(dir, OWNER_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const parsed = parseOwnerInfo(text);
  if (parsed === undefined) {
    throw new StoreError(
      "STORE_CORRUPT",
      `${path} is not a valid owner record: ${JSON.stringify(text.slice(0, 80))}`,
      {
        path,
      },
    );
  }
  return parsed;
}

function parseOwnerInfo(text: string): OwnerInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<OwnerInfo> | null;
    if (
      v !== null &&
      typeof v === "object" &&
      Number.isSafeInteger(v.pid) &&
      Number.isSafeInteger(v.generation) &&
      typeof v.startedAt === "string"
    ) {
      return v as OwnerInfo;
    }
    return undefined;
  } catch {
    // Not JSON at all: the caller turns `undefined` into a STORE_CORRUPT error naming the file.
    return undefined;
  }
}

function makeLock(
  dir: string,
  kind: ResolvedLockKind,
  address: string,
  server: Server,
  sockets: Set<Socket>,
  generation: number,
): OwnerLock {
  const ownerPath = join(dir, OWNER_FILE);
  let released: Promise<void> | undefined;
  return {
    dir,
    kind,
    address,
    server,
    generation,
    assertOwner() {
      let current: OwnerInfo | undefined;
      try {
        current = readOwnerInfo(dir);
      } catch (error) {
        throw new StoreError("STORE_FENCED", `cannot confirm ownership: ${(error as Error).message}`, {
          path: ownerPath,
          cause: error,
        });
      }
      if (current?.pid !== process.pid || current.generation !== generation) {
        throw new StoreError(
          "STORE_FENCED",
          `${ownerPath} now names pid ${current?.pid ?? "none"} generation ${current?.generation ?? "none"}, ` +
            `not this process (pid ${process.pid} generation ${generation}); refusing to write`,
          { path: ownerPath },
        );
      }
    },
    release() {
      released ??= closeServer(server, sockets);
      return released;
    },
  };
}

async function listenExclusively(address: string, kind: ResolvedLockKind, dir: string): Promise<Server> {
  for (let attempt = 0; ; attempt++) {
    const server = createServer();
    try {
      await listen(server, address);
      return server;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    }
    // A socket file survives a crash; if nobody answers on it, it is stale. (Abstract sockets and pipes cannot be.)
    if (kind === "socket-file" && attempt < 3 && !(await answers(address))) {
      await rm(address, { force: true });
      continue;
    }
    throw lockedError(dir);
  }
}

function lockedError(dir: string): StoreError {
  let owner: string;
  try {
    const info = readOwnerInfo(dir);
    owner = info ? `pid ${info.pid}, generation ${info.generation}, since ${info.startedAt}` : "pid unknown";
  } catch (error) {
    owner = `pid unknown: ${(error as Error).message}`;
  }
  return new StoreError(
    "STORE_LOCKED",
    `data directory ${dir} is owned by another running process (${owner}); ` +
      "only one process may open it, others must relay through the owner",
    { path: dir },
  );
}

function listen(server: Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path: address, exclusive: true }, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Whether something accepts connections on `address` (a live owner) or not (a stale socket file). */
function answers(address: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path: address });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      socket.destroy();
      if (error.code === "ECONNREFUSED" || error.code === "ENOENT") resolve(false);
      else reject(error);
    });
  });
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve, reject) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close((error) => (error ? reject(error) : resolve()));
  });
}
