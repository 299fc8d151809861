// The one ordered way out to the host: every report (results, bindings, observations, `hello`) runs as a step after
// the earlier ones and goes out only on the port `hello` went out on. Nothing is queued in memory while disconnected:
// what the host was not told stays marked in its owner's table and the next `hello` carries it (docs/extension.md).
import type { ExtensionMessage } from "../../shared/native-messages.ts";
import type { PortHandle } from "./native-connection.ts";

export class Outbox {
  /** Steps run one at a time, so `hello` and live reports never interleave inconsistently. */
  private chain: Promise<unknown> = Promise.resolve();
  private pendingSteps = 0;
  /** The port `hello` went out on; reports are sent only there. */
  private port: PortHandle | undefined;

  /** Runs `fn` after every earlier step. */
  step<T>(fn: () => Promise<T>): Promise<T> {
    this.pendingSteps += 1;
    const result = this.chain.then(fn).finally(() => {
      this.pendingSteps -= 1;
    });
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Sends on the port `hello` went out on; false if there is none (the next `hello` carries the news). */
  send(message: ExtensionMessage): boolean {
    return this.port?.send(message) ?? false;
  }

  /** `hello` went out on `port`: reports follow it there. */
  opened(port: PortHandle): void {
    this.port = port;
  }

  /** The native port closed: nothing goes out until the next `hello`. */
  closed(): void {
    this.port = undefined;
  }

  /** Steps queued or running. */
  get pending(): number {
    return this.pendingSteps;
  }
}
