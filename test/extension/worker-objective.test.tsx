// @vitest-environment happy-dom
// The objective typed at adoption (or given at spawn) is shown where a worker's name is: the popup's worker row and
// current conversation, the overlay's drawer (a secondary line, cut after a word, the whole text in `title`) and the
// dashboard's worker detail (whole).
import { afterEach, describe, expect, it } from "vitest";
import { Overlay } from "../../extension/content/overlay/overlay-view.tsx";
import { Dashboard } from "../../extension/dashboard/dashboard-view.tsx";
import { Popup } from "../../extension/popup/popup-view.tsx";
import { OBJECTIVE_LINE_MAX } from "../../extension/ui/objective-line.tsx";
import {
  autoResume,
  byTestId,
  expectAccessible,
  mount,
  NOW,
  run,
  ScriptedBackground,
  status,
  until,
  worker,
} from "./ui-kit.ts";

const SHORT = "finish the billing refactor";
const LONG = `Migrate ${"every table of the orders database ".repeat(6)}to Postgres seventeen without downtime`;

afterEach(() => {
  document.body.innerHTML = "";
});

function objectiveIn(root: ParentNode): HTMLElement | undefined {
  return byTestId(root, "worker-objective")[0];
}

describe("a worker's objective", () => {
  it("popup: under the name in the worker row and in the current conversation; a long one cut, whole in title", async () => {
    const short = worker("Working", {
      id: "w-short",
      name: "Billing refactor",
      objective: SHORT,
      adopted: true,
    });
    const long = worker("Working", { id: "w-long", name: "Orders migration", objective: LONG });
    const bg = new ScriptedBackground(status({ tabWorkerId: short.id }));
    bg.answer("ui_summary", { runs: [run()], workers: [short, long], autoResume: autoResume(), eventSeq: 5 });
    const root = mount(<Popup client={bg.client} openPage={() => undefined} now={() => NOW} />);
    await until(() => byTestId(root, "worker").length === 2, "worker rows");
    const [first, second] = byTestId(root, "worker");
    expect(objectiveIn(first!)?.textContent).toBe(`Objective: ${SHORT}`);
    const cut = objectiveIn(second!)!;
    expect(cut.title).toBe(LONG);
    const shown = cut.textContent.replace(/^Objective: /, "");
    expect(shown.length).toBeLessThanOrEqual(OBJECTIVE_LINE_MAX);
    expect(shown.endsWith("…")).toBe(true);
    expect(LONG.startsWith(shown.slice(0, -1))).toBe(true);
    expect(objectiveIn(byTestId(root, "current-tab")[0]!)?.title).toBe(SHORT);
    await expectAccessible(root);
  });

  it("overlay: in the drawer under the worker's name", async () => {
    const w = worker("Working", { name: "Billing refactor", objective: SHORT });
    const bg = new ScriptedBackground(status({ tabWorkerId: w.id }));
    bg.answer("ui_worker_detail", { worker: w, attempts: [], events: [] });
    const root = mount(
      <Overlay client={bg.client} workerId={w.id} now={() => NOW} acceptEvent={() => true} />,
    );
    await until(() => byTestId(root, "overlay-badge")[0]!.textContent !== "Orchestrated", "badge");
    byTestId(root, "overlay-badge")[0]!.click();
    await until(() => objectiveIn(root) !== undefined, "the drawer's objective");
    expect(objectiveIn(byTestId(root, "overlay-drawer")[0]!)?.textContent).toBe(`Objective: ${SHORT}`);
    await expectAccessible(root);
  });

  it("dashboard: the worker detail shows the whole objective", async () => {
    const w = worker("Working", { name: "Orders migration", objective: LONG });
    const bg = new ScriptedBackground();
    bg.answer("run_list", { runs: [run()] });
    bg.answer("run_get", { run: run(), workers: [w] });
    bg.answer("ui_worker_detail", { worker: w, attempts: [], events: [] });
    const root = mount(<Dashboard client={bg.client} now={() => NOW} />);
    await until(() => byTestId(root, "drill-down").length === 1, "the worker row");
    byTestId(root, "drill-down")[0]!.click();
    await until(() => byTestId(root, "drill").length === 1, "the detail");
    const drill = byTestId(root, "drill")[0]!;
    await until(() => objectiveIn(drill) !== undefined, "the detail's objective");
    expect(objectiveIn(drill)!.textContent).toBe(`Objective: ${LONG}`);
  });
});
