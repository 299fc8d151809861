// `npm run demo`: an offline demonstration that needs no ChatGPT account. The real extension and native host run in
// Debian's Chromium against the local imitation of chatgpt.com (test/fake-chatgpt/). First the zero-setup mode: a
// person's own conversation is adopted from the toolbar popup and kept going on its continuation-state block, no MCP
// connector. Then the MCP mode: an agent spawns a worker that needs three turns. Each part prints the host's durable
// events as a timeline; while the demo waits, a progress line appears at least every 2 s (scripts/demo-output.ts).
// Headful when a display exists (DEMO_HEADLESS=1 forces headless).
import { buildExtension, ChromiumE2E, tool, type WorkerOut } from "../test/e2e/harness.ts";
import { block, completingTurn, FAST_POLICY, workingTurn } from "../test/e2e/scenario-kit.ts";
import { personalConversation, popupFor, workerOf } from "../test/e2e/zero-setup-kit.ts";
import { waitFor } from "../test/wait-for.ts";
import { DemoOutput } from "./demo-output.ts";

interface TimelineEvent {
  seq: number;
  type: string;
  at: number;
  workerId?: string;
  data: Record<string, unknown>;
}

type Mode = "zero-setup" | "mcp";

/** One readable line per event a person cares about; the rest (bookkeeping) is left out. */
function describe(e: TimelineEvent, mode: Mode): string | undefined {
  const d = e.data;
  const execution = (d.execution ?? {}) as { seq?: number; reason?: string };
  const attempt = `attempt ${execution.seq ?? "?"}`;
  switch (e.type) {
    case "run.created":
      return mode === "mcp" ? "run created (Auto Resume on)" : "run created for the conversation";
    case "worker.spawned":
      return d.adopted === true
        ? `worker ${typeof d.path === "string" ? d.path : "?"} adopted the conversation (Auto Resume on)`
        : `worker ${typeof d.path === "string" ? d.path : "?"} spawned`;
    case "execution.scheduled":
      return `${attempt} scheduled (${execution.reason ?? "?"})`;
    case "execution.submitted":
      return `${attempt} submitted to ChatGPT`;
    case "execution.generating":
      return `ChatGPT is generating ${attempt}`;
    case "execution.idle":
      return `${attempt}: turn ended, conversation idle`;
    case "worker.progress":
      return mode === "mcp"
        ? "the assistant reported progress (worker_progress)"
        : "the answer's continuation-state block says: working";
    case "worker.completed":
      return mode === "mcp"
        ? "the assistant reported completion (worker_complete)"
        : "the answer's continuation-state block says: complete";
    case "execution.completed":
      return `${attempt} completed`;
    case "run.completed":
      return "run complete: nothing further will be sent";
    default:
      return undefined;
  }
}

/** The worker's state in a few words, for the progress lines. */
function stateOf(w: WorkerOut | undefined): string | undefined {
  if (w === undefined) return undefined;
  const attempt = w.worker.attempt ? ` · attempt ${w.worker.attempt.seq} ${w.worker.attempt.state}` : "";
  return `${w.worker.label}${attempt} · conversation ${w.worker.conversation.state}`;
}

const headless = process.env.DEMO_HEADLESS === "1" || !(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
const out = new DemoOutput((text) => process.stdout.write(text));
/** The state last printed per worker: a state is printed once, when the worker reaches it. */
const printedStates = new Map<string, string | undefined>();

/** Waits until the worker satisfies `ok`, printing each new state it passes through. */
async function watch(e2e: ChromiumE2E, workerId: string, what: string, ok: (w: WorkerOut) => boolean) {
  let latest: WorkerOut | undefined;
  return out.waiting(
    what,
    () =>
      waitFor(
        async () => {
          latest = await e2e.worker(workerId);
          const state = stateOf(latest);
          if (state !== printedStates.get(workerId)) out.line(`  state: ${state}`);
          printedStates.set(workerId, state);
          return ok(latest) ? latest : undefined;
        },
        what,
        120_000,
        250,
      ),
    () => stateOf(latest),
  );
}

async function timeline(e2e: ChromiumE2E, runId: string, mode: Mode): Promise<void> {
  const { events } = await tool<{ events: TimelineEvent[] }>(e2e.mcp, "events_list", {
    cursor: 0,
    limit: 500,
    runId,
  });
  const start = events[0]?.at ?? 0;
  out.line("  Timeline (from the backend's durable event log):");
  for (const e of events) {
    const text = describe(e, mode);
    if (text !== undefined) out.line(`    +${((e.at - start) / 1000).toFixed(1).padStart(5)} s  ${text}`);
  }
}

/** Zero-setup mode: a person's conversation, adopted from the toolbar popup; its block is the only signal. */
async function zeroSetup(e2e: ChromiumE2E): Promise<boolean> {
  out.line("");
  out.line(
    "1. Zero-setup mode (no MCP connector): a person's own conversation, kept going from the toolbar popup",
  );
  e2e.fake.setAssistant(async (turn) => {
    if (turn.index === 1) return turn.say("Here is a plan in three steps.");
    if (turn.index <= 3)
      return turn.say(`Step ${turn.index - 1} done.\n\n${block("working", `step ${turn.index - 1} of 3`)}`);
    return turn.say(`All three steps are done.\n\n${block("complete", "the migration plan is written")}`);
  });
  const message = "Plan the database migration. Work in three steps.";
  out.line(`  a person opens chatgpt.com and sends by hand: "${message}"`);
  const { page, conversationId } = await out.waiting("the person's message to be answered", () =>
    personalConversation(e2e, message),
  );
  const objective = "finish the migration plan";
  out.line(
    `  in the toolbar popup they type the objective "${objective}" and press "Keep this conversation going"`,
  );
  const popup = await out.waiting("the toolbar popup", async () => {
    const opened = await popupFor(e2e, page);
    await opened.getByTestId("adopt-objective").fill(objective);
    await opened.getByTestId("adopt-button").click();
    return opened;
  });
  const workerId = await out.waiting("the adopted worker", () =>
    waitFor(() => workerOf(e2e, conversationId).catch(() => undefined), "the adopted worker", 30_000, 250),
  );
  const shown = popup.getByTestId("current-tab");
  const name = await out.waiting("the popup to show the worker", async () => {
    await shown.getByTestId("worker-objective").waitFor();
    return shown.locator("h3").first().textContent();
  });
  out.line(`  the popup shows the worker "${name ?? "?"}" with its objective "${objective}"`);
  out.line(
    "  from here on nobody types: each answer ends with a continuation-state block, and the orchestrator",
  );
  out.line("  sends the next turn by itself while the block says working");
  const done = await watch(e2e, workerId, "the worker to complete", (w) => w.worker.label === "Complete");
  await watch(e2e, workerId, "the last turn to end", (w) => w.worker.attempt?.state === "completed");
  await out.waiting("the page to settle", () => e2e.fake.settled());
  await timeline(e2e, done.worker.runId, "zero-setup");
  const typed = e2e.fake.stored(conversationId).length;
  out.line(
    `  Zero-setup result: ${done.worker.label}; ${done.attempts.length} turns sent by the orchestrator ` +
      `(${done.attempts.map((a) => a.reason).join(", ")}) into the person's conversation, which now holds ` +
      `${typed} user turns; new chats opened: ${e2e.fake.conversations.size - 1}.`,
  );
  await popup.close();
  return done.worker.label === "Complete" && done.attempts.length === 3 && e2e.fake.conversations.size === 1;
}

/** MCP mode: an agent (here the demo, over MCP) spawns a worker in a run of its own; it opens its own chat. */
async function mcpMode(e2e: ChromiumE2E): Promise<boolean> {
  out.line("");
  out.line(
    "2. MCP mode: an agent creates a run and spawns a worker (worker_spawn); it opens its own conversation",
  );
  // The imitation's assistant: two turns that report progress and end "working", then one that completes.
  e2e.fake.setAssistant(async (turn) => {
    if (turn.index <= 2) await workingTurn(turn, `step ${turn.index} of 3`);
    else await completingTurn(turn, "all three steps done");
  });
  const runId = await e2e.createRun({ ...FAST_POLICY, mode: "auto" });
  const workerId = await e2e.spawn(runId, "/root", "a task that needs three turns");
  await watch(e2e, workerId, "the worker to complete", (w) => w.worker.label === "Complete");
  await watch(
    e2e,
    workerId,
    "the last turn to end",
    (w) => w.worker.attempt?.state === "completed" && w.worker.conversation.state === "idle",
  );
  await out.waiting("the page to settle", () => e2e.fake.settled());
  await timeline(e2e, runId, "mcp");
  const worker = await e2e.worker(workerId);
  const typed = e2e.fake.stored(await e2e.conversationOf(workerId)).length;
  out.line(
    `  MCP result: ${worker.worker.label}; ${worker.attempts.length} attempts (${worker.attempts.map((a) => a.reason).join(", ")}); ` +
      `${typed} user turns reached its conversation, all typed by the orchestrator; Retry clicks: ${e2e.fake.clicks("retry")}.`,
  );
  return worker.attempts.length === 3 && worker.worker.label === "Complete";
}

out.line(`Building the extension and starting Chromium (${headless ? "headless" : "on your display"})…`);
const e2e = await out.waiting("the build and Chromium", async () =>
  ChromiumE2E.start(await buildExtension("chrome"), { headless }),
);
out.line("Chromium is running with the extension; the imitation of chatgpt.com answers in place of ChatGPT.");
try {
  const zero = await zeroSetup(e2e);
  const mcp = await mcpMode(e2e);
  out.line("");
  out.line(
    zero && mcp
      ? "Both modes kept their conversation going to completion without anyone typing a continuation."
      : "The demo did not end as expected; see above.",
  );
  if (!zero || !mcp) process.exitCode = 1;
} catch (error) {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.stderr.write(`${await e2e.diagnostics()}\n`);
  process.exitCode = 1;
} finally {
  out.line("Closing Chromium…");
  await out.waiting("Chromium to close", () => e2e.close());
  out.close();
}
