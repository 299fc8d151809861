// What the privacy checks read (docs/privacy.md): every table of the extension's IndexedDB as one JSON text, and every
// file of the backend's data directory with its bytes.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ChromiumE2E } from "./harness.ts";

/** The extension's whole IndexedDB (journal, bindings, observations, preferences), read in its service worker. */
export async function extensionStorage(e2e: ChromiumE2E): Promise<string> {
  const sw = await e2e.serviceWorker();
  return sw.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open("chatgpt-orchestrator");
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(new Error(String(r.error)));
    });
    const out: Record<string, unknown> = {};
    for (const name of Array.from(db.objectStoreNames))
      out[name] = await new Promise((resolve) => {
        const r = db.transaction(name).objectStore(name).getAll();
        r.onsuccess = () => resolve(r.result);
      });
    db.close();
    return JSON.stringify(out);
  });
}

/** Every file under a directory, with its bytes. */
export function filesUnder(dir: string): [string, Buffer][] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return [file, readFileSync(file)];
    });
}
