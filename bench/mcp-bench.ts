// MCP benchmark (npm run bench:mcp). The server is the real host, `orchestrator serve`, spawned on a temporary data
// directory; the load comes from lean MCP sessions (mcp-lean-client.ts) over loopback keep-alive HTTP, so on a small
// machine the generator does not steal the CPU it is measuring.
//   toolP50Ms / toolP99Ms: tool-call latency at 200 calls/s spread over 50 sessions, paced open-loop for 20 s after a
//     10 s warm-up at the same rate (a fresh host is still being compiled by V8; the warm-up's own p99 is printed too,
//     as warmupToolP99Ms). The mix is an agent's: 40 % worker_get, 30 % events_list (each session follows its
//     worker's events from its own cursor), 30 % worker_progress (a durable write: fsync before the answer).
//     Target p99 ≤ 5 ms.
//   wake200Ms: 200 sessions parked in events_wait; one more session writes (worker_progress); time from the write's
//     start until all 200 waiters have their answer, median of several rounds. Target ≤ 20 ms.
// Printed with the figures: the load average, the fdatasync latency of the data directory's disk (the floor under
// every write), and the CPU per call of the host and of the generator. Then the same load runs against the floor
// (mcp-floor-server.ts: a do-nothing server in its own process), whose figures are the machine's share of the host's:
// loopback, process wake-ups and scheduling. MCP_BENCH_FLOOR=0 skips it.
// Environment: MCP_BENCH_WORKERS (default 10), MCP_BENCH_RATE (calls/s, default 200), MCP_BENCH_SECONDS (counted
// window, default 20), MCP_BENCH_WARMUP_SECONDS (default 10), MCP_BENCH_DIR (data dir parent, default the OS temp
// dir), MCP_BENCH_WAKE_ROUNDS (default 7), MCP_BENCH_ONLY=latency|wake,
// MCP_BENCH_PROFILE=<dir> (CPU profile of the host process: node --cpu-prof).
// The last line printed is one JSON object with the figures.
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { LeanMcpSession, leanPool } from "./mcp-lean-client.ts";

const SESSIONS = 50;
const WORKERS = Number(process.env.MCP_BENCH_WORKERS ?? 10);
const RATE = Number(process.env.MCP_BENCH_RATE ?? 200);
/** The counted window, after the warm-up (both at the full rate). */
const DURATION_MS = Number(process.env.MCP_BENCH_SECONDS ?? 20) * 1000;
/**
 * A freshly started host is still being compiled by V8: under this load its p50 and p99 keep falling for about 10 s
 * (2,000 calls) before they level off, so those calls are a warm-up, measured and printed but not counted.
 */
const WARMUP_MS = Number(process.env.MCP_BENCH_WARMUP_SECONDS ?? 10) * 1000;
const WAITERS = 200;
const WAKE_ROUNDS = Number(process.env.MCP_BENCH_WAKE_ROUNDS ?? 7);
const DATA_PARENT = process.env.MCP_BENCH_DIR ?? tmpdir();
const ROOT = join(import.meta.dirname, "..");

/** The tool of call i, out of every 10: 4 worker_get, 3 events_list, 3 worker_progress, interleaved. */
const MIX = [
  "worker_get",
  "events_list",
  "worker_progress",
  "worker_get",
  "events_list",
  "worker_progress",
  "worker_get",
  "events_list",
  "worker_progress",
  "worker_get",
] as const;
type ToolName = (typeof MIX)[number];

// ------------------------------------------------------------------------------------------------------- the host
interface Host {
  readonly child: ChildProcess;
  readonly url: URL;
  readonly token: string;
  readonly dir: string;
  /** Marks the exit that follows as intended. */
  readonly stopping: () => void;
}

async function startHost(): Promise<Host> {
  const dir = mkdtempSync(join(DATA_PARENT, "orch-mcp-bench-"));
  const profile = process.env.MCP_BENCH_PROFILE;
  const profiling = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(process.execPath, [...profiling, join(ROOT, "bin", "orchestrator.js"), "serve"], {
    cwd: ROOT,
    env: { ...process.env, ORCHESTRATOR_HOME: dir, ORCHESTRATOR_MCP_PORT: "0" },
    // The host logs every command that waits for an executor to stderr: keep only the tail, shown if it dies.
    stdio: ["ignore", "ignore", "pipe"],
  });
  let tail = "";
  child.stderr.on("data", (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-4000)));
  let exit: number | null | undefined;
  let stopping = false;
  child.once("exit", (code, signal) => {
    exit = code;
    if (!stopping)
      console.error(`the host exited unexpectedly (${code ?? signal}); its last words:\n${tail}`);
  });
  const statusPath = join(dir, "status.json");
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exit !== undefined) throw new Error(`the host exited with ${exit} before serving MCP`);
    if (Date.now() > deadline) throw new Error("the host did not publish its MCP URL within 30 s");
    if (existsSync(statusPath)) {
      const status = JSON.parse(readFileSync(statusPath, "utf8")) as { mcpUrl: string | null };
      if (status.mcpUrl) {
        const { token } = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as { token: string };
        return { child, url: new URL(status.mcpUrl), token, dir, stopping: () => (stopping = true) };
      }
    }
    await sleep(20); // polling a file the host writes once; there is no event to wait on
  }
}

async function stopHost(host: Host): Promise<void> {
  if (host.child.exitCode === null && host.child.signalCode === null) {
    const exited = new Promise((resolve) => host.child.once("exit", resolve));
    host.stopping();
    host.child.kill("SIGTERM");
    await exited;
  }
  rmSync(host.dir, { recursive: true, force: true });
}

/** The do-nothing server of mcp-floor-server.ts, in its own process like the host. */
async function startFloor(): Promise<Host> {
  const dir = mkdtempSync(join(DATA_PARENT, "orch-mcp-floor-"));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "mcp-floor-server.ts")],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let stopping = false;
  child.once("exit", (code, signal) => {
    if (!stopping) console.error(`the floor server exited unexpectedly (${code ?? signal})`);
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once("exit", () => reject(new Error("the floor server exited before listening")));
  });
  return {
    child,
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    token: "floor",
    dir,
    stopping: () => (stopping = true),
  };
}

/** CPU time of the host process, all threads (user + system), in ms; Linux /proc, NaN elsewhere. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100) ticks
  } catch {
    return NaN;
  }
}

/** CPU time of the host's main thread (the event loop) in ms, at nanosecond resolution; NaN without schedstat. */
function mainThreadCpuMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return NaN;
  }
}

/**
 * Waits until the host's event loop has gone quiet: under 20 % busy over `windowMs` (taking in a burst of requests
 * keeps it near 100 %; a CPU profiler's own sampling stays well under). Without /proc it cannot tell and returns at
 * once, which only makes the figure that follows more pessimistic (the host may still be taking in requests).
 */
async function hostQuiet(pid: number, windowMs = 50, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let from = { at: performance.now(), cpu: mainThreadCpuMs(pid) };
  while (!Number.isNaN(from.cpu)) {
    await sleep(windowMs); // sampling the host's CPU clock: the condition is the clock (almost) standing still
    const to = { at: performance.now(), cpu: mainThreadCpuMs(pid) };
    if (to.cpu - from.cpu < 0.2 * (to.at - from.at)) return;
    if (to.at > deadline) throw new Error("the host did not go quiet");
    from = to;
  }
}

// ----------------------------------------------------------------------------------------------------- figures
interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summary(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
  };
}

const fmt = (v: number) => `${v.toFixed(2)} ms`;
const line = (label: string, s: Summary) =>
  `  ${label.padEnd(16)} n=${String(s.n).padEnd(5)} p50 ${fmt(s.p50)}  p99 ${fmt(s.p99)}  max ${fmt(s.max)}`;
const round2 = (v: number) => Math.round(v * 100) / 100;
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** fdatasync of a small append on the data directory's disk: every durable write waits at least this long. */
function fsyncFloor(): Summary {
  const dir = mkdtempSync(join(DATA_PARENT, "orch-mcp-bench-fsync-"));
  const fd = openSync(join(dir, "probe"), "w");
  const times: number[] = [];
  try {
    for (let i = 0; i < 100; i++) {
      writeSync(fd, Buffer.alloc(256, i));
      const start = performance.now();
      fdatasyncSync(fd);
      times.push(performance.now() - start);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return summary(times);
}

// -------------------------------------------------------------------------------------------------------- phases
async function openMany(host: Host, n: number, pool = leanPool(host.url)): Promise<LeanMcpSession[]> {
  const out: LeanMcpSession[] = [];
  while (out.length < n) {
    const batch = Math.min(25, n - out.length);
    out.push(
      ...(await Promise.all(
        Array.from({ length: batch }, () => LeanMcpSession.open(pool, host.url, host.token)),
      )),
    );
  }
  return out;
}

/**
 * The paced load. Calls sent in the first WARMUP_MS are the warm-up: their latencies are kept apart (`warmup`) and
 * `onCounting` runs when the first counted call is sent, so CPU can be measured over the counted window alone.
 */
async function latencyPhase(sessions: LeanMcpSession[], workerIds: string[], onCounting: () => void) {
  const byTool = new Map<ToolName, number[]>(MIX.map((t) => [t, []]));
  const all: number[] = [];
  const warmup: number[] = [];
  const lateness: number[] = [];
  const cursors = sessions.map(() => 0);
  const interval = 1000 / RATE;
  const total = Math.round(((DURATION_MS + WARMUP_MS) / 1000) * RATE);
  const pending: Promise<void>[] = [];
  let errors = 0;
  let firstError = "";
  let counting: { at: number; calls: number } | undefined;
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    // Timer-paced (no spinning: a spinning generator would take CPU from the host on a small machine). Latency is
    // measured from the actual send, so a late send does not count against the host.
    if (wait > 0) await sleep(wait);
    const issued = performance.now();
    const counted = issued - start >= WARMUP_MS;
    if (counted && !counting) {
      onCounting();
      counting = { at: issued, calls: total - i };
    }
    if (counted) lateness.push(issued - due);
    const s = i % sessions.length;
    const session = sessions[s]!;
    const workerId = workerIds[s % workerIds.length]!;
    // Rotate the mix over the sessions too, so every session sends every kind of call.
    const tool = MIX[(i + Math.floor(i / sessions.length)) % MIX.length]!;
    const call =
      tool === "worker_get"
        ? session.call(tool, { workerId })
        : tool === "events_list"
          ? session
              .call<{ cursor: number }>(tool, { cursor: cursors[s], workerId, limit: 100 })
              .then((out) => void (cursors[s] = Math.max(cursors[s]!, out.cursor)))
          : session.call(tool, { workerId, summary: `step ${i}` });
    pending.push(
      call.then(
        () => {
          const ms = performance.now() - issued;
          if (!counted) {
            warmup.push(ms);
            return;
          }
          all.push(ms);
          byTool.get(tool)!.push(ms);
        },
        (e: unknown) => {
          if (errors === 0) firstError = String(e);
          errors += 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  const window = counting ?? { at: start, calls: total };
  const elapsed = performance.now() - window.at;
  return {
    all,
    warmup,
    byTool,
    lateness,
    errors,
    firstError,
    calls: window.calls,
    achievedRps: window.calls / (elapsed / 1000),
  };
}

async function wakePhase(host: Host, writer: LeanMcpSession, workerId: string) {
  const waiters = await openMany(host, WAITERS);
  const all: number[] = [];
  const firsts: number[] = [];
  const writeReturned: number[] = [];
  const hostCpu: number[] = [];
  const pid = host.child.pid!;
  for (let round = 0; round < WAKE_ROUNDS; round++) {
    // Catch up to the newest event so every waiter really parks.
    let cursor = 0;
    for (;;) {
      const page = await writer.call<{ events: unknown[]; cursor: number }>("events_list", {
        cursor,
        limit: 500,
      });
      if (page.events.length === 0) break;
      cursor = page.cursor;
    }
    const ends: number[] = [];
    const failed: { error?: Error } = {};
    const check = () => {
      if (failed.error) throw failed.error;
    };
    const answers = waiters.map((w) =>
      w.call<{ timedOut: boolean; events: unknown[] }>("events_wait", { cursor, timeoutMs: 20_000 }).then(
        (out) => {
          ends.push(performance.now());
          if (out.timedOut || out.events.length === 0) failed.error ??= new Error("a waiter timed out");
        },
        (e: unknown) => void (failed.error ??= e instanceof Error ? e : new Error(String(e))),
      ),
    );
    await hostQuiet(pid);
    check();
    if (ends.length > 0)
      throw new Error(`${ends.length} waiters answered before the event: they did not park`);
    const cpu0 = mainThreadCpuMs(pid);
    const t0 = performance.now();
    await writer.call("worker_progress", { workerId, summary: `wake ${round}` });
    writeReturned.push(performance.now() - t0);
    await Promise.all(answers);
    check();
    hostCpu.push(mainThreadCpuMs(pid) - cpu0);
    all.push(Math.max(...ends) - t0);
    firsts.push(Math.min(...ends) - t0);
  }
  await Promise.all(waiters.map((w) => w.close()));
  return { all, firsts, writeReturned, hostCpu };
}

/** What one server did under the load: lines already printed, figures for the JSON line. */
async function measure(
  host: Host,
  only: string | undefined,
  prefix: string,
): Promise<Record<string, number>> {
  const pid = host.child.pid!;
  const figures: Record<string, number> = {};
  const sessions = await openMany(host, SESSIONS);
  const { run } = await sessions[0]!.call<{ run: { id: string } }>("run_create", { name: "bench" });
  await sessions[0]!.call("worker_spawn", { runId: run.id, path: "/root", objective: "bench" });
  const workerIds: string[] = [];
  for (let i = 0; i < WORKERS; i++) {
    const out = await sessions[i % SESSIONS]!.call<{ worker: { id: string } }>("worker_spawn", {
      runId: run.id,
      path: `/root/w${i}`,
      objective: `w${i}`,
    });
    workerIds.push(out.worker.id);
  }
  const key = (name: string) => (prefix ? prefix + name[0]!.toUpperCase() + name.slice(1) : name);

  if (only !== "wake") {
    let before = { host: 0, loop: 0, own: 0 };
    const lat = await latencyPhase(sessions, workerIds, () => {
      before = { host: processCpuMs(pid), loop: mainThreadCpuMs(pid), own: ownCpuMs() };
    });
    const perCall = (a: number, b: number) => ((b - a) * 1000) / lat.calls;
    const hostUs = perCall(before.host, processCpuMs(pid));
    const loopUs = perCall(before.loop, mainThreadCpuMs(pid));
    const genUs = perCall(before.own, ownCpuMs());
    const all = summary(lat.all);
    const late = summary(lat.lateness);
    const warm = summary(lat.warmup);
    console.log(
      line(`first ${WARMUP_MS / 1000} s`, warm) + "  (warm-up after the server started, not counted)",
    );
    console.log(line("all", all));
    for (const [tool, values] of lat.byTool) console.log(line(tool, summary(values)));
    console.log(
      `  achieved ${lat.achievedRps.toFixed(1)} calls/s, send lateness p99 ${fmt(late.p99)}, errors ${lat.errors}`,
    );
    console.log(
      `  CPU per call: server ${hostUs.toFixed(0)} µs (event loop ${loopUs.toFixed(0)} µs), generator ${genUs.toFixed(0)} µs`,
    );
    if (lat.errors > 0) console.log(`  first error: ${lat.firstError}`);
    const get = summary(lat.byTool.get("worker_get")!);
    const list = summary(lat.byTool.get("events_list")!);
    const write = summary(lat.byTool.get("worker_progress")!);
    Object.assign(figures, {
      [key("toolP50Ms")]: round2(all.p50),
      [key("toolP99Ms")]: round2(all.p99),
      [key("toolMaxMs")]: round2(all.max),
      [key("toolErrors")]: lat.errors,
      [key("warmupToolP99Ms")]: round2(warm.p99),
    });
    if (!prefix) {
      Object.assign(figures, {
        readP50Ms: round2(get.p50),
        readP99Ms: round2(get.p99),
        listP50Ms: round2(list.p50),
        listP99Ms: round2(list.p99),
        writeP50Ms: round2(write.p50),
        writeP99Ms: round2(write.p99),
        achievedRps: round2(lat.achievedRps),
        hostCpuUsPerCall: Math.round(hostUs),
        hostLoopCpuUsPerCall: Math.round(loopUs),
        generatorCpuUsPerCall: Math.round(genUs),
      });
    }
  }

  if (only !== "latency") {
    console.log(
      `  wake: ${WAITERS} sessions parked in events_wait, then one worker_progress; ${WAKE_ROUNDS} rounds`,
    );
    const wake = await wakePhase(host, sessions[0]!, workerIds[0]!);
    const all = summary(wake.all);
    const writeMs = summary(wake.writeReturned);
    console.log(`  all ${WAITERS} answered after (ms): ${wake.all.map((v) => v.toFixed(1)).join(", ")}`);
    console.log(`  first answer after (ms):    ${wake.firsts.map((v) => v.toFixed(1)).join(", ")}`);
    console.log(`  the write itself (ms):      ${wake.writeReturned.map((v) => v.toFixed(1)).join(", ")}`);
    console.log(`  server event-loop CPU (ms): ${wake.hostCpu.map((v) => v.toFixed(1)).join(", ")}`);
    console.log(`  median ${fmt(all.p50)}, worst ${fmt(all.max)}`);
    Object.assign(figures, { [key("wake200Ms")]: round2(all.p50), [key("wake200WorstMs")]: round2(all.max) });
    if (!prefix) {
      Object.assign(figures, {
        wakeFirstMs: round2(summary(wake.firsts).p50),
        wakeWriteMs: round2(writeMs.p50),
        wakeHostCpuMs: round2(summary(wake.hostCpu).p50),
      });
    }
  }
  await Promise.all(sessions.map((s) => s.close()));
  return figures;
}

async function main(): Promise<void> {
  const only = process.env.MCP_BENCH_ONLY;
  const load = loadavg().map((v) => v.toFixed(2));
  const floor = fsyncFloor();
  console.log(
    `machine: load average ${load.join(" ")}; fdatasync in ${DATA_PARENT}: p50 ${fmt(floor.p50)}, p99 ${fmt(floor.p99)}`,
  );
  console.log(
    `load: ${SESSIONS} sessions, ${WORKERS} workers, ${RATE} calls/s for ${DURATION_MS / 1000} s ` +
      `after a ${WARMUP_MS / 1000} s warm-up; mix 40 % worker_get, 30 % events_list (own cursor, one worker), ` +
      `30 % worker_progress (durable write)`,
  );
  const figures: Record<string, number> = {};
  const measureServer = async (title: string, start: () => Promise<Host>, prefix: string) => {
    console.log(title);
    const server = await start();
    try {
      Object.assign(figures, await measure(server, only, prefix));
    } finally {
      await stopHost(server);
    }
  };
  await measureServer("the host (orchestrator serve):", startHost, "");
  if (process.env.MCP_BENCH_FLOOR !== "0") {
    // The same load against a server that does nothing: how much of the figures above the machine itself takes.
    await measureServer(
      "the floor (a do-nothing server in its own process, same load: loopback and wake-ups only):",
      startFloor,
      "floor",
    );
  }
  // One verdict line per target measured, with the floor's figure beside it.
  const verdict = (
    label: string,
    value: number | undefined,
    target: number,
    floorValue: number | undefined,
  ) => {
    if (value === undefined) return;
    const floorNote = floorValue === undefined ? "" : `; the floor's ${fmt(floorValue)}`;
    console.log(
      `${label} ${fmt(value)} (target ≤ ${target} ms: ${value <= target ? "met" : "MISSED"})${floorNote}`,
    );
  };
  verdict("tool p99", figures.toolP99Ms, 5, figures.floorToolP99Ms);
  if (figures.warmupToolP99Ms !== undefined) {
    console.log(`  (in the ${WARMUP_MS / 1000} s warm-up, not counted: p99 ${fmt(figures.warmupToolP99Ms)})`);
  }
  verdict("wake200", figures.wake200Ms, 20, figures.floorWake200Ms);
  console.log(
    JSON.stringify({
      ...figures,
      workers: WORKERS,
      rate: RATE,
      loadAvg1m: Number(load[0]),
      fsyncP50Ms: round2(floor.p50),
      fsyncP99Ms: round2(floor.p99),
    }),
  );
}

await main();
