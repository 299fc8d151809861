// A minimal logger the background and content script write to; tests capture it.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export function consoleLogger(prefix: string): Logger {
  return {
    // eslint-disable-next-line no-console -- the extension's diagnostics go to its own devtools console
    info: (message) => console.info(`${prefix} ${message}`),
    warn: (message) => console.warn(`${prefix} ${message}`),
  };
}

/** An error's message, whatever was thrown. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "object" && e !== null && "message" in e) return String(e.message);
  return String(e);
}
