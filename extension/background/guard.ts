// Work started without waiting for it (event listeners, background revivals) must not fail unseen: its error is
// logged as a warning, and nothing else happens.
import { errorText, type Logger } from "../lib/logger.ts";

export function guard(log: Logger, what: string, work: Promise<unknown>): void {
  work.catch((e: unknown) => log.warn(`${what}: ${errorText(e)}`));
}
