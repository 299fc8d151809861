// Zero-setup mode (conversation_adopt, docs/mcp.md), host half, across the real host process with no MCP call at
// all: the popup's ui.request adopts an existing conversation, the first turn is sent into that tab, turns follow on
// `working` blocks, and a `complete` block ends the worker (no further turn); a `blocked` one shows Needs you;
// adopting twice is refused.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { continuationBlockReport } from "../../shared/continuation-block-report.ts";
import { removeHome, tempHome } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

const URL = "https://chatgpt.com/c/6a1f0c2e-1111-4222-8333-944455556666";
const block = (status: string, n: number) =>
  `Work ${n}.\n\nstatus: ${status}\nsummary: step ${n}\ncurrent: part ${n}\nnext: part ${n + 1}`;

interface Adopted {
  worker: { id: string; path: string; label: string };
  run: { id: string };
}

describe("zero-setup mode: adopt a conversation, no MCP", () => {
  let home: string;
  let ext: ScriptedExtension;
  let seq = 0;

  beforeEach(async () => {
    home = tempHome();
    seq = 0;
    ext = ScriptedExtension.spawn({ home, executorId: "chrome" });
    await ext.hello();
  });

  afterEach(async () => {
    ext.closeStdin();
    await ext.exited;
    removeHome(home);
  });

  async function state(workerId: string, s: "generating" | "idle", responseText?: string) {
    const continuationBlock =
      responseText === undefined ? undefined : await continuationBlockReport(responseText);
    ext.send({
      kind: "conversation.state",
      workerId,
      state: s,
      seq: ++seq,
      url: URL,
      ...(continuationBlock ? { continuationBlock } : {}),
    });
  }

  async function adopt(): Promise<string> {
    const adopted = await ext.ui<Adopted>("conversation_adopt", { conversationUrl: URL, runName: "My chat" });
    expect(adopted.worker.path).toBe("/root");
    const workerId = adopted.worker.id;
    // The extension binds the tab to the worker and reports its state; the bootstrap goes into this tab.
    await state(workerId, "idle");
    const bootstrap = await waitFor(() => ext.commandsFor(workerId)[0], "the bootstrap turn");
    expect(bootstrap).toMatchObject({ type: "conversation.send", conversationUrl: URL });
    expect(bootstrap.prompt.promptId).toBe("adopt-bootstrap@1");
    expect(bootstrap.prompt.text).toContain("status: working | complete | blocked");
    ext.submit(bootstrap, URL);
    await state(workerId, "generating");
    return workerId;
  }

  it("three turns, complete in the third response, no fourth turn", { timeout: 60_000 }, async () => {
    const workerId = await adopt();
    // Adopting it again (from another tab, say) finds the same worker: no second worker, no second bootstrap.
    const again = await ext.ui<Adopted & { existing?: boolean }>("conversation_adopt", {
      conversationUrl: URL,
    });
    expect(again).toMatchObject({ existing: true, worker: { id: workerId } });
    expect(ext.commandsFor(workerId)).toHaveLength(1);
    for (let n = 1; n <= 2; n++) {
      await state(workerId, "idle", block("working", n));
      const next = await waitFor(() => ext.commandsFor(workerId)[n], `turn ${n + 1}`);
      expect(next.prompt.promptId).toBe("block-resume@1");
      expect(next.prompt.text).not.toContain("\n");
      ext.submit(next, URL);
      await state(workerId, "generating");
    }
    await state(workerId, "idle", block("complete", 3));
    const done = await waitFor(async () => {
      const v = await ext.ui<{ provenance: { state: string; autoResumes: number } }>("provenance_get", {
        conversation: URL,
      });
      return v.provenance.state === "Complete" ? v.provenance : undefined;
    }, "Complete");
    expect(done.autoResumes).toBe(2);
    expect(ext.commandsFor(workerId)).toHaveLength(3);
    // Given back, the conversation can be adopted again.
    await ext.ui("conversation_adopt", { conversationUrl: URL });
  });

  it("a blocked block shows Needs you with its summary and starts no turn", { timeout: 60_000 }, async () => {
    const workerId = await adopt();
    await state(workerId, "idle", block("blocked", 1));
    const w = await waitFor(async () => {
      const v = await ext.ui<{ worker: { label: string; wait: { question: string } | null } }>("worker_get", {
        workerId,
      });
      return v.worker.label === "Needs you" ? v.worker : undefined;
    }, "Needs you");
    expect(w.wait?.question).toBe("step 1");
    expect(ext.commandsFor(workerId)).toHaveLength(1);
    // Release: the worker is stopped, its history kept.
    await ext.ui("worker_stop", { workerId, reason: "released" });
    expect(ext.commandsFor(workerId)).toHaveLength(1);
  });
});
