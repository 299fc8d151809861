// Only the user who owns the data directory can open a session on the owner's IPC socket: a process of another uid
// cannot reach it at all, and a same-uid peer without the secret from ipc.secret gets one IPC_UNAUTHENTICATED frame,
// is closed and changes nothing (no welcome, no commands, no writes), with one log line per refused peer.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder } from "../../native-host/src/bridge/native-framing.ts";
import { ipcAddress } from "../../native-host/src/store/owner-lock.ts";
import { PROTOCOL_VERSION } from "../../shared/native-messages.ts";
import { removeHome, tempHome } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

const AS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

/** What an intruder would send once connected: a hello (to be offered commands), a token read, a forged result. */
const INTRUSION = [
  {
    kind: "hello",
    protocolVersion: PROTOCOL_VERSION,
    executorId: "intruder",
    browser: "chromium",
    extensionVersion: "0.1.0",
    bindings: [],
    journal: [],
  },
  { kind: "ui.request", requestId: "steal", op: "host_settings", params: { reveal: true } },
  { kind: "ui.request", requestId: "rotate", op: "host_token_rotate", params: {} },
  { kind: "ui.request", requestId: "write", op: "run_create", params: { name: "intruder" } },
];

/** Runs as another uid: tries to read the secrets and to connect, then reports what happened as one JSON line. */
const OTHER_UID_SCRIPT = `
import { connect } from "node:net";
import { readFileSync } from "node:fs";
const [address, home, frames] = process.argv.slice(2);
const out = { received: 0 };
for (const name of ["ipc.secret", "config.json"]) {
  try { readFileSync(home + "/" + name); out[name] = "read"; } catch (e) { out[name] = e.code; }
}
const frame = (m) => { const b = Buffer.from(JSON.stringify(m)); const h = Buffer.alloc(4); h.writeUInt32LE(b.length); return Buffer.concat([h, b]); };
const finish = () => { process.stdout.write(JSON.stringify(out) + "\\n"); process.exit(0); };
const socket = connect({ path: address });
socket.on("error", (e) => { out.connect = e.code; finish(); });
socket.on("connect", () => {
  out.connect = "connected";
  socket.write(frame({ kind: "ipc.auth", secret: "0".repeat(64) }));
  for (const f of JSON.parse(frames)) socket.write(frame(f));
});
socket.on("data", (c) => { out.received += c.length; });
socket.on("close", finish);
setTimeout(finish, 10000); // a deadline, so a regression cannot hang the test
`;

interface Peer {
  readonly received: unknown[];
  closed: boolean;
}

/** A same-uid peer on the owner's socket that opens with `first` (or nothing), then sends the intrusion frames. */
function rawPeer(address: string, first: unknown[]): Peer {
  const peer: Peer = { received: [], closed: false };
  const socket = connect({ path: address });
  const decoder = new FrameDecoder();
  socket.on("connect", () => {
    for (const f of [...first, ...INTRUSION]) socket.write(encodeFrame(f, Number.MAX_SAFE_INTEGER));
  });
  socket.on("data", (chunk: Buffer) => {
    for (const event of decoder.push(chunk)) if (event.kind === "message") peer.received.push(event.value);
  });
  socket.on("error", () => undefined); // the owner closing first may reset our writes
  socket.on("close", () => {
    peer.closed = true;
  });
  return peer;
}

describe("the owner's IPC socket", () => {
  const homes: string[] = [];
  const exts: ScriptedExtension[] = [];
  afterEach(async () => {
    for (const ext of exts.splice(0)) {
      ext.closeStdin();
      await ext.exited;
    }
    homes.splice(0).forEach(removeHome);
  });

  /** The owner (a browser's host) with one run, and what must not change. */
  async function ownerWithState(): Promise<{
    home: string;
    ext: ScriptedExtension;
    state: () => Promise<string>;
  }> {
    const home = tempHome();
    homes.push(home);
    const ext = ScriptedExtension.spawn({ home, executorId: "owner-browser" });
    exts.push(ext);
    await ext.hello();
    await ext.ui("run_create", { name: "mine" });
    await waitFor(() => existsSync(join(home, "config.json")), "config.json");
    const state = async () =>
      JSON.stringify({
        runs: await ext.ui("run_list", {}),
        workers: await ext.ui("worker_list", {}),
        config: readFileSync(join(home, "config.json"), "utf8"),
        commands: ext.commands.length,
      });
    return { home, ext, state };
  }

  it(
    AS_ROOT
      ? "refuses a process of another uid: it can neither connect nor read the secrets, and nothing changes"
      : "refuses a process of another uid (not root here, so no other uid to switch to: this case did not run)",
    { timeout: 60_000 },
    async () => {
      if (!AS_ROOT) {
        console.warn("ipc-auth: not running as root; the other-uid case did not run");
        return;
      }
      const { home, state } = await ownerWithState();
      const before = await state();
      const scriptDir = mkdtempSync(join(tmpdir(), "orch-other-uid-"));
      try {
        chmodSync(scriptDir, 0o755);
        const script = join(scriptDir, "intruder.mjs");
        writeFileSync(script, OTHER_UID_SCRIPT, { mode: 0o644 });
        const child = spawn(
          "setpriv",
          [
            `--reuid=${NOBODY}`,
            `--regid=${NOBODY}`,
            "--clear-groups",
            process.execPath,
            script,
            ipcAddress(home),
            home,
            JSON.stringify(INTRUSION),
          ],
          { cwd: scriptDir, stdio: ["ignore", "pipe", "pipe"] },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
        child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
        const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
        expect(code, stderr).toBe(0);
        const out = JSON.parse(stdout) as Record<string, unknown>;
        expect(out).toEqual({
          "ipc.secret": "EACCES",
          "config.json": "EACCES",
          connect: "EACCES",
          received: 0,
        });
      } finally {
        rmSync(scriptDir, { recursive: true, force: true });
      }
      expect(await state()).toBe(before);
    },
  );

  it(
    "gives a same-uid peer without the secret, or with a wrong one, one IPC_UNAUTHENTICATED frame and closes it",
    { timeout: 60_000 },
    async () => {
      const { home, state } = await ownerWithState();
      const before = await state();
      const address = ipcAddress(home);
      const noAuth = rawPeer(address, []);
      const wrong = rawPeer(address, [{ kind: "ipc.auth", secret: "0".repeat(64) }]);
      await waitFor(() => noAuth.closed && wrong.closed, "the owner to close both peers");
      for (const peer of [noAuth, wrong]) {
        expect(peer.received).toHaveLength(1); // no welcome, no ui.response, no command
        expect(peer.received[0]).toMatchObject({ kind: "ipc.error", code: "IPC_UNAUTHENTICATED" });
      }
      const log = join(home, "logs", "host.log");
      const refusals = () =>
        readFileSync(log, "utf8")
          .split("\n")
          .filter((l) => l.includes("refused an unauthenticated IPC peer"));
      await waitFor(() => refusals().length >= 2, "the refusals in host.log");
      expect(refusals()).toHaveLength(2);
      expect(refusals().join("\n")).toMatch(
        /not an ipc\.auth frame[\s\S]*wrong secret|wrong secret[\s\S]*not an ipc\.auth/,
      );
      expect(await state()).toBe(before);
    },
  );

  it("logs a peer that connects and closes without a byte (a liveness probe) as info, not as a refusal", async () => {
    const { home } = await ownerWithState();
    await new Promise<void>((resolve, reject) => {
      const probe = connect({ path: ipcAddress(home) });
      probe.once("connect", () => {
        probe.destroy();
        resolve();
      });
      probe.once("error", reject);
    });
    const lines = () => readFileSync(join(home, "logs", "host.log"), "utf8").split("\n");
    await waitFor(
      () => lines().some((l) => l.includes("a peer connected and closed")),
      "the probe's log line",
    );
    const line = lines().find((l) => l.includes("a peer connected and closed"))!;
    expect(line).toContain(" INFO ");
    expect(lines().filter((l) => l.includes("refused an unauthenticated IPC peer"))).toEqual([]);
  });
});
