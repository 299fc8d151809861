// What `hello` tells the host on each new native port (docs/host.md): every binding with its last observation, the
// journal entries the host has not been told of, and this browser's limit of tabs generating at once. Once the host
// answers (`welcome`), what that `hello` carried is marked as known, so it is not reported again.
import { MAX_GENERATING_LIMIT, PROTOCOL_VERSION, type Hello } from "../../shared/native-messages.ts";
import type { ExtensionApi } from "../lib/browser-api.ts";
import type { Logger } from "../lib/logger.ts";
import type { BindingStore } from "./binding-store.ts";
import type { CommandRunner } from "./command-runner.ts";
import type { BindingRecord } from "./db.ts";
import type { ExecutorSettings } from "./executor-settings.ts";
import { guard } from "./guard.ts";
import { helloPhase, needsReport } from "./journal.ts";
import type { PortHandle } from "./native-connection.ts";
import type { Observations } from "./observations.ts";
import type { Outbox } from "./outbox.ts";

export interface HelloExchangeDeps {
  readonly api: ExtensionApi;
  readonly log: Logger;
  readonly browser: string;
  readonly outbox: Outbox;
  readonly settings: ExecutorSettings;
  readonly bindings: BindingStore;
  readonly observations: Observations;
  readonly runner: CommandRunner;
  /** Resolves once recovery is done: `hello` reports what it found. */
  readonly ready: () => Promise<void>;
}

interface HelloContents {
  readonly commandIds: string[];
  readonly bindings: BindingRecord[];
}

export class HelloExchange {
  /** What each port's `hello` carried, by port generation, until the host answers it. */
  private readonly contents = new Map<number, HelloContents>();

  constructor(private readonly deps: HelloExchangeDeps) {}

  /** A native port opened: `hello` goes out on it in an outbox step, and reports follow it there. */
  send(port: PortHandle): void {
    guard(
      this.deps.log,
      "hello",
      this.deps.outbox.step(async () => {
        await this.deps.ready();
        const hello = await this.build();
        if (port.send(hello.message)) {
          this.deps.outbox.opened(port);
          this.contents.set(port.generation, hello.contents);
        }
      }),
    );
  }

  /** The host answered our `hello`: what it carried is now known to the host. */
  welcomed(generation: number): Promise<void> {
    const contents = this.contents.get(generation);
    this.contents.delete(generation);
    if (!contents) return Promise.resolve();
    return this.deps.outbox.step(async () => {
      await this.deps.runner.acknowledged(contents.commandIds);
      await this.deps.bindings.toldInHello(contents.bindings);
    });
  }

  private async build(): Promise<{ message: Hello; contents: HelloContents }> {
    const { api, runner } = this.deps;
    const observed = new Map((await this.deps.observations.all()).map((o) => [o.workerId, o]));
    const bindings = (await this.deps.bindings.all()).slice(0, 1_000);
    const entries = (await runner.entries()).filter(needsReport).slice(0, 1_000);
    const message: Hello = {
      kind: "hello",
      protocolVersion: PROTOCOL_VERSION,
      executorId: this.deps.settings.executorId,
      browser: this.deps.browser,
      extensionVersion: api.runtime.getManifest().version,
      bindings: bindings.map((b) => {
        // A detached worker's last observation still says whether its turn was running (the host decides on it).
        const o = b.state !== "unavailable" ? observed.get(b.workerId) : undefined;
        return {
          workerId: b.workerId,
          binding: b.state,
          ...(b.url !== undefined ? { url: b.url } : {}),
          ...(o
            ? {
                observed: {
                  state: o.state,
                  seq: o.seq,
                  ...(o.errorCode !== undefined ? { errorCode: o.errorCode } : {}),
                },
              }
            : {}),
        };
      }),
      journal: entries.map((e) => ({
        commandId: e.commandId,
        workerId: e.workerId,
        phase: helloPhase(e, runner.inFlightHere(e.commandId)),
        ...(e.errorCode !== undefined ? { errorCode: e.errorCode } : {}),
        ...(e.url !== undefined ? { url: e.url } : {}),
      })),
      // A preference stored out of range must not make the host refuse the whole hello.
      maxGenerating: Math.min(this.deps.settings.maxGenerating, MAX_GENERATING_LIMIT),
    };
    const told = entries.filter((e) => e.phase === "submitted" || e.phase === "failed");
    return { message, contents: { commandIds: told.map((e) => e.commandId), bindings } };
  }
}
