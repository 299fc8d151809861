// The executable a native host manifest points at. Browsers start hosts with their own environment and PATH, so the
// launcher pins the absolute Node binary, the project's CLI entry and the data directory (ORCHESTRATOR_HOME), so that
// a browser-launched host uses the same Node, code and data as the `orchestrator install` that wrote it.
import { pathFor } from "./browsers.ts";

export interface LauncherSpec {
  /** Absolute path of the Node binary (process.execPath of the installing CLI). */
  readonly node: string;
  /** Absolute path of `bin/orchestrator.js`. */
  readonly entry: string;
  /** The data directory, exported as ORCHESTRATOR_HOME. */
  readonly dataDir: string;
}

export function launcherPath(dataDir: string, platform: NodeJS.Platform): string {
  const p = pathFor(platform);
  return p.join(dataDir, "bin", platform === "win32" ? "native-host.cmd" : "native-host.sh");
}

/** POSIX shell single-quoting: everything literal, `'` written as `'\''`. */
function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** cmd.exe: `%` must be doubled even inside quotes; `"` cannot occur in Windows paths. */
function cmdEscape(s: string): string {
  return s.replaceAll("%", "%%");
}

export function launcherScript(spec: LauncherSpec, platform: NodeJS.Platform): string {
  if (platform === "win32") {
    return [
      "@echo off",
      "rem ChatGPT Orchestrator native host launcher, written by `orchestrator install`. Browsers start it through",
      "rem the native messaging manifest. Nothing may be printed to stdout: it carries the message framing.",
      `set "ORCHESTRATOR_HOME=${cmdEscape(spec.dataDir)}"`,
      `"${cmdEscape(spec.node)}" "${cmdEscape(spec.entry)}" native-host %*`,
      "",
    ].join("\r\n");
  }
  return [
    "#!/bin/sh",
    "# ChatGPT Orchestrator native host launcher, written by `orchestrator install`. Browsers start it through",
    "# the native messaging manifest. Nothing may be printed to stdout: it carries the message framing.",
    `ORCHESTRATOR_HOME=${shQuote(spec.dataDir)}`,
    "export ORCHESTRATOR_HOME",
    `exec ${shQuote(spec.node)} ${shQuote(spec.entry)} native-host "$@"`,
    "",
  ].join("\n");
}

/** Reads back what a launcher written by `launcherScript` runs; undefined if it is not one of ours. */
export function parseLauncher(text: string): LauncherSpec | undefined {
  const lines = text.split(/\r?\n/);
  if (lines[0] === "@echo off") {
    const home = lines.map((l) => /^set "ORCHESTRATOR_HOME=(.*)"$/.exec(l)?.[1]).find((v) => v !== undefined);
    const run = lines.map((l) => /^"([^"]+)" "([^"]+)" native-host %\*$/.exec(l)).find((m) => m !== null);
    if (home === undefined || run?.[1] === undefined || run[2] === undefined) return undefined;
    const unescape = (s: string) => s.replaceAll("%%", "%");
    return { node: unescape(run[1]), entry: unescape(run[2]), dataDir: unescape(home) };
  }
  let dataDir: string | undefined;
  let command: string[] | undefined;
  for (const line of lines) {
    if (line.startsWith("ORCHESTRATOR_HOME="))
      dataDir = shWords(line.slice("ORCHESTRATOR_HOME=".length))?.[0];
    if (line.startsWith("exec ")) command = shWords(line.slice(5));
  }
  const [node, entry, sub] = command ?? [];
  if (dataDir === undefined || node === undefined || entry === undefined || sub !== "native-host")
    return undefined;
  return { node, entry, dataDir };
}

/** Splits the words `shQuote` produces (single-quoted runs, `\'`, `"$@"`); undefined on anything else. */
function shWords(s: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < s.length) {
    while (s[i] === " ") i++;
    if (i >= s.length) break;
    let word = "";
    while (i < s.length && s[i] !== " ") {
      if (s[i] === "'") {
        const end = s.indexOf("'", i + 1);
        if (end < 0) return undefined;
        word += s.slice(i + 1, end);
        i = end + 1;
      } else if (s.startsWith("\\'", i)) {
        word += "'";
        i += 2;
      } else if (s.startsWith('"$@"', i)) {
        word += '"$@"';
        i += 4;
      } else if (/[A-Za-z0-9_./-]/.test(s[i] ?? "")) {
        word += s[i];
        i++;
      } else {
        return undefined;
      }
    }
    words.push(word);
  }
  return words;
}
