// invoke(): bad input refused as a result, and no answer before what the operation read is on disk.
import { describe, expect, it } from "vitest";
import { CONNECTED_ENV } from "../core/liveness.ts";
import { OPERATIONS } from "./all-operations.ts";
import type { OperationsContext } from "./context.ts";
import { invoke } from "./registry.ts";

/** Only durable() matters here; the rest answers as an empty backend would. */
function emptyBackend(durable: () => Promise<void>): OperationsContext {
  return {
    state: { runs: {}, workers: {}, unread: {} },
    apply: () => Promise.reject(new Error("no writes in this test")),
    newId: () => "id-1",
    now: () => 0,
    lastEventSeq: () => 0,
    eventsAfter: () => [],
    waitForEvent: () => Promise.resolve(),
    attempts: () => [],
    inbox: () => [],
    durable,
    storeHealth: () => ({ writable: true }),
    livenessEnv: () => CONNECTED_ENV,
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("invoke", () => {
  it("answers a read only once everything committed before it is durable", async () => {
    let release!: () => void;
    const synced = new Promise<void>((resolve) => (release = resolve));
    let answered = false;
    const call = invoke(
      OPERATIONS,
      "events_list",
      { cursor: 0 },
      emptyBackend(() => synced),
    ).then((r) => {
      answered = true;
      return r;
    });
    await nextTurn();
    expect(answered).toBe(false);
    release();
    expect(await call).toEqual({ ok: true, value: { events: [], cursor: 0 } });
  });

  it("fails the call when the store cannot make what it read durable", async () => {
    const failing = emptyBackend(() => Promise.reject(new Error("STORE_IO: fdatasync failed")));
    await expect(invoke(OPERATIONS, "events_list", { cursor: 0 }, failing)).rejects.toThrow("STORE_IO");
  });

  it("refuses bad input at once, as a result", async () => {
    let asked = false;
    const backend = emptyBackend(() => {
      asked = true;
      return Promise.resolve();
    });
    const out = await invoke(OPERATIONS, "events_list", { cursor: -1 }, backend);
    expect(out).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } });
    expect(await invoke(OPERATIONS, "no_such_tool", {}, backend)).toMatchObject({
      ok: false,
      error: { code: "NOT_FOUND" },
    });
    expect(asked).toBe(false);
  });
});
