// @vitest-environment happy-dom
// Continue in a new conversation in the views (docs/ui.md, "Continue in a new conversation"): the drill-down's and the
// overlay's button asks in place before it calls worker_new_conversation and is gone for an ended worker or while a move
// is under way; the "Moving to a new conversation" line in every view; the drill-down's chain of conversations with
// links, reasons and brief sources; the rollover events in words; the length limit's remedy; axe-core throughout.
import { afterEach, describe, expect, it } from "vitest";
import { Overlay } from "../../extension/content/overlay/overlay-view.tsx";
import { Dashboard } from "../../extension/dashboard/dashboard-view.tsx";
import { Popup } from "../../extension/popup/popup-view.tsx";
import { clockShort } from "../../extension/ui/liveness-words.ts";
import { livenessOf } from "../../shared/liveness.ts";
import type { ConversationLink, WorkerView } from "../../shared/operations/views.ts";
import {
  autoResume,
  byTestId,
  expectAccessible,
  mount,
  NOW,
  run,
  ScriptedBackground,
  settle,
  status,
  until,
  worker,
} from "./ui-kit.ts";

afterEach(() => {
  document.body.innerHTML = "";
});

const URL_1 = "https://chatgpt.com/c/6800f3a1-0000-8000-9000-000000000001";
const URL_2 = "https://chatgpt.com/g/g-p-abc-billing/c/6800f3a1-0000-8000-9000-000000000002";
const URL_3 = "https://chatgpt.com/c/6800f3a1-0000-8000-9000-000000000003";
const LEFT_1 = NOW - 3_600_000;
const LEFT_2 = NOW - 600_000;

const CHAIN: ConversationLink[] = [
  {
    index: 1,
    url: URL_1,
    conversationId: "6800f3a1-0000-8000-9000-000000000001",
    leftAt: LEFT_1,
    trigger: "length_limit",
    note: null,
    turns: 41,
    visibleChars: 310_000,
    brief: { source: "page", chars: 1_240 },
  },
  {
    index: 2,
    url: URL_2,
    conversationId: "6800f3a1-0000-8000-9000-000000000002",
    leftAt: LEFT_2,
    trigger: "operator",
    note: null,
    turns: 7,
    visibleChars: null,
    brief: { source: "composed", chars: 2_050 },
  },
  {
    index: 3,
    url: URL_3,
    conversationId: "6800f3a1-0000-8000-9000-000000000003",
    leftAt: null,
    trigger: null,
    note: null,
    turns: 2,
    visibleChars: 9_000,
    brief: null,
  },
];

const EVENTS = [
  {
    seq: 20,
    type: "worker.rollover_requested",
    at: LEFT_2 - 5_000,
    data: { trigger: "operator", phase: "brief_requested" },
  },
  {
    seq: 21,
    type: "worker.rolled_over",
    at: LEFT_2,
    data: {
      trigger: "operator",
      from: URL_2,
      to: URL_3,
      conversation: 3,
      briefSource: "composed",
      briefChars: 2_050,
    },
  },
];

const moving = (
  phase: "brief_requested" | "opening",
  trigger: NonNullable<WorkerView["rollover"]>["trigger"] = "length_limit",
): WorkerView["rollover"] => ({
  phase,
  trigger,
  note: null,
  since: NOW - 2_000,
  briefDeadlineAt: phase === "brief_requested" ? NOW + 598_000 : null,
});

/** The dashboard with one run of `workers`, the first one's drill-down open. */
async function drillDown(
  workers: WorkerView[],
  conversations: ConversationLink[] = CHAIN,
): Promise<{ root: HTMLElement; bg: ScriptedBackground; drill: () => HTMLElement }> {
  const bg = new ScriptedBackground();
  bg.answer("run_list", { runs: [run()] });
  bg.answer("run_get", { run: run(), workers });
  bg.answer("ui_worker_detail", (p: Record<string, unknown>) => ({
    worker: workers.find((w) => w.id === p.workerId),
    attempts: [],
    events: EVENTS,
    conversations,
  }));
  bg.answer("worker_new_conversation", { worker: null, rollover: "started" });
  const root = mount(<Dashboard client={bg.client} now={() => NOW} />);
  await until(() => byTestId(root, "drill-down").length === workers.length, "worker rows");
  byTestId(root, "drill-down")[0]!.click();
  await until(() => byTestId(root, "events").length === 1, "the drill-down");
  return { root, bg, drill: () => byTestId(root, "drill")[0]! };
}

describe("Continue in a new conversation in the dashboard's drill-down", () => {
  it("asks in place first; only Yes calls worker_new_conversation; Cancel and Escape call nothing", async () => {
    const w = worker("Working");
    const { root, bg, drill } = await drillDown([w]);
    const opener = () => byTestId(drill(), "new-conversation")[0]!;
    expect(opener().textContent).toBe("Continue in a new conversation…");
    opener().click();
    await settle();
    expect(bg.callsOf("worker_new_conversation")).toHaveLength(0);
    const question = drill().querySelector<HTMLElement>('[role="group"].warn')!;
    expect(question.textContent).toContain("ChatGPT will be asked once for a handoff brief");
    expect(question.textContent).toContain(
      "a new conversation opens where this one is and the work continues there",
    );
    expect(question.textContent).toContain("the old conversation stays open, no longer managed");
    // Focus starts on Cancel, the safe choice; Cancel calls nothing and gives focus back to the opener.
    expect(document.activeElement?.textContent).toBe("Cancel");
    await expectAccessible(root);
    byTestId(drill(), "confirm-cancel")[0]!.click();
    await settle();
    expect(document.activeElement).toBe(opener());
    opener().click();
    await settle();
    document.activeElement!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await settle();
    expect(byTestId(drill(), "new-conversation-confirm")).toHaveLength(0);
    expect(bg.callsOf("worker_new_conversation")).toHaveLength(0);
    opener().click();
    await until(() => byTestId(drill(), "new-conversation-confirm").length === 1, "the question");
    expect(byTestId(drill(), "new-conversation-confirm")[0]!.textContent).toBe(
      "Yes, continue in a new conversation",
    );
    byTestId(drill(), "new-conversation-confirm")[0]!.click();
    await until(() => bg.callsOf("worker_new_conversation").length === 1, "the call");
    expect(bg.callsOf("worker_new_conversation")).toEqual([{ workerId: w.id }]);
    await until(() => byTestId(drill(), "new-conversation-confirm").length === 0, "the question to close");
  });

  it("shows the host's refusal next to the confirmation", async () => {
    const { bg, drill } = await drillDown([worker("Idle")]);
    bg.refuse("worker_new_conversation", "CONFLICT", "a move to a new conversation is under way already");
    byTestId(drill(), "new-conversation")[0]!.click();
    await until(() => byTestId(drill(), "new-conversation-confirm").length === 1, "the question");
    byTestId(drill(), "new-conversation-confirm")[0]!.click();
    await until(() => drill().querySelector('[role="alert"]') !== null, "the refusal");
    expect(drill().querySelector('[role="alert"]')!.textContent).toBe(
      "a move to a new conversation is under way already",
    );
  });

  it("is not offered for an ended worker, nor while a move is under way, which a line says in words", async () => {
    const ended = await drillDown([worker("Complete")]);
    expect(byTestId(ended.drill(), "new-conversation")).toHaveLength(0);
    expect(byTestId(ended.drill(), "rollover-line")).toHaveLength(0);

    const asking = worker("Working", { rollover: moving("brief_requested") });
    const opening = worker("Resuming", { id: "w-opening", rollover: moving("opening", "operator") });
    const { root, drill } = await drillDown([asking, opening]);
    expect(byTestId(drill(), "new-conversation")).toHaveLength(0);
    expect(byTestId(drill(), "rollover-line")[0]!.textContent).toContain(
      "Moving to a new conversation: asking for a handoff brief (length limit reached)",
    );
    // The table's rows say it too.
    const row = (id: string) =>
      root.querySelector<HTMLElement>(`[data-testid="worker-row"][data-worker-id="${id}"]`)!;
    expect(byTestId(row("w-opening"), "rollover-line")[0]!.textContent).toContain(
      "Moving to a new conversation: opening the new conversation (asked by you)",
    );
    byTestId(root, "drill-down")[1]!.click();
    await until(() => byTestId(drill(), "rollover-line")[0]?.dataset.phase === "opening", "the other worker");
    expect(byTestId(drill(), "new-conversation")).toHaveLength(0);
    await expectAccessible(root);
  });
});

describe("the chain of conversations in the drill-down", () => {
  it("links each conversation, says when, why and with which brief each was left, and its turns", async () => {
    const w = worker("Working", { conversation: { ...worker("Working").conversation, url: URL_3 } });
    const { root, bg, drill } = await drillDown([w]);
    expect(byTestId(drill(), "chain-summary")[0]!.textContent).toBe("Conversation 1 → 2 → 3");
    const items = byTestId(drill(), "conversation");
    expect(items.map((li) => li.dataset.index)).toEqual(["1", "2", "3"]);
    // A conversation the worker left opens in a new tab of its own, never in place of the worker's tab.
    const links = byTestId(drill(), "conversation-link") as HTMLAnchorElement[];
    expect(links.map((a) => a.getAttribute("href"))).toEqual([URL_1, URL_2]);
    expect(links.map((a) => a.target)).toEqual(["_blank", "_blank"]);
    expect(links.map((a) => a.rel)).toEqual(["noreferrer", "noreferrer"]);
    expect(links[0]!.textContent).toBe("Conversation 1 (opens in a new tab)");
    expect(items[0]!.textContent).toContain("41 turns · 310,000 chars");
    expect(byTestId(items[0]!, "conversation-left")[0]!.textContent).toBe(
      ` · left ${clockShort(LEFT_1)} — length limit reached; brief: written by the worker, 1,240 chars`,
    );
    expect(items[1]!.textContent).toContain("7 turns");
    expect(byTestId(items[1]!, "conversation-left")[0]!.textContent).toBe(
      ` · left ${clockShort(LEFT_2)} — asked by you; brief: composed from the worker's record, 2,050 chars`,
    );
    // The current one is opened like every Open conversation: its tab brought forward, or its address opened.
    expect(items[2]!.textContent).toContain("2 turns · 9,000 chars");
    expect(byTestId(items[2]!, "conversation-left")).toHaveLength(0);
    const current = byTestId(items[2]!, "conversation-open")[0]!;
    expect(current.textContent).toBe("Conversation 3 (current)");
    current.click();
    expect(bg.other).toContainEqual({ type: "open-conversation", workerId: w.id, url: URL_3 });
    await expectAccessible(root);
  });

  it("the event trail says the rollover events in words", async () => {
    const { drill } = await drillDown([worker("Working")]);
    const trail = [...byTestId(drill(), "events")[0]!.querySelectorAll("li")].map((li) => li.textContent);
    expect(trail[0]).toContain(
      "Move to a new conversation requested (asked by you): asking for a handoff brief",
    );
    expect(trail[1]).toContain(
      "Moved to conversation 3 (asked by you); brief: composed from the worker's record, 2,050 chars",
    );
  });

  it("a worker that never moved has a chain of one; an older host's answer without a chain shows none", async () => {
    const one = await drillDown([worker("Working")], [{ ...CHAIN[2]!, index: 1 }]);
    expect(byTestId(one.drill(), "chain-summary")[0]!.textContent).toBe("Conversation 1");
    expect(byTestId(one.drill(), "conversation-link")).toHaveLength(0);
    const none = await drillDown([worker("Working")], []);
    expect(byTestId(none.drill(), "conversation-chain")).toHaveLength(0);
    expect(byTestId(none.drill(), "new-conversation")).toHaveLength(1);
  });
});

describe("the length limit's remedy", () => {
  it("Continue in a new conversation in the worker's controls asks first, then calls worker_new_conversation", async () => {
    const w = worker("Needs you", { wait: null, liveness: livenessOf("conversation_too_long", NOW - 1000) });
    const bg = new ScriptedBackground();
    bg.answer("run_list", { runs: [run()] }).answer("run_get", { run: run(), workers: [w] });
    bg.answer("worker_new_conversation", { worker: null, rollover: "started" });
    const root = mount(<Dashboard client={bg.client} now={() => NOW} />);
    await until(() => byTestId(root, "worker-row").length === 1, "row");
    const row = byTestId(root, "worker-row")[0]!;
    expect(byTestId(row, "remedy-text")[0]!.textContent).toBe(
      "Continue the work in a new conversation, or Stop the worker.",
    );
    expect(byTestId(row, "new-conversation")).toHaveLength(1);
    byTestId(row, "new-conversation")[0]!.click();
    await settle();
    expect(bg.callsOf("worker_new_conversation")).toHaveLength(0);
    byTestId(row, "new-conversation-confirm")[0]!.click();
    await until(() => bg.callsOf("worker_new_conversation").length === 1, "the call");
    expect(bg.callsOf("worker_new_conversation")).toEqual([{ workerId: w.id }]);
    await expectAccessible(root);
  });

  it("is not offered again while the move it started is under way", async () => {
    const w = worker("Needs you", {
      wait: null,
      liveness: livenessOf("conversation_too_long", NOW - 1000),
      rollover: moving("opening"),
    });
    const bg = new ScriptedBackground(status({ tabWorkerId: w.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [w], autoResume: autoResume(), eventSeq: 4 });
    const root = mount(<Popup client={bg.client} openPage={() => undefined} now={() => NOW} />);
    await until(() => byTestId(root, "worker").length === 1, "row");
    expect(byTestId(root, "new-conversation")).toHaveLength(0);
    expect(byTestId(root, "rollover-line").map((p) => p.textContent)).toEqual([
      "↪ Moving to a new conversation: opening the new conversation (length limit reached)",
      "↪ Moving to a new conversation: opening the new conversation (length limit reached)",
    ]);
  });
});

describe("the popup while a worker moves to a new conversation", () => {
  it("says so in the worker's row and for the current tab, with no button of its own", async () => {
    const w = worker("Working", { rollover: moving("brief_requested", "operator") });
    const other = worker("Idle", { id: "w-idle" });
    const bg = new ScriptedBackground(status({ tabWorkerId: w.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [w, other], autoResume: autoResume(), eventSeq: 4 });
    const root = mount(<Popup client={bg.client} openPage={() => undefined} now={() => NOW} />);
    await until(() => byTestId(root, "worker").length === 2, "rows");
    const [row, idle] = byTestId(root, "worker");
    expect(byTestId(row!, "rollover-line")[0]!.textContent).toBe(
      "↪ Moving to a new conversation: asking for a handoff brief (asked by you)",
    );
    expect(byTestId(idle!, "rollover-line")).toHaveLength(0);
    expect(byTestId(byTestId(root, "current-tab")[0]!, "rollover-line")).toHaveLength(1);
    // The popup only says it: the button is the dashboard's and the overlay's.
    expect(byTestId(root, "new-conversation")).toHaveLength(0);
    await expectAccessible(root);
  });
});

describe("the overlay", () => {
  function overlay(w: WorkerView): { root: HTMLElement; bg: ScriptedBackground } {
    const bg = new ScriptedBackground(status({ tabWorkerId: w.id }));
    bg.answer("ui_worker_detail", { worker: w, attempts: [], events: EVENTS });
    bg.answer("worker_new_conversation", { worker: null, rollover: "started" });
    const root = mount(
      <Overlay client={bg.client} workerId={w.id} now={() => NOW} acceptEvent={() => true} />,
    );
    return { root, bg };
  }

  async function open(root: HTMLElement): Promise<HTMLElement> {
    await until(() => byTestId(root, "overlay-badge")[0]!.textContent !== "Orchestrated", "badge");
    byTestId(root, "overlay-badge")[0]!.click();
    await until(() => byTestId(root, "overlay-events").length === 1, "drawer");
    return byTestId(root, "overlay-drawer")[0]!;
  }

  it("offers Continue in a new conversation, asks in place, then calls it for its own worker", async () => {
    const w = worker("Idle");
    const { root, bg } = overlay(w);
    const drawer = await open(root);
    byTestId(drawer, "new-conversation")[0]!.click();
    await settle();
    expect(bg.callsOf("worker_new_conversation")).toHaveLength(0);
    expect(drawer.textContent).toContain("the old conversation stays open, no longer managed");
    await expectAccessible(root);
    byTestId(drawer, "new-conversation-confirm")[0]!.click();
    await until(() => bg.callsOf("worker_new_conversation").length === 1, "the call");
    expect(bg.callsOf("worker_new_conversation")).toEqual([{ workerId: w.id }]);
    // The recent events in words.
    expect(byTestId(drawer, "overlay-events")[0]!.textContent).toContain(
      "Moved to conversation 3 (asked by you)",
    );
  });

  it("the length limit's remedy is the one button, not two", async () => {
    const w = worker("Needs you", { wait: null, liveness: livenessOf("conversation_too_long", NOW - 1000) });
    const drawer = await open(overlay(w).root);
    expect(byTestId(drawer, "new-conversation")).toHaveLength(1);
  });

  it("says a move under way and offers no button then; none for an ended worker", async () => {
    const w = worker("Working", { rollover: moving("brief_requested", "agent") });
    const { root } = overlay(w);
    const drawer = await open(root);
    expect(byTestId(drawer, "rollover-line")[0]!.textContent).toBe(
      "↪ Moving to a new conversation: asking for a handoff brief (asked by the worker)",
    );
    expect(byTestId(drawer, "new-conversation")).toHaveLength(0);
    await expectAccessible(root);
    const ended = await open(overlay(worker("Complete")).root);
    expect(byTestId(ended, "new-conversation")).toHaveLength(0);
  });
});
