// The extension's Dexie database commits every transaction "strict": Chrome 121+ defaults readwrite transactions to
// relaxed durability, under which a journal phase could be reported as stored before it is on disk.
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { describe, expect, it } from "vitest";
import { OrchestratorDb } from "./db.ts";

describe("OrchestratorDb", () => {
  it("asks for strict transaction durability, and Dexie passes it on to every readwrite transaction", async () => {
    const seen: (string | undefined)[] = [];
    const indexedDB = new IDBFactory();
    // Record what each transaction is opened with (fake-indexeddb ignores the option itself).
    const open = indexedDB.open.bind(indexedDB);
    indexedDB.open = (...args: Parameters<IDBFactory["open"]>) => {
      const request = open(...args);
      request.addEventListener("success", () => {
        const db = request.result;
        const transaction = db.transaction.bind(db);
        db.transaction = ((
          names: string | string[],
          mode?: IDBTransactionMode,
          options?: IDBTransactionOptions,
        ) => {
          if (mode === "readwrite") seen.push(options?.durability);
          return transaction(names, mode, options);
        }) as typeof db.transaction;
      });
      return request;
    };
    const db = new OrchestratorDb({ name: "durability-test", indexedDB, IDBKeyRange });
    await db.prefs.put({ key: "k", value: 1 });
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(["strict"]));
    db.close();
  });
});
