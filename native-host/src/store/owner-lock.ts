// Single owner per data directory: an OS file lock on `owner.lock` that the kernel drops when the process dies
// (SIGKILL included), plus a generation counter in owner.json that every later rename checks (fencing), so a former
// owner can never clobber files. The owner then opens the IPC endpoint relays reach it on (see ipcAddress).
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-file.ts";
import { StoreError } from "./store-error.ts";

export const OWNER_FILE = "owner.json";
export const OWNER_LOCK_FILE = "owner.lock";
export const OWNER_SOCKET_FILE = "owner.sock";
/** 32 random bytes (hex), rewritten by every new owner; a relay proves it is the same user by sending it first. */
export const IPC_SECRET_FILE = "ipc.secret";

/**
 * fs-native-extensions (holepunch): a maintained N-API addon with prebuilt binaries for Linux, macOS and Windows.
 * Its tryLock is a non-blocking exclusive lock on the whole file: an open-file-description lock (F_OFD_SETLK) on
 * Linux, flock on macOS, LockFileEx on Windows. All three belong to the file (its inode), not to the path it was
 * opened by or to a namespace, and conflict between two descriptors even inside one process. Loaded with require():
 * it is CommonJS and finds its prebuilt binary relative to its own files (the host bundle ships them beside it).
 */
const fileLocks = createRequire(import.meta.url)("fs-native-extensions") as { tryLock(fd: number): boolean };

/** sun_path holds 108 bytes on Linux and 104 on macOS (with its terminating NUL); stay clear of both. */
const MAX_SOCKET_PATH_BYTES = 100;

export interface OwnerInfo {
  pid: number;
  generation: number;
  startedAt: string;
}

export interface OwnerLock {
  readonly dir: string;
  /** What `net.connect({ path })` takes to reach the owner: the IPC endpoint relays connect to. */
  readonly address: string;
  /** The listening IPC server. Unref'ed: holding the lock does not keep the process alive. */
  readonly server: Server;
  /** The secret this owner wrote to ipc.secret (hex, as bytes): what a peer's first frame must carry. */
  readonly secret: Buffer;
  /** This owner's generation, as written to owner.json. */
  readonly generation: number;
  /**
   * Hands every IPC connection (also those that arrived before this call, held until now) to `handler`. Set once,
   * by the host, after the store opened: a relay that connected during recovery waits instead of being refused.
   */
  serve(handler: (socket: Socket) => void): void;
  /** Throws STORE_FENCED unless owner.json still names this process and generation. */
  assertOwner(): void;
  release(): Promise<void>;
}

/**
 * Where the owner of `dir` listens. Linux and macOS: the socket file `owner.sock` inside the (0700) data directory,
 * so only users who can enter the directory can reach it, through whatever path or namespace they see it by. A path
 * too long for sun_path falls back to a private per-user directory under the temp directory, the socket named from
 * the data directory's device and inode (every spelling of it agrees). Windows: a named pipe named from its path.
 * With `create`, makes the private temp directory if needed; either way refuses one that is not ours and 0700.
 */
export function ipcAddress(dir: string, opts: { create?: boolean } = {}): string {
  const real = realpathSync(dir);
  if (process.platform === "win32") {
    const hash = createHash("sha256").update(real.toLowerCase()).digest("hex").slice(0, 32);
    return `\\\\.\\pipe\\chatgpt-orchestrator-${hash}`;
  }
  const inDir = join(real, OWNER_SOCKET_FILE);
  if (Buffer.byteLength(inDir) <= MAX_SOCKET_PATH_BYTES) return inDir;
  const st = statSync(real, { bigint: true });
  const hash = createHash("sha256").update(`${st.dev}:${st.ino}`).digest("hex").slice(0, 16);
  const address = join(privateTempDir(opts.create === true), `${hash}.sock`);
  if (Buffer.byteLength(address) > MAX_SOCKET_PATH_BYTES)
    throw new Error(`cannot place the IPC socket for ${dir}: even ${address} is too long for a Unix socket`);
  return address;
}

/** `<tmp>/orch-<uid>`, mode 0700, owned by us: checked with lstat so a symlink or someone else's directory is refused. */
function privateTempDir(create: boolean): string {
  const uid = process.getuid?.() ?? -1;
  const path = join(tmpdir(), `orch-${uid}`);
  if (create) {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const st = lstatSync(path);
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o777) !== 0o700) {
    throw new Error(
      `refusing ${path} for the IPC socket: it must be a directory owned by uid ${uid} with mode 0700 ` +
        `(it is ${st.isDirectory() ? "a directory" : "not a directory"} of uid ${st.uid}, mode ` +
        `${(st.mode & 0o777).toString(8)}); remove it or use a shorter data directory path`,
    );
  }
  return path;
}

export async function acquireOwnerLock(dir: string): Promise<OwnerLock> {
  // O_CLOEXEC is Node's default: a child process never inherits (and so never prolongs) the lock.
  const fd = openSync(join(dir, OWNER_LOCK_FILE), constants.O_RDWR | constants.O_CREAT, 0o600);
  let locked: boolean;
  try {
    locked = fileLocks.tryLock(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!locked) {
    closeSync(fd);
    throw lockedError(dir);
  }
  // From here on this process is the only one that can get this far for this directory (whatever path it used).
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  try {
    const previous = readOwnerInfo(dir);
    const info: OwnerInfo = {
      pid: process.pid,
      generation: (previous?.generation ?? 0) + 1,
      startedAt: new Date().toISOString(),
    };
    await writeFileAtomic(join(dir, OWNER_FILE), [Buffer.from(`${JSON.stringify(info)}\n`)]);
    // A fresh secret per owner, on disk before anyone can connect: a relay reads it, then connects.
    const secret = Buffer.from(randomBytes(32).toString("hex"));
    await writeFileAtomic(join(dir, IPC_SECRET_FILE), [secret, Buffer.from("\n")]);
    const address = ipcAddress(dir, { create: true });
    // A socket file left by an owner that died can only be removed by the next lock holder: no race.
    if (process.platform !== "win32") rmSync(address, { force: true });
    server = await listen(address);
    // The directory is 0700 already; the socket's own mode also shuts out other users if it is not.
    if (process.platform !== "win32") chmodSync(address, 0o600);
    server.unref();
    return makeLock(dir, fd, address, server, sockets, secret, info.generation);
  } catch (error) {
    if (server) await closeServer(server, sockets);
    closeSync(fd); // drops the lock
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
  fd: number,
  address: string,
  server: Server,
  sockets: Set<Socket>,
  secret: Buffer,
  generation: number,
): OwnerLock {
  const ownerPath = join(dir, OWNER_FILE);
  let released: Promise<void> | undefined;
  let handler: ((socket: Socket) => void) | undefined;
  const waiting: Socket[] = [];
  // Whoever serves here may leave connections open; release must not wait for them.
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    if (handler) handler(socket);
    else waiting.push(socket);
  });
  return {
    dir,
    address,
    server,
    secret,
    generation,
    serve(h) {
      handler = h;
      for (const socket of waiting.splice(0)) if (!socket.destroyed) h(socket);
    },
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
      // The server goes first (closing it unlinks the socket file), the lock last: the next owner's socket is never
      // removed by us.
      released ??= closeServer(server, sockets).finally(() => closeSync(fd));
      return released;
    },
  };
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

function listen(address: string): Promise<Server> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path: address, exclusive: true }, () => {
      server.off("error", reject);
      resolve(server);
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
