// A scripted extension for integration tests: spawns the real host executable and speaks framed messages to it.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import {
  type CommandMessage,
  type ExtensionMessage,
  type HostMessage,
  hostMessageSchema,
  PROTOCOL_VERSION,
} from "../../shared/native-messages.ts";
import { encodeFrame, FrameDecoder } from "../../native-host/src/bridge/native-framing.ts";
import { waitFor as waitForCondition } from "../wait-for.ts";

const ROOT = join(import.meta.dirname, "..", "..");

export interface SpawnOptions {
  readonly home: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly executorId?: string;
}

/** Waits for a condition with a deadline instead of sleeping (polling every 10 ms). */
export function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  return waitForCondition(probe, what, timeoutMs, 10);
}

export class ScriptedExtension {
  readonly received: HostMessage[] = [];
  readonly invalid: unknown[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly seqs = new Map<string, number>();
  private requestSeq = 0;

  private constructor(
    readonly child: ChildProcess,
    readonly executorId: string,
  ) {
    const decoder = new FrameDecoder();
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const event of decoder.push(chunk)) {
        const parsed = event.kind === "message" ? hostMessageSchema.safeParse(event.value) : undefined;
        if (parsed?.success) this.received.push(parsed.data);
        else this.invalid.push(event);
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => this.stderr.push(chunk.toString()));
    this.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  }

  static spawn(opts: SpawnOptions): ScriptedExtension {
    const child = spawn(
      process.execPath,
      [join(ROOT, "bin", "orchestrator.js"), "native-host", "chrome-extension://test/"],
      {
        cwd: ROOT,
        env: { ...process.env, ORCHESTRATOR_HOME: opts.home, ORCHESTRATOR_MCP_PORT: "0", ...opts.env },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    return new ScriptedExtension(child, opts.executorId ?? "exec-test");
  }

  send(message: ExtensionMessage | Record<string, unknown>): void {
    this.child.stdin?.write(encodeFrame(message, Number.MAX_SAFE_INTEGER));
  }

  writeRaw(bytes: Buffer): void {
    this.child.stdin?.write(bytes);
  }

  async hello(
    bindings: Extract<ExtensionMessage, { kind: "hello" }>["bindings"] = [],
    journal: Extract<ExtensionMessage, { kind: "hello" }>["journal"] = [],
    settings: { maxGenerating?: number } = {},
  ): Promise<void> {
    const before = this.received.filter((m) => m.kind === "welcome").length;
    this.send({
      kind: "hello",
      protocolVersion: PROTOCOL_VERSION,
      executorId: this.executorId,
      browser: "chromium",
      extensionVersion: "0.1.0",
      bindings,
      journal,
      ...settings,
    });
    await waitFor(() => this.received.filter((m) => m.kind === "welcome").length > before, "welcome");
  }

  get commands(): CommandMessage[] {
    return this.received.filter((m): m is CommandMessage => m.kind === "command");
  }

  commandsFor(workerId: string): CommandMessage[] {
    return this.commands.filter((c) => c.workerId === workerId);
  }

  /** Acknowledges and reports a command as submitted, as the real executor would after the click. */
  submit(command: CommandMessage, url = `https://chatgpt.com/c/${command.workerId}`): void {
    this.send({ kind: "command.ack", commandId: command.commandId, workerId: command.workerId });
    this.send({
      kind: "command.result",
      commandId: command.commandId,
      workerId: command.workerId,
      outcome: "submitted",
      url,
    });
  }

  observe(
    workerId: string,
    state: "ready" | "generating" | "idle" | "error" | "closed",
    errorCode?: string,
  ): void {
    const seq = (this.seqs.get(workerId) ?? 0) + 1;
    this.seqs.set(workerId, seq);
    this.send({ kind: "conversation.state", workerId, state, seq, ...(errorCode ? { errorCode } : {}) });
  }

  setSeq(workerId: string, seq: number): void {
    this.seqs.set(workerId, seq);
  }

  /** Calls an operation through ui.request, exactly as the popup and dashboard do. */
  async ui<T = Record<string, unknown>>(op: string, params: unknown = {}): Promise<T> {
    const requestId = `r${++this.requestSeq}`;
    this.send({ kind: "ui.request", requestId, op, params });
    const response = await waitFor(
      () => this.received.find((m) => m.kind === "ui.response" && m.requestId === requestId),
      `ui.response to ${op}`,
    );
    if (response.kind !== "ui.response") throw new Error("unreachable");
    if (!response.ok) throw new Error(`${op}: ${response.error?.code} ${response.error?.message}`);
    return response.result as T;
  }

  async uiError(op: string, params: unknown = {}): Promise<{ code: string; message: string }> {
    const requestId = `r${++this.requestSeq}`;
    this.send({ kind: "ui.request", requestId, op, params });
    const response = await waitFor(
      () => this.received.find((m) => m.kind === "ui.response" && m.requestId === requestId),
      `ui.response to ${op}`,
    );
    if (response.kind !== "ui.response" || response.ok || !response.error)
      throw new Error(`${op} unexpectedly succeeded`);
    return response.error;
  }

  closeStdin(): void {
    this.child.stdin?.end();
  }

  kill(): void {
    this.child.kill("SIGKILL");
  }
}
