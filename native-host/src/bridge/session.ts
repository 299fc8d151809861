// One executor connection as the bridge keeps it: the framed channel, the executor it speaks for once its hello is
// in, the order its messages are handled in, and the UI answers it was given in pages.
import type { HostMessage } from "../../../shared/native-messages.ts";
import { PagedAnswers } from "./ui-pages.ts";

/** One framed channel to an executor: the browser's stdio port, or a relay's IPC socket. */
export interface Connection {
  readonly label: string;
  /** A relay's IPC socket (another browser's host, the CLI), not the browser's own native port. */
  readonly relayed?: boolean;
  send(message: HostMessage): void;
}

export interface Session {
  readonly conn: Connection;
  executorId: string | undefined;
  /** Its hello has been reconciled and welcomed: commands may be routed to it. */
  ready: boolean;
  /** Messages of one connection are applied strictly in arrival order. */
  queue: Promise<void>;
  /** ui.response answers cut into pages, waiting for their `nextCursor` requests. */
  readonly pages: PagedAnswers;
}

export function newSession(conn: Connection): Session {
  return { conn, executorId: undefined, ready: false, queue: Promise.resolve(), pages: new PagedAnswers() };
}
