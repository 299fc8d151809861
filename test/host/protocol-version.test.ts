// The hello handshake's version check, across the real host process: an extension speaking another protocol version
// is answered with a welcome carrying PROTOCOL_VERSION_MISMATCH, the refusal is logged, and that connection is never
// treated as an executor (no command, no push). A correct hello on a new connection is served as usual.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../shared/native-messages.ts";
import { connectMcp, removeHome, tempHome, tool } from "./host-harness.ts";
import { ScriptedExtension, waitFor } from "./scripted-extension.ts";

describe("hello with another protocol version", () => {
  const homes: string[] = [];
  afterEach(() => homes.splice(0).forEach(removeHome));

  it(
    "is refused with PROTOCOL_VERSION_MISMATCH and logged; that executor gets no command, a correct hello on a new connection does",
    { timeout: 60_000 },
    async () => {
      const home = tempHome();
      homes.push(home);
      const stale = ScriptedExtension.spawn({ home, executorId: "stale" });
      stale.send({
        kind: "hello",
        protocolVersion: PROTOCOL_VERSION + 1,
        executorId: "stale",
        browser: "chromium",
        extensionVersion: "9.0.0",
        bindings: [],
        journal: [],
      });
      const welcome = await waitFor(() => stale.received.find((m) => m.kind === "welcome"), "welcome");
      expect(welcome).toMatchObject({
        kind: "welcome",
        protocolVersion: PROTOCOL_VERSION,
        executorId: "stale",
        error: { code: "PROTOCOL_VERSION_MISMATCH" },
      });
      const logged = (text: string) => text.includes("PROTOCOL_VERSION_MISMATCH") && text.includes("stale");
      await waitFor(() => logged(stale.stderr.join("")), "the refusal on stderr");
      expect(logged(readFileSync(join(home, "logs", "host.log"), "utf8"))).toBe(true);

      // A worker needs a browser: the refused connection is not one, so its first command waits.
      const mcp = await connectMcp(home);
      const { run } = await tool<{ run: { id: string } }>(mcp, "run_create", { name: "versions" });
      const { worker } = await tool<{ worker: { id: string } }>(mcp, "worker_spawn", {
        runId: run.id,
        path: "/root",
        objective: "x",
      });
      await waitFor(
        () => stale.stderr.join("").includes("waits for an executor"),
        "the command held for an executor",
      );

      // A new connection (a second browser's host, relayed to this owner) with the right version gets it.
      const current = ScriptedExtension.spawn({ home, executorId: "current" });
      await current.hello();
      expect(current.received.find((m) => m.kind === "welcome")).not.toHaveProperty("error");
      const create = await waitFor(
        () => current.commandsFor(worker.id)[0],
        "the create on the new connection",
      );
      expect(create.type).toBe("conversation.create");
      current.submit(create);
      await waitFor(
        async () =>
          (
            await tool<{ worker: { attempt: { state: string } | null } }>(mcp, "worker_get", {
              workerId: worker.id,
            })
          ).worker.attempt?.state === "submitted",
        "the create recorded as submitted",
      );
      // Nothing but its welcome ever went to the refused executor: no command, and no ui.changed push either.
      expect(stale.received.map((m) => m.kind)).toEqual(["welcome"]);
      expect(stale.child.exitCode).toBeNull();

      await mcp.close();
      current.closeStdin();
      await current.exited;
      stale.closeStdin();
      await stale.exited;
    },
  );
});
