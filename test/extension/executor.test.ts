// The background executor end to end against a fake browser and fake chatgpt.com pages: commands, queues, the
// generating limit, restarts (docs/extension.md, "Journal phases and recovery"), bindings, sender checks and what the journal keeps.
import { afterEach, describe, expect, it } from "vitest";
import { commandMarker as commandMarkerOf } from "../../extension/lib/marker.ts";
import { command, deferred, Harness, sleep, waitFor } from "./executor-harness.ts";
import { EXTENSION_ID, type SubmitBehaviour } from "./fake-browser.ts";

let h: Harness;
afterEach(() => h?.kill());

describe("commands", () => {
  it("creates a conversation: journal, ack, new tab, submission with marker, result, binding", async () => {
    h = new Harness();
    await h.connected();
    const cmd = command("w1", 0, "conversation.create");
    h.host.send(cmd);
    const result = await h.result(cmd.commandId);

    expect(h.sent("command.ack", cmd.commandId)).toHaveLength(1);
    expect(result).toMatchObject({ outcome: "submitted", workerId: "w1" });
    expect(String(result.url)).toMatch(/^https:\/\/chatgpt\.com\/c\/6800f3a1-/);
    const [tab] = [...h.browser.tabs.values()];
    const submits = tab!.adapter!.submits;
    expect(submits).toHaveLength(1);
    expect(submits[0]).toMatchObject({ mode: "send" });
    const entry = await h.db.journal.get(cmd.commandId);
    expect(entry?.phase).toBe("completed");
    expect(submits[0]!.text).toContain(cmd.prompt.text);
    expect(submits[0]!.text).toContain(entry!.marker);
    expect(submits[0]!.marker).toBe(entry!.marker);
    expect(h.sent("binding")).toContainEqual(
      expect.objectContaining({ workerId: "w1", binding: "bound", url: result.url }),
    );
  });

  it("creates the conversation in the GPT or project page the host names, and nowhere else", async () => {
    h = new Harness();
    await h.connected();
    const opened: string[] = [];
    const openTab = h.browser.openTab.bind(h.browser);
    h.browser.openTab = (url, how) => {
      opened.push(url);
      return openTab(url, how);
    };
    const project = "https://chatgpt.com/g/g-p-0123456789abcdef0123456789abcdef-site/project";
    const cases = [
      ["w1", project],
      ["w2", "https://chatgpt.com/g/g-abc123def-writer"],
      ["w3", "https://example.com/g/g-abc123def-writer"],
    ] as const;
    for (const [w, url] of cases) {
      const cmd = command(w, 0, "conversation.create", { conversationUrl: url });
      h.host.send(cmd);
      expect(await h.result(cmd.commandId)).toMatchObject({ outcome: "submitted", workerId: w });
    }
    expect(opened).toEqual([project, cases[1][1], "https://chatgpt.com/"]);
  });

  it("reports the result without waiting for the generation to end", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    // The result is in while the page is generating; idle never came.
    expect(h.adapter(tabId).state?.state).toBe("generating");
    await waitFor(() => h.sent("conversation.state").length > 0, "generating report");
    await sleep(20);
    expect(h.sent("conversation.state").map((s) => s.state)).toEqual(["generating"]);
    expect(h.sent("binding")).toHaveLength(1);
  });

  it("forwards observed states with a per-worker sequence that increases across restarts", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    await waitFor(() => h.sent("conversation.state").length === 1, "generating report");
    h.adapter(tabId).report("idle", { continuationStatus: "working" });
    await waitFor(() => h.sent("conversation.state").length >= 2, "idle report");
    const before = h.sent("conversation.state").map((m) => m.seq as number);
    expect(before[1]).toBeGreaterThan(before[0]!);
    expect(h.sent("conversation.state")[1]).toMatchObject({ state: "idle", continuationStatus: "working" });

    h.restart();
    await h.connected();
    h.adapter(tabId).report("generating");
    await waitFor(() => h.sent("conversation.state").length >= 3, "report after restart");
    const after = h.sent("conversation.state").at(-1)!.seq as number;
    expect(after).toBeGreaterThan(Math.max(...before));
  });

  it("passes steering to the page, which refuses it today: STEERING_UNAVAILABLE, nothing typed", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    h.adapter(tabId).behaviour = (request) =>
      Promise.resolve(
        request.mode === "steer"
          ? {
              outcome: "failed",
              errorCode: "STEERING_UNAVAILABLE",
              detail: "no seam",
              phase: "before-submit",
            }
          : { outcome: "failed", errorCode: "HOST_UI_CHANGED", detail: "?", phase: "before-submit" },
      );
    const steer = command("w1", 1, "conversation.steer");
    h.host.send(steer);
    expect(await h.result(steer.commandId)).toMatchObject({
      outcome: "failed",
      errorCode: "STEERING_UNAVAILABLE",
    });
    expect(h.adapter(tabId).submits.at(-1)).toMatchObject({ mode: "steer" });
  });

  it("fails a follow-up for a worker without a tab as TAB_CLOSED, and one past its deadline as DEADLINE_EXCEEDED", async () => {
    h = new Harness();
    await h.connected();
    const orphan = command("nobody", 1);
    h.host.send(orphan);
    expect(await h.result(orphan.commandId)).toMatchObject({ outcome: "failed", errorCode: "TAB_CLOSED" });
    await h.createWorker("w1");
    const late = command("w1", 1, "conversation.send", { deadlineAt: Date.now() - 1 });
    h.host.send(late);
    expect(await h.result(late.commandId)).toMatchObject({
      outcome: "failed",
      errorCode: "DEADLINE_EXCEEDED",
    });
  });

  it("fails a command whose browser call throws before submission as EXECUTOR_UNAVAILABLE", async () => {
    h = new Harness();
    await h.connected();
    const create = h.browser.api.tabs.create.bind(h.browser.api.tabs);
    h.browser.api.tabs.create = () => Promise.reject(new Error("Tabs cannot be edited right now"));
    const cmd = command("w1", 0, "conversation.create");
    h.host.send(cmd);
    expect(await h.result(cmd.commandId)).toMatchObject({
      outcome: "failed",
      errorCode: "EXECUTOR_UNAVAILABLE",
      detail: "Tabs cannot be edited right now",
    });
    h.browser.api.tabs.create = create;
    await h.createWorker("w2");
  });

  it("answers a redelivered command from the journal and never submits it twice", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const cmd = command("w1", 1);
    h.host.send(cmd);
    await h.result(cmd.commandId);
    h.host.send(cmd);
    await waitFor(() => h.sent("command.result", cmd.commandId).length === 2, "second result");
    expect(h.sent("command.result", cmd.commandId)[1]).toMatchObject({ outcome: "submitted" });
    expect(h.adapter(tabId).submits).toHaveLength(2); // the create and this command, once
  });

  it("cancels a command that has not started submitting, and ignores a cancel after that", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const adapter = h.adapter(tabId);
    const gate = deferred<void>();
    adapter.behaviour = async (request, page) => {
      await gate.promise;
      return page.accept(request);
    };
    const first = command("w1", 1);
    const second = command("w1", 2);
    h.host.send(first);
    h.host.send(second);
    await waitFor(() => adapter.submits.length === 2, "first submission under way");
    h.host.send({ kind: "command.cancel", commandId: second.commandId, workerId: "w1" });
    h.host.send({ kind: "command.cancel", commandId: first.commandId, workerId: "w1" });
    await waitFor(() => h.log.has(/cancel of w1:1:cmd ignored/), "ignored cancel");
    gate.resolve();
    expect(await h.result(first.commandId)).toMatchObject({ outcome: "submitted" });
    await h.executor.idle();
    expect(adapter.submits).toHaveLength(2);
    // The host is told, so it can close the attempt as never delivered (docs/extension.md, "Carrying out a command").
    expect(h.sent("command.result", second.commandId)).toEqual([
      expect.objectContaining({ outcome: "failed", errorCode: "CANCELLED" }),
    ]);
    expect(await h.db.journal.get(second.commandId)).toMatchObject({
      phase: "failed",
      errorCode: "CANCELLED",
      resultSent: true,
    });
  });
});

describe("concurrency", () => {
  it("serialises one worker's commands while an unrelated worker runs concurrently", async () => {
    h = new Harness();
    await h.connected();
    const a = await h.createWorker("wa");
    const b = await h.createWorker("wb");
    const gate = deferred<void>();
    const order: string[] = [];
    const gated =
      (label: string): SubmitBehaviour =>
      async (request, page) => {
        order.push(`${label}:start`);
        if (label === "wa") await gate.promise;
        order.push(`${label}:end`);
        return page.accept(request);
      };
    h.adapter(a.tabId).behaviour = gated("wa");
    h.adapter(b.tabId).behaviour = gated("wb");

    h.host.send(command("wa", 1)); // follow-up
    h.host.send(command("wa", 2, "conversation.send")); // resume
    h.host.send(command("wb", 1));
    await h.result("wb:1:cmd");
    // wb finished while wa's first submission is still open, and wa's second has not started.
    expect(order).toEqual(["wa:start", "wb:start", "wb:end"]);
    expect(h.adapter(a.tabId).submits).toHaveLength(2);

    gate.resolve();
    await h.result("wa:2:cmd");
    expect(order).toEqual(["wa:start", "wb:start", "wb:end", "wa:end", "wa:start", "wa:end"]);
  });

  it("queues a worker's follow-up behind its create still submitting, while an unrelated create goes ahead", async () => {
    h = new Harness();
    await h.connected();
    const gate = deferred<void>();
    const order: string[] = [];
    // Every tab's page gates the submission of wc's create until the test opens the gate.
    const openTab = h.browser.openTab.bind(h.browser);
    h.browser.openTab = (url, how) => {
      const tab = openTab(url, how);
      const load = tab.load.bind(tab);
      tab.load = () => {
        const adapter = load();
        adapter.behaviour = async (request, page) => {
          const [, n, worker] = /Prompt (\d+) for (\w+)/.exec(request.text) ?? [];
          order.push(`${worker}:${n}:start`);
          if (worker === "wc" && n === "0") await gate.promise;
          order.push(`${worker}:${n}:end`);
          return page.accept(request);
        };
        return adapter;
      };
      return tab;
    };
    h.host.send(command("wc", 0, "conversation.create"));
    h.host.send(command("wc", 1)); // wc's follow-up, before its create has a result
    h.host.send(command("wd", 0, "conversation.create"));
    await h.result("wd:0:cmd");
    expect(order).toEqual(["wc:0:start", "wd:0:start", "wd:0:end"]);
    expect(h.sent("command.result", "wc:1:cmd")).toEqual([]);

    gate.resolve();
    await h.result("wc:1:cmd");
    expect(order).toEqual(["wc:0:start", "wd:0:start", "wd:0:end", "wc:0:end", "wc:1:start", "wc:1:end"]);
    // The follow-up went to the tab its create opened: two tabs in all.
    expect(h.browser.tabs.size).toBe(2);
  });

  it("carries out what the host sends at once, however many tabs generate: the host keeps the limit it is told", async () => {
    h = new Harness({ maxGenerating: 2 });
    await h.connected();
    expect(h.sent("hello").at(-1)).toMatchObject({ maxGenerating: 2 });
    // The host sent a third while two generate (a tab it did not count, say): nothing waits here for its deadline.
    for (const w of ["w1", "w2", "w3"]) h.host.send(command(w, 0, "conversation.create"));
    for (const w of ["w1", "w2", "w3"])
      expect(await h.result(`${w}:0:cmd`)).toMatchObject({ outcome: "submitted" });
    expect(h.browser.tabs.size).toBe(3);
    expect(h.executor.health()).toMatchObject({ generating: 3, maxGenerating: 2 });

    const w1 = await h.db.bindings.get("w1");
    h.adapter(w1!.tabId).report("idle");
    await waitFor(() => h.executor.health().generating === 2, "w1 no longer generating");

    // The options page raises the limit: the host is told at once.
    await h.executor.setMaxGenerating(4);
    await waitFor(() => h.sent("executor.settings").length === 1, "executor.settings");
    expect(h.sent("executor.settings")[0]).toMatchObject({ maxGenerating: 4 });
  });
});

describe("restarts", () => {
  it("after `submitted` it reports the stored outcome in hello and never submits again", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const adapter = h.adapter(tabId);
    const gate = deferred<void>();
    adapter.behaviour = async (request, page) => {
      await gate.promise;
      return page.accept(request);
    };
    const cmd = command("w1", 1);
    h.host.send(cmd);
    await waitFor(() => adapter.submits.length === 2, "submission under way");
    h.host.installed = false;
    h.host.kill(); // the result cannot be sent
    gate.resolve();
    await waitFor(() => h.log.has(/native host disconnected/), "disconnect");
    await h.executor.idle();
    expect(await h.db.journal.get(cmd.commandId)).toMatchObject({ phase: "submitted", resultSent: false });
    expect(h.sent("command.result", cmd.commandId)).toEqual([]);

    h.host.installed = true;
    h.restart();
    await h.connected();
    const hello = h.sent("hello").at(-1)!;
    expect(hello.journal).toContainEqual(
      expect.objectContaining({
        commandId: cmd.commandId,
        phase: "submitted",
        url: expect.any(String) as string,
      }),
    );
    await waitFor(async () => (await h.db.journal.get(cmd.commandId))?.phase === "completed", "completed");
    // The host offers the command again: the stored result answers it.
    h.host.send(cmd);
    await waitFor(() => h.sent("command.result", cmd.commandId).length === 1, "stored result");
    expect(h.sent("command.result", cmd.commandId)[0]).toMatchObject({ outcome: "submitted" });
    expect(adapter.submits).toHaveLength(2);
  });

  async function interruptedSubmission() {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const cmd = command("w1", 1);
    h.adapter(tabId).behaviour = () => new Promise(() => undefined); // the page never answers
    h.host.send(cmd);
    await waitFor(() => h.adapter(tabId).submits.length === 2, "submission started");
    await waitFor(
      async () => (await h.db.journal.get(cmd.commandId))?.phase === "submission-started",
      "journal",
    );
    return { tabId, cmd };
  }

  it("with `submission-started` and no proof it reports AMBIGUOUS_SUBMISSION and never resends", async () => {
    const { tabId, cmd } = await interruptedSubmission();
    h.kill();
    h.tab(tabId).load(); // a fresh content script that knows nothing of the command; the marker is not there
    h.boot();
    await h.connected();
    const hello = h.sent("hello").at(-1)!;
    expect(hello.journal).toContainEqual(
      expect.objectContaining({
        commandId: cmd.commandId,
        phase: "failed",
        errorCode: "AMBIGUOUS_SUBMISSION",
      }),
    );
    expect(h.adapter(tabId).submits).toHaveLength(0);
  });

  it("with `submission-started` and the marker in the conversation it reports submitted", async () => {
    const { tabId, cmd } = await interruptedSubmission();
    h.kill();
    h.tab(tabId).conversation.push(`${cmd.prompt.text}\n\n[ref: ${commandMarkerOf(cmd.commandId)}]`);
    h.tab(tabId).load();
    h.boot();
    await h.connected();
    expect(h.sent("hello").at(-1)!.journal).toContainEqual(
      expect.objectContaining({ commandId: cmd.commandId, phase: "submitted" }),
    );
  });

  it("with `submission-started` and the page still submitting it waits for the page's own answer", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const gate = deferred<void>();
    h.adapter(tabId).behaviour = async (request, page) => {
      await gate.promise;
      return page.accept(request);
    };
    const cmd = command("w1", 1);
    h.host.send(cmd);
    await waitFor(() => h.adapter(tabId).submits.length === 2, "submission started");
    await waitFor(
      async () => (await h.db.journal.get(cmd.commandId))?.phase === "submission-started",
      "journal",
    );
    h.kill(); // the service worker dies; the page keeps going
    h.boot();
    await sleep(50);
    gate.resolve();
    await h.connected();
    expect(h.sent("hello").at(-1)!.journal).toContainEqual(
      expect.objectContaining({ commandId: cmd.commandId, phase: "submitted" }),
    );
    expect(h.adapter(tabId).submits).toHaveLength(2);
  });

  it("says hello with verified bindings, their last observed state and the unfinished journal", async () => {
    h = new Harness();
    await h.connected();
    const one = await h.createWorker("w1");
    const two = await h.createWorker("w2");
    h.adapter(one.tabId).report("idle");
    const idleReport = () =>
      h.sent("conversation.state").find((m) => m.workerId === "w1" && m.state === "idle");
    await waitFor(() => idleReport() !== undefined, "idle");
    const idleSeq = idleReport()!.seq;
    h.adapter(two.tabId).behaviour = () =>
      Promise.resolve({
        outcome: "failed",
        errorCode: "NOT_SIGNED_IN",
        detail: "log in",
        phase: "before-submit",
      });
    h.host.installed = false;
    h.host.kill();
    await waitFor(() => h.executor.health().connection.status === "host-not-installed", "down");
    h.kill();
    h.browser.closeTab(two.tabId); // closed while the background was dead
    h.host.installed = true;
    h.boot();
    await h.connected();
    const hello = h.sent("hello").at(-1)!;
    expect(hello).toMatchObject({ protocolVersion: 1, browser: "chromium", extensionVersion: "0.1.0" });
    expect(hello.executorId).toBe(h.sent("hello")[0]!.executorId); // stable across restarts
    expect(hello.bindings).toEqual(
      expect.arrayContaining([
        { workerId: "w1", binding: "bound", url: one.url, observed: { state: "idle", seq: idleSeq } },
        // Its tab is gone but its conversation is known: reopened for the next command (docs/extension.md, "Bindings").
        expect.objectContaining({ workerId: "w2", binding: "detached", url: two.url }),
      ]),
    );
    expect(hello.journal).toEqual([]);
  });

  it("keeps no prompt text once submission starts", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const gate = deferred<void>();
    h.adapter(tabId).behaviour = async (request, page) => {
      await gate.promise;
      return page.accept(request);
    };
    const cmd = command("w1", 1, "conversation.send", {
      prompt: { promptId: "followup@1", text: "SECRET-PROMPT-TEXT do the thing" },
    });
    const dump = async () =>
      JSON.stringify([
        await h.db.journal.toArray(),
        await h.db.bindings.toArray(),
        await h.db.observed.toArray(),
        await h.db.prefs.toArray(),
      ]);
    h.host.send(cmd);
    await waitFor(() => h.adapter(tabId).submits.length === 2, "submission started");
    expect(await dump()).not.toContain("SECRET-PROMPT-TEXT");
    gate.resolve();
    await h.result(cmd.commandId);
    await h.executor.idle();
    expect(await dump()).not.toContain("SECRET-PROMPT-TEXT");
    expect((await h.db.journal.get(cmd.commandId))?.prompt).toBeUndefined();
  });

  it("keeps the prompt of a received command across a restart and then submits it once", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    h.tab(tabId).unload(); // the content script is gone: the command waits in `received`
    h.browser.autoLoad = false;
    const cmd = command("w1", 1);
    h.host.send(cmd);
    await waitFor(() => h.sent("command.ack", cmd.commandId).length === 1, "ack");
    expect((await h.db.journal.get(cmd.commandId))?.prompt?.text).toBe(cmd.prompt.text);
    h.kill();
    const adapter = h.tab(tabId).load();
    h.boot();
    expect(await h.result(cmd.commandId)).toMatchObject({ outcome: "submitted" });
    expect(adapter.submits).toHaveLength(1);
  });
  it("after an extension update reloads a managed tab that lost its content script, and observes it again", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    h.kill();
    h.tab(tabId).unload(); // Chromium injects no content script into tabs open before the update
    const reloaded = h.browser.tabs.get(tabId)!;
    h.boot();
    await h.connected();
    await waitFor(() => reloaded.adapter !== undefined, "tab reloaded");
    expect(h.log.has(/has no content script: reloading it/)).toBe(true);
    const before = h.sent("conversation.state").length;
    reloaded.adapter!.report("idle");
    await waitFor(() => h.sent("conversation.state").length > before, "report from the reloaded tab");
    expect(h.sent("conversation.state").at(-1)).toMatchObject({ workerId: "w1", state: "idle" });
  });
});

describe("bindings", () => {
  it("reports detached when a bound tab is removed, and keeps the binding (its conversation may come back)", async () => {
    h = new Harness();
    await h.connected();
    const { tabId, url } = await h.createWorker("w1");
    h.adapter(tabId).report("idle"); // a turn still running would be reopened at once
    await waitFor(() => h.sent("conversation.state").length === 2, "idle report");
    h.browser.closeTab(tabId);
    await waitFor(() => h.sent("binding").some((m) => m.binding === "detached"), "detached");
    expect(h.sent("binding").at(-1)).toEqual({ kind: "binding", workerId: "w1", binding: "detached", url });
    expect(await h.db.bindings.get("w1")).toMatchObject({ state: "detached", url, reported: true });
  });

  it("reports detached when the bound tab leaves its conversation, and ignores its reports after that", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    h.adapter(tabId).report("idle");
    await waitFor(() => h.sent("conversation.state").length === 2, "idle report");
    h.tab(tabId).navigate("https://chatgpt.com/");
    await waitFor(() => h.sent("binding").some((m) => m.binding === "detached"), "detached");
    const states = h.sent("conversation.state").length;
    h.adapter(tabId).report("idle");
    await sleep(30);
    expect(h.sent("conversation.state")).toHaveLength(states);
  });

  it("keeps the binding when the browser quits (window closing) and recovers the restored tab", async () => {
    h = new Harness();
    await h.connected();
    const one = await h.createWorker("w1");
    // Chromium reports every tab as removed with isWindowClosing while it shuts down, background still alive.
    h.browser.closeTab(one.tabId, { isWindowClosing: true });
    await sleep(20);
    expect(h.sent("binding").filter((m) => m.binding === "closed")).toEqual([]);
    h.kill();
    const restored = h.browser.openTab(one.url);
    await sleep(10);
    h.boot();
    await h.connected();
    expect(h.sent("hello").at(-1)!.bindings).toEqual([
      expect.objectContaining({ workerId: "w1", binding: "bound", url: one.url }),
    ]);
    expect((await h.db.bindings.get("w1"))?.tabId).toBe(restored.id);
  });

  it("never takes an unrelated ChatGPT tab after a restart, but recovers a tab showing exactly the conversation", async () => {
    h = new Harness();
    await h.connected();
    const one = await h.createWorker("w1");
    const two = await h.createWorker("w2");
    h.kill();
    // Browser restart: tabs come back with new ids. w1's conversation is open again; w2's is not, but
    // another ChatGPT conversation is.
    h.browser.closeTab(one.tabId);
    h.browser.closeTab(two.tabId);
    const again = h.browser.openTab(one.url);
    const unrelated = h.browser.openTab("https://chatgpt.com/c/6800f3a1-0000-8000-9000-999999999999");
    await sleep(10);
    h.boot();
    await h.connected();
    const hello = h.sent("hello").at(-1)!;
    expect(hello.bindings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ workerId: "w1", binding: "bound", url: one.url }),
        expect.objectContaining({ workerId: "w2", binding: "detached", url: two.url }),
      ]),
    );
    expect((await h.db.bindings.get("w1"))?.tabId).toBe(again.id);
    // w2's command reopens w2's own conversation; the unrelated tab is never typed into.
    const send = command("w2", 1);
    h.host.send(send);
    expect(await h.result(send.commandId)).toMatchObject({ outcome: "submitted", url: two.url });
    expect(unrelated.adapter?.submits ?? []).toEqual([]);
    const reopened = [...h.browser.tabs.values()].filter((t) => t.url === two.url);
    expect(reopened.map((t) => t.adapter?.submits.length)).toEqual([1]);
  });
});

describe("trust boundaries", () => {
  it("accepts reports only from the top frame of a chatgpt.com tab of this extension", async () => {
    h = new Harness();
    await h.connected();
    const { tabId } = await h.createWorker("w1");
    const tab = h.tab(tabId);
    const good = h.browser.senderOf(tab);
    const report = { type: "content.state", report: { state: "idle" } };
    await waitFor(() => h.sent("conversation.state").length === 1, "generating report");
    const before = 1;
    const rejected = [
      { ...good, id: "another-extension" },
      { ...good, frameId: 3 },
      { ...good, url: "https://evil.example/c/x", origin: "https://evil.example" },
      { ...good, origin: "https://chatgpt.com.evil.example" },
      { ...good, url: "http://chatgpt.com/c/x", origin: "http://chatgpt.com" },
      { id: EXTENSION_ID, url: good.url, frameId: 0 }, // no tab
    ];
    for (const sender of rejected) await h.browser.send(report, sender);
    await h.browser.send({ type: "content.state", report: { state: "idle", extra: 1 } }, good); // schema
    await h.browser.send({ type: "content.command", text: "send this" }, good); // not a content message
    // Oversized fields from the right page: refused whole, with the reason logged.
    await h.browser.send(
      { type: "content.state", report: { state: "error", errorCode: "E".repeat(101) } },
      good,
    );
    await h.browser.send(
      { type: "content.state", report: { state: "idle", url: `${good.url}?${"x".repeat(2_000)}` } },
      good,
    );
    await sleep(30);
    expect(h.sent("conversation.state")).toHaveLength(before);
    expect(h.log.lines.filter((l) => /rejected a message|dropped an invalid message/.test(l)).length).toBe(
      rejected.length + 3, // the tab-less one is not a content message at all
    );
    expect(h.log.has(/dropped an invalid message from tab \d+: Too big: .*<=100 characters/)).toBe(true);
    expect(await h.browser.send(report, good)).toEqual({ managed: true });
    await waitFor(() => h.sent("conversation.state").length === before + 1, "accepted report");
  });

  it("drops and logs an invalid host message and keeps working", async () => {
    h = new Harness();
    await h.connected();
    h.host.send({ kind: "command", commandId: "x" });
    h.host.send({ kind: "launch-missiles" });
    h.host.send("not even an object");
    // Oversized: a prompt past the protocol's 100,000-character cap is refused whole, nothing journalled or opened.
    const huge = command("w9", 0, "conversation.create", {
      prompt: { promptId: "resume@1", text: "x".repeat(100_001) },
    });
    h.host.send(huge);
    await waitFor(() => h.executor.health().connection.droppedInvalid === 4, "dropped");
    expect(h.log.has(/dropped an invalid host message \(kind "command"\)/)).toBe(true);
    expect(h.log.has(/prompt\.text Too big/i)).toBe(true);
    expect(await h.db.journal.get(huge.commandId)).toBeUndefined();
    expect(h.browser.tabs.size).toBe(0);
    expect(h.sent("command.ack")).toEqual([]);
    await h.createWorker("w1");
  });

  it("answers health to its own extension pages only", async () => {
    h = new Harness();
    await h.connected();
    const page = { id: EXTENSION_ID, url: `chrome-extension://${EXTENSION_ID}/popup.html` };
    expect(await h.browser.send({ type: "ui.health" }, page)).toMatchObject({
      connection: { status: "connected" },
      maxGenerating: 3,
    });
    expect(await h.browser.send({ type: "ui.health" }, { ...page, id: "other" })).toBeUndefined();
  });
});
