// Single owner per data directory: a second process gets STORE_LOCKED and writes nothing, whatever path (symlink, bind
// mount) or network namespace it comes from; the kernel frees the lock the instant the owner is SIGKILLed; a stale
// socket file is replaced; a fenced-out owner refuses to replace files.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DurableStore, SNAPSHOT_FILE } from "../../native-host/src/store/durable-store.ts";
import { MIGRATIONS } from "../../native-host/src/store/migrations.ts";
import { OWNER_FILE, OWNER_SOCKET_FILE, readOwnerInfo } from "../../native-host/src/store/owner-lock.ts";
import type { StoreOptions } from "../../native-host/src/store/store-types.ts";
import {
  buildChildBundle,
  Child,
  type ChildBundle,
  makeTempDir,
  recordingLogger,
  removeDir,
} from "./helpers.ts";

/** Whether this machine lets us bind-mount in a private mount namespace (root in CI does; elsewhere it may not). */
function canBindMount(): boolean {
  const a = makeTempDir("probe-a");
  const b = makeTempDir("probe-b");
  try {
    return (
      spawnSync("unshare", ["-m", "--propagation", "private", "mount", "--bind", a, b], { stdio: "ignore" })
        .status === 0
    );
  } finally {
    removeDir(a);
    removeDir(b);
  }
}
const BIND_MOUNT = canBindMount();
const NET_NAMESPACE = spawnSync("unshare", ["-n", "true"], { stdio: "ignore" }).status === 0;

let bundle: ChildBundle;
beforeAll(async () => {
  bundle = await buildChildBundle();
});
afterAll(() => bundle.dispose());

describe("owner lock", () => {
  let dir: string;
  const stores: DurableStore[] = [];
  const children: Child[] = [];

  const openStore = async (extra: Partial<StoreOptions> = {}) => {
    const s = await DurableStore.open({ dir, migrations: MIGRATIONS, log: recordingLogger().log, ...extra });
    stores.push(s);
    return s;
  };
  const spawn = (extra: Partial<Parameters<typeof Child.spawn>[1]> = {}, wrapper: readonly string[] = []) => {
    const c = Child.spawn(bundle, { mode: "hold", dir, ...extra }, wrapper);
    children.push(c);
    return c;
  };

  /** Content, size and mtime of every file, owner.json included: a refused opener must not touch anything. */
  function fingerprint(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      const st = statSync(p);
      out[f] = st.isFile()
        ? `${createHash("sha256").update(readFileSync(p)).digest("hex")} ${st.mtimeMs}`
        : "other";
    }
    return out;
  }

  beforeEach(() => {
    dir = makeTempDir("lock");
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill();
    for (const s of stores.splice(0)) await s.close();
    removeDir(dir);
  });

  it("gives a second process STORE_LOCKED naming the directory and the owner pid, and it writes nothing", async () => {
    const owner = spawn();
    await owner.waitLine(/^opened /);
    const before = fingerprint();
    const second = spawn();
    const line = await second.waitLine(/^error /);
    expect((await second.exited).code).toBe(3);
    expect(line).toMatch(/^error STORE_LOCKED /);
    expect(line).toContain(dir);
    expect(line).toContain(`pid ${owner.pid}`);
    expect(fingerprint()).toEqual(before);
    expect(readOwnerInfo(dir)?.pid).toBe(owner.pid);
  });

  it("is free the moment its owner is SIGKILLed", async () => {
    const owner = spawn();
    await owner.waitLine(/^opened 1 /);
    owner.kill();
    await owner.exited;
    const store = await openStore(); // no retry, no stale timeout: the kernel released it
    expect(store.generation).toBe(2);
    expect(readOwnerInfo(dir)).toMatchObject({ pid: process.pid, generation: 2 });
  });

  it("collides for every spelling of the same directory", async () => {
    await openStore();
    const alias = `${dir}-alias`;
    symlinkSync(dir, alias);
    try {
      await expect(DurableStore.open({ dir: alias, migrations: MIGRATIONS })).rejects.toMatchObject({
        code: "STORE_LOCKED",
      });
      await expect(DurableStore.open({ dir: `${dir}/./`, migrations: MIGRATIONS })).rejects.toMatchObject({
        code: "STORE_LOCKED",
      });
    } finally {
      removeDir(alias);
    }
  });

  it(
    BIND_MOUNT
      ? "refuses a second process reaching the directory through a symlink, a bind mount or another network namespace"
      : "refuses a second process reaching the directory through a symlink or another network namespace " +
          "(bind mounts are refused on this machine: that case did not run)",
    async () => {
      if (!BIND_MOUNT) console.warn("owner-lock: mount --bind is refused here; ran the symlink case only");
      const owner = spawn();
      await owner.waitLine(/^opened /);
      const before = fingerprint();
      const refused = async (child: Child, what: string) => {
        expect(await child.waitLine(/^error /), what).toMatch(/^error STORE_LOCKED .*pid \d+/);
        expect((await child.exited).code, what).toBe(3);
      };

      const alias = `${dir}-alias`;
      symlinkSync(dir, alias);
      try {
        await refused(spawn({ dir: alias }), "through a symlink");
      } finally {
        removeDir(alias);
      }
      if (BIND_MOUNT) {
        // The mount exists only in the child's private mount namespace: the path it opens is not our path.
        const mountPoint = `${dir}-mnt`;
        mkdirSync(mountPoint);
        try {
          const bind = [
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            'mount --bind "$0" "$1" && shift && exec "$@"',
            dir,
            mountPoint,
          ];
          await refused(spawn({ dir: mountPoint }, bind), "through a bind mount");
        } finally {
          removeDir(mountPoint);
        }
      }
      if (!NET_NAMESPACE)
        console.warn("owner-lock: unshare -n is refused here; the network namespace case did not run");
      if (NET_NAMESPACE) await refused(spawn({}, ["unshare", "-n"]), "from another network namespace");

      expect(fingerprint()).toEqual(before);
      expect(readOwnerInfo(dir)?.pid).toBe(owner.pid);
    },
  );

  it("removes the stale owner.sock a SIGKILLed owner left, and a clean release removes its own", async () => {
    const owner = spawn();
    await owner.waitLine(/^opened /);
    owner.kill();
    await owner.exited;
    expect(existsSync(join(dir, OWNER_SOCKET_FILE))).toBe(true); // left behind by the crash
    const store = await openStore();
    expect(store.lock.address).toBe(join(dir, OWNER_SOCKET_FILE));
    await store.close();
    stores.splice(0);
    expect(existsSync(join(dir, OWNER_SOCKET_FILE))).toBe(false);
  });

  it("fences a former owner: once owner.json names another generation it refuses to replace files", async () => {
    const log = recordingLogger();
    const store = await openStore({ log: log.log });
    await store.write((tx) => tx.run("INSERT INTO meta (key, value) VALUES ('a', '1')"));
    const info = readOwnerInfo(dir)!;
    writeFileSync(
      join(dir, OWNER_FILE),
      JSON.stringify({ ...info, pid: info.pid + 1, generation: info.generation + 1 }),
    );
    await expect(store.snapshot()).rejects.toMatchObject({ code: "STORE_FENCED" });
    expect(existsSync(join(dir, SNAPSHOT_FILE))).toBe(false);
    expect(readdirSync(dir).some((f) => f.endsWith(".tmp"))).toBe(false);
  });

  it("fails closed after an automatic snapshot is fenced", async () => {
    const log = recordingLogger();
    const store = await openStore({ log: log.log, snapshotAfterBytes: 1024 });
    const info = readOwnerInfo(dir)!;
    writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ ...info, generation: info.generation + 1 }));
    const writes = Array.from({ length: 20 }, (_, i) =>
      store.write((tx) => tx.run("INSERT INTO meta (key, value) VALUES (?, ?)", [`k${i}`, "x".repeat(100)])),
    );
    await Promise.allSettled(writes);
    const deadline = Date.now() + 10_000;
    let error: unknown;
    while (Date.now() < deadline) {
      error = await store
        .write((tx) => tx.run("DELETE FROM meta WHERE key = 'none'"))
        .catch((e: unknown) => e);
      if (error) break;
    }
    expect(error).toMatchObject({ code: "STORE_FAILED" });
    expect(log.warnings.join("\n")).toMatch(/failed closed: .*owner\.json now names/);
  });
});
