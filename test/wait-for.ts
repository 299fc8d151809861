// The one way tests wait: poll a condition until it holds or a deadline passes (never a bare sleep). The suites'
// helpers (e2e harness, scripted extension, MCP helpers) set their own deadline and polling interval on top of it.

/**
 * Resolves with the first value of `probe` that is neither undefined nor false; rejects naming `what` once
 * `timeoutMs` has passed. Polls every `pollMs` (0 for in-process conditions: the next timers phase).
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs: number,
  pollMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
