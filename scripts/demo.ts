// `npm run demo`: an offline demonstration that needs no ChatGPT account. The real extension and native host run in
// Debian's Chromium against the local imitation of chatgpt.com (test/fake-chatgpt/); one worker needs three turns,
// the orchestrator resumes it twice on its own, the worker completes, and the host's durable events print as a
// timeline. Headful when a display exists (DEMO_HEADLESS=1 forces headless).
import { buildExtension, ChromiumE2E, tool } from "../test/e2e/harness.ts";
import { completingTurn, FAST_POLICY, workingTurn } from "../test/e2e/scenario-kit.ts";

interface TimelineEvent {
  seq: number;
  type: string;
  at: number;
  workerId?: string;
  data: Record<string, unknown>;
}

/** One readable line per event a person cares about; the rest (bookkeeping) is left out. */
function describe(e: TimelineEvent): string | undefined {
  const d = e.data;
  const execution = (d.execution ?? {}) as { seq?: number; reason?: string };
  const attempt = `attempt ${execution.seq ?? "?"}`;
  switch (e.type) {
    case "run.created":
      return "run created (Auto Resume on)";
    case "worker.spawned":
      return `worker ${typeof d.path === "string" ? d.path : "?"} spawned`;
    case "execution.scheduled":
      return `${attempt} scheduled (${execution.reason ?? "?"})`;
    case "execution.submitted":
      return `${attempt} submitted to ChatGPT`;
    case "execution.generating":
      return `ChatGPT is generating ${attempt}`;
    case "execution.idle":
      return `${attempt}: turn ended, conversation idle`;
    case "worker.progress":
      return "the assistant reported progress (worker_progress)";
    case "worker.completed":
      return "the assistant reported completion (worker_complete)";
    case "execution.completed":
      return `${attempt} completed`;
    case "run.completed":
      return "run complete: nothing further will be sent";
    default:
      return undefined;
  }
}

const headless = process.env.DEMO_HEADLESS === "1" || !(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
const out = (line: string) => process.stdout.write(`${line}\n`);

out(`Building the extension and starting Chromium (${headless ? "headless" : "on your display"})…`);
const e2e = await ChromiumE2E.start(await buildExtension("chrome"), { headless });
try {
  // The imitation's assistant: two turns that report progress and end "working", then one that completes.
  e2e.fake.setAssistant(async (turn) => {
    if (turn.index <= 2) await workingTurn(turn, `step ${turn.index} of 3`);
    else await completingTurn(turn, "all three steps done");
  });
  const runId = await e2e.createRun({ ...FAST_POLICY, mode: "auto" });
  const workerId = await e2e.spawn(runId, "/root", "a task that needs three turns");
  await e2e.waitWorker(workerId, "the worker to complete", (w) => w.worker.label === "Complete", 120_000);
  await e2e.waitWorker(
    workerId,
    "the last turn to end",
    (w) => w.worker.attempt?.state === "completed" && w.worker.conversation.state === "idle",
  );
  await e2e.fake.settled();

  const { events } = await tool<{ events: TimelineEvent[] }>(e2e.mcp, "events_list", {
    cursor: 0,
    limit: 500,
    runId,
  });
  const start = events[0]?.at ?? 0;
  out("\nTimeline (from the backend's durable event log):");
  for (const e of events) {
    const text = describe(e);
    if (text !== undefined) out(`  +${((e.at - start) / 1000).toFixed(1).padStart(5)} s  ${text}`);
  }
  const worker = await e2e.worker(workerId);
  const typed = e2e.fake.stored().length;
  out(
    `\nResult: ${worker.worker.label}; ${worker.attempts.length} attempts (${worker.attempts.map((a) => a.reason).join(", ")}); ` +
      `${typed} user turns reached the page, all typed by the orchestrator; Retry clicks: ${e2e.fake.clicks("retry")}.`,
  );
  if (worker.attempts.length !== 3 || worker.worker.label !== "Complete") process.exitCode = 1;
} catch (error) {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.stderr.write(`${await e2e.diagnostics()}\n`);
  process.exitCode = 1;
} finally {
  await e2e.close();
}
