// MCP benchmark (npm run bench:mcp). The host (Backend + MCP server) runs in a child process, as in production; the
// official SDK clients run here, over real loopback HTTP.
//   toolP50Ms / toolP99Ms: tool-call latency at 200 calls/s spread over 50 sessions, worker_get (read-only) and
//     worker_progress (a durable write) alternating, paced open-loop for 10 s after a 1 s warm-up. Target p99 ≤ 5 ms.
//   wake200Ms: 200 sessions parked in events_wait; one client writes (worker_progress); time from the write's start
//     until all 200 waiters have their answer, median of several rounds. Target ≤ 20 ms.
// Context printed with the figures: the load average (other work on the machine inflates everything) and the
// fdatasync latency of the data directory's disk, the floor under every write (architecture §5: durable before reply).
// Environment: MCP_BENCH_WORKERS (default 10), MCP_BENCH_RATE (calls/s, default 200), MCP_BENCH_DIR (data dir parent,
// default the OS temp dir), MCP_BENCH_WAKE_ROUNDS (default 7),
// MCP_BENCH_ONLY=latency|wake, MCP_BENCH_PROFILE=<dir> (CPU profile of the host process).
// The last line printed is one JSON object with the figures.
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const SESSIONS = 50;
const WORKERS = Number(process.env.MCP_BENCH_WORKERS ?? 10);
const RATE = Number(process.env.MCP_BENCH_RATE ?? 200);
const DURATION_MS = 10_000;
const WARMUP_MS = 1_000;
const WAITERS = 200;
const WAKE_ROUNDS = Number(process.env.MCP_BENCH_WAKE_ROUNDS ?? 7);
const DATA_PARENT = process.env.MCP_BENCH_DIR ?? tmpdir();

interface Stats {
  sessions: number;
  inflightCalls: number;
  /** CPU time the host process has used so far (user + system), in ms. */
  cpuMs: number;
}
type FromHost = { kind: "ready"; url: string; token: string } | { kind: "stats"; stats: Stats };

// ------------------------------------------------------------------------------------------------------ host process
async function serve(): Promise<void> {
  const { Backend } = await import("../native-host/src/backend/backend.ts");
  const { startMcpServer } = await import("../native-host/src/mcp/mcp-server.ts");
  const { OPERATIONS } = await import("../native-host/src/operations/all-operations.ts");
  const dir = mkdtempSync(join(DATA_PARENT, "orch-mcp-bench-"));
  const log = { warn: (m: string) => console.error(`[host] ${m}`), info: () => undefined };
  const backend = await Backend.open({ dir, log });
  const token = randomBytes(32).toString("hex");
  const server = await startMcpServer({
    backend,
    operations: OPERATIONS,
    port: 0,
    token,
    log,
    maxSessions: 2_000,
  });
  const send = (m: FromHost) => process.send!(m);
  process.on("message", (m: { kind: string }) => {
    if (m.kind === "stats") {
      const cpu = process.cpuUsage();
      send({ kind: "stats", stats: { ...server.stats(), cpuMs: (cpu.user + cpu.system) / 1000 } });
    } else if (m.kind === "stop") {
      void (async () => {
        try {
          await server.close();
          await backend.close();
        } catch (e) {
          console.error(`[host] shutdown: ${String(e)}`);
        }
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      })();
    }
  });
  send({ kind: "ready", url: server.url, token });
}

// ---------------------------------------------------------------------------------------------------- client process
class Host {
  private readonly waiting: ((s: Stats) => void)[] = [];

  constructor(readonly child: ChildProcess) {
    child.on("message", (m: FromHost) => {
      if (m.kind === "stats") this.waiting.shift()?.(m.stats);
    });
  }

  stats(): Promise<Stats> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.send({ kind: "stats" });
    });
  }

  async until(condition: (s: Stats) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition(await this.stats())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    }
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.send({ kind: "stop" });
    await exited;
  }
}

async function startHost(): Promise<{ host: Host; url: string; token: string }> {
  const profile = process.env.MCP_BENCH_PROFILE;
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], {
    execArgv: ["--import", "tsx", ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [])],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    child.once("message", (m: FromHost) =>
      m.kind === "ready" ? resolve(m) : reject(new Error("unexpected hello")),
    );
    child.once("exit", (code) => reject(new Error(`host exited with ${code}`)));
  });
  return { host: new Host(child), ...ready };
}

async function connect(url: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "mcp-bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function connectMany(url: string, token: string, n: number): Promise<Client[]> {
  const out: Client[] = [];
  while (out.length < n) {
    const batch = Math.min(25, n - out.length);
    out.push(...(await Promise.all(Array.from({ length: batch }, () => connect(url, token)))));
  }
  return out;
}

async function tool<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) {
    const first = result.content[0];
    throw new Error(`${name}: ${first?.type === "text" ? first.text : "error"}`);
  }
  return result.structuredContent as T;
}

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
  `  ${label.padEnd(6)} n=${String(s.n).padEnd(5)} p50 ${fmt(s.p50)}  p99 ${fmt(s.p99)}  max ${fmt(s.max)}`;
const round2 = (v: number) => Math.round(v * 100) / 100;

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

async function latencyPhase(clients: Client[], workerIds: string[]) {
  const reads: number[] = [];
  const writes: number[] = [];
  const lateness: number[] = [];
  const interval = 1000 / RATE;
  const total = Math.round(((DURATION_MS + WARMUP_MS) / 1000) * RATE);
  const pending: Promise<void>[] = [];
  let errors = 0;
  let firstError = "";
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait - 1));
    while (performance.now() < due) {
      // spin the last millisecond for an even pace
    }
    const issued = performance.now();
    const counted = issued - start >= WARMUP_MS;
    if (counted) lateness.push(issued - due);
    const client = clients[i % clients.length]!;
    const workerId = workerIds[i % workerIds.length]!;
    const write = i % 2 === 1;
    pending.push(
      (write
        ? tool(client, "worker_progress", { workerId, summary: `step ${i}` })
        : tool(client, "worker_get", { workerId })
      ).then(
        () => {
          if (counted) (write ? writes : reads).push(performance.now() - issued);
        },
        (e: unknown) => {
          if (errors === 0) firstError = String(e);
          errors += 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  const elapsed = performance.now() - start;
  return { reads, writes, lateness, errors, firstError, achievedRps: total / (elapsed / 1000) };
}

async function wakePhase(url: string, token: string, host: Host, writer: Client, workerId: string) {
  const waiters = await connectMany(url, token, WAITERS);
  const all: number[] = [];
  const firsts: number[] = [];
  const writeReturned: number[] = [];
  for (let round = 0; round < WAKE_ROUNDS; round++) {
    // Catch up to the newest event so every waiter really parks.
    let cursor = 0;
    for (;;) {
      const page = await tool<{ events: unknown[]; cursor: number }>(writer, "events_list", {
        cursor,
        limit: 500,
      });
      if (page.events.length === 0) break;
      cursor = page.cursor;
    }
    const ends: number[] = [];
    const answers = waiters.map((c) =>
      tool<{ timedOut: boolean }>(c, "events_wait", { cursor, timeoutMs: 20_000 }).then((out) => {
        ends.push(performance.now());
        if (out.timedOut) throw new Error("a waiter timed out");
      }),
    );
    await host.until((s) => s.inflightCalls >= WAITERS, `${WAITERS} parked waits`);
    const t0 = performance.now();
    await tool(writer, "worker_progress", { workerId, summary: `wake ${round}` });
    writeReturned.push(performance.now() - t0);
    await Promise.all(answers);
    all.push(Math.max(...ends) - t0);
    firsts.push(Math.min(...ends) - t0);
  }
  await Promise.all(waiters.map((c) => c.close()));
  return { all, firsts, writeReturned };
}

async function main(): Promise<void> {
  // Each SDK client hands its transport's one AbortSignal to every fetch; undici keeps a listener per request until
  // the request is collected, which trips Node's leak warning on a long run. Not a leak of ours; silence it.
  setMaxListeners(0);
  const only = process.env.MCP_BENCH_ONLY;
  const load = loadavg().map((v) => v.toFixed(2));
  const floor = fsyncFloor();
  console.log(
    `machine: load average ${load.join(" ")}; fdatasync in ${DATA_PARENT}: p50 ${fmt(floor.p50)}, p99 ${fmt(floor.p99)}`,
  );
  const { host, url, token } = await startHost();
  const figures: Record<string, number | string> = {};
  try {
    const clients = await connectMany(url, token, SESSIONS);
    const { run } = await tool<{ run: { id: string } }>(clients[0]!, "run_create", { name: "bench" });
    await tool(clients[0]!, "worker_spawn", { runId: run.id, path: "/root", objective: "bench" });
    const workerIds: string[] = [];
    for (let i = 0; i < WORKERS; i++) {
      const out = await tool<{ worker: { id: string } }>(clients[i % SESSIONS]!, "worker_spawn", {
        runId: run.id,
        path: `/root/w${i}`,
        objective: `w${i}`,
      });
      workerIds.push(out.worker.id);
    }

    if (only !== "wake") {
      console.log(
        `tool latency: ${SESSIONS} sessions, ${WORKERS} workers, ${RATE} calls/s for ${DURATION_MS / 1000} s ` +
          `(+${WARMUP_MS} ms warm-up), worker_get / worker_progress alternating`,
      );
      const cpuBefore = (await host.stats()).cpuMs;
      const lat = await latencyPhase(clients, workerIds);
      const cpuAfter = (await host.stats()).cpuMs;
      const all = summary([...lat.reads, ...lat.writes]);
      const reads = summary(lat.reads);
      const writes = summary(lat.writes);
      const late = summary(lat.lateness);
      const calls = Math.round(((DURATION_MS + WARMUP_MS) / 1000) * RATE);
      const cpuPerCall = ((cpuAfter - cpuBefore) * 1000) / calls;
      console.log(line("all", all));
      console.log(line("read", reads));
      console.log(line("write", writes));
      console.log(
        `  achieved ${lat.achievedRps.toFixed(1)} calls/s, send lateness p99 ${fmt(late.p99)}, errors ${lat.errors}, ` +
          `host CPU ${cpuPerCall.toFixed(0)} µs/call`,
      );
      if (lat.errors > 0) console.log(`  first error: ${lat.firstError}`);
      console.log(`  target p99 ≤ 5 ms: ${all.p99 <= 5 ? "met" : "MISSED"}`);
      Object.assign(figures, {
        toolP50Ms: round2(all.p50),
        toolP99Ms: round2(all.p99),
        toolMaxMs: round2(all.max),
        readP50Ms: round2(reads.p50),
        readP99Ms: round2(reads.p99),
        writeP50Ms: round2(writes.p50),
        writeP99Ms: round2(writes.p99),
        achievedRps: round2(lat.achievedRps),
        toolErrors: lat.errors,
        hostCpuUsPerCall: Math.round(cpuPerCall),
      });
    }

    if (only !== "latency") {
      console.log(
        `wake: ${WAITERS} sessions parked in events_wait, then one worker_progress; ${WAKE_ROUNDS} rounds`,
      );
      const wake = await wakePhase(url, token, host, clients[0]!, workerIds[0]!);
      const all = summary(wake.all);
      const writeMs = summary(wake.writeReturned);
      console.log(`  all ${WAITERS} answered after (ms): ${wake.all.map((v) => v.toFixed(1)).join(", ")}`);
      console.log(`  first answer after (ms):    ${wake.firsts.map((v) => v.toFixed(1)).join(", ")}`);
      console.log(`  the write itself (ms):      ${wake.writeReturned.map((v) => v.toFixed(1)).join(", ")}`);
      console.log(
        `  median ${fmt(all.p50)}, worst ${fmt(all.max)}; target ≤ 20 ms: ${all.p50 <= 20 ? "met" : "MISSED"}`,
      );
      Object.assign(figures, {
        wake200Ms: round2(all.p50),
        wake200WorstMs: round2(all.max),
        wakeFirstMs: round2(summary(wake.firsts).p50),
        wakeWriteMs: round2(writeMs.p50),
      });
    }
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await host.stop();
  }
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

if (process.argv.includes("--serve")) {
  await serve();
} else {
  await main();
}
