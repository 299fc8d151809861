// One announcement per episode of a worker needing a person, driven by its liveness: each reason (a question, a page
// error, a sign-out, a stall, …) and each new start of one notifies once, with the reason and its remedy in words.
import { describe, expect, it } from "vitest";
import { livenessOf } from "../../shared/liveness.ts";
import { NOW, worker } from "../../test/extension/ui-kit.ts";
import type { WorkerView } from "../../shared/operations/views.ts";
import type { ConnectionHealth } from "./native-connection.ts";
import { Attention, attentionKey, attentionMessage } from "./ui-attention.ts";

describe("attentionKey", () => {
  it("keys a worker by its liveness reason and since; nothing for what needs no person", () => {
    expect(attentionKey(worker("Needs you"))).toBe(`question:w-needs-you:${NOW - 1000}`);
    expect(attentionKey(worker("Stalled"))).toBe(`stalled:w-stalled:${NOW - 500}`);
    const error = (since: number) =>
      worker("Needs you", {
        wait: null,
        liveness: livenessOf("page_error", since, { detail: { code: "X" } }),
      });
    expect(attentionKey(error(NOW))).toBe(`page_error:w-needs-you:${NOW}`);
    expect(attentionKey(error(NOW + 1))).not.toBe(attentionKey(error(NOW)));
    // Same worker, same time, another reason: another episode.
    const signedOut = worker("Needs you", { wait: null, liveness: livenessOf("signed_out", NOW) });
    expect(attentionKey(signedOut)).not.toBe(attentionKey(error(NOW)));
    for (const label of ["Working", "Resuming", "Waiting", "Paused", "Idle", "Complete"] as const)
      expect(attentionKey(worker(label)), label).toBeUndefined();
  });

  it("says the reason with its details and the remedy", () => {
    const signedOut = worker("Needs you", {
      wait: null,
      liveness: livenessOf("signed_out", NOW, { detail: { code: "NOT_SIGNED_IN" } }),
    });
    expect(attentionMessage(signedOut, NOW)).toEqual({
      title: "Needs you",
      message:
        "Needs you worker: Signed out of ChatGPT (NOT_SIGNED_IN). Sign in to chatgpt.com in the conversation's " +
        "tab; it resumes by itself.",
    });
    expect(attentionMessage(worker("Needs you"), NOW).message).toBe(
      'Needs you worker: Needs your answer. "Ship A or B?" Answer the question to let it continue.',
    );
  });
});

/** An Attention over a scripted ui_summary, recording the badge (colours too) and notifications. A browser without
 * `setBadgeTextColor` (`textColor: false`) gets no call to it. */
function harness(
  workers: () => WorkerView[],
  opts: { textColor?: boolean; health?: ConnectionHealth["status"] } = {},
) {
  const badge: { text: string; title: string }[] = [];
  const colors: { color: string; textColor?: string }[] = [];
  const notified: { id: string; title: string; message: string }[] = [];
  let announced: string[] = [];
  let text = "";
  let color = "";
  let textColor: string | undefined;
  const attention = new Attention({
    api: {
      action: {
        setBadgeText: (d) => void (text = d.text),
        setBadgeBackgroundColor: (d) => void (color = d.color),
        ...(opts.textColor === false ? {} : { setBadgeTextColor: (d) => void (textColor = d.color) }),
        setTitle: (d) => {
          badge.push({ text, title: d.title });
          colors.push({ color, ...(textColor === undefined ? {} : { textColor }) });
        },
      },
      notifications: {
        create: (id, o) => {
          notified.push({ id, title: o.title, message: o.message });
          return Promise.resolve(id);
        },
      },
    },
    log: { info: () => undefined, warn: (m: string) => console.warn(m) },
    health: () => ({ status: opts.health ?? "connected", since: 0, failures: 0, droppedInvalid: 0 }),
    request: () =>
      Promise.resolve({
        ok: true,
        result: {
          runs: [],
          workers: workers(),
          autoResume: { enabled: true, on: true, automatic: 1 },
          eventSeq: 1,
        },
      }),
    prefs: () => Promise.resolve({ overlay: true, notifications: true, offerAdopt: false }),
    announced: {
      get: () => Promise.resolve(announced),
      set: (keys) => {
        announced = keys;
        return Promise.resolve();
      },
    },
    iconUrl: "icon.png",
  });
  const refresh = async (times: number) => {
    for (let i = 0; i < times; i += 1) {
      const before = badge.length;
      attention.refresh();
      while (badge.length === before) await new Promise((r) => setTimeout(r, 0));
    }
  };
  return { badge, colors, notified, refresh };
}

describe("Attention", () => {
  it("notifies once per worker per reason and start, counts them on the badge and names the reasons", async () => {
    let workers: WorkerView[] = [
      worker("Working"),
      worker("Needs you", {
        id: "a",
        wait: null,
        liveness: livenessOf("page_error", NOW, { detail: { code: "E" } }),
      }),
    ];
    const h = harness(() => workers);
    await h.refresh(2);
    expect(h.notified.map((n) => n.id)).toEqual([`page_error:a:${NOW}`]);
    expect(h.notified[0]!.message).toContain("ChatGPT showed an error (E)");
    expect(h.notified[0]!.message).toContain("Continue now sends one turn");
    expect(h.badge.at(-1)).toEqual({
      text: "1",
      title: "ChatGPT Orchestrator: 1 needs you (ChatGPT showed an error)",
    });
    // The same worker signs out, another stalls: two new episodes, each announced once.
    workers = [
      worker("Needs you", { id: "a", wait: null, liveness: livenessOf("signed_out", NOW + 5) }),
      worker("Stalled", { id: "b" }),
    ];
    await h.refresh(3);
    expect(h.notified.map((n) => n.id)).toEqual([
      `page_error:a:${NOW}`,
      `signed_out:a:${NOW + 5}`,
      `stalled:b:${NOW - 500}`,
    ]);
    expect(h.badge.at(-1)?.text).toBe("2");
    expect(h.badge.at(-1)?.title).toBe(
      "ChatGPT Orchestrator: 2 need you (Signed out of ChatGPT; Stalled: no progress)",
    );
    // The page error comes back later: a new episode (new since), announced again.
    workers = [
      worker("Needs you", { id: "a", wait: null, liveness: livenessOf("page_error", NOW + 60_000) }),
    ];
    await h.refresh(2);
    expect(h.notified).toHaveLength(4);
    expect(h.notified.at(-1)!.id).toBe(`page_error:a:${NOW + 60_000}`);
    workers = [worker("Working")];
    await h.refresh(1);
    expect(h.badge.at(-1)).toEqual({ text: "", title: "ChatGPT Orchestrator: nothing needs you" });
  });
});

describe("Attention's badge colours", () => {
  it("paints the count red and 'off' grey, each with white text where the browser can set it", async () => {
    const needs = harness(() => [worker("Needs you")]);
    await needs.refresh(1);
    expect(needs.badge.at(-1)?.text).toBe("1");
    expect(needs.colors.at(-1)).toEqual({ color: "#b91c1c", textColor: "#ffffff" });

    const off = harness(() => [], { health: "host-not-installed" });
    await off.refresh(1);
    expect(off.badge.at(-1)).toEqual({
      text: "off",
      title: "ChatGPT Orchestrator: host not connected (host-not-installed)",
    });
    expect(off.colors.at(-1)).toEqual({ color: "#4b5563", textColor: "#ffffff" });

    // A browser without setBadgeTextColor still gets the text and background.
    const older = harness(() => [worker("Needs you")], { textColor: false });
    await older.refresh(1);
    expect(older.badge.at(-1)?.text).toBe("1");
    expect(older.colors.at(-1)).toEqual({ color: "#b91c1c" });
  });
});
