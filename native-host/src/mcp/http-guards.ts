// Request checks of the loopback MCP endpoint, in the order they run before any body byte is read (docs/mcp.md):
// single headers → Host (DNS rebinding) → Origin (browsers) → route → token → body size.
import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { MCP_REALM } from "./server-name.ts";

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface Refusal {
  readonly status: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Headers that decide a check and must come once. Node keeps only the first `Host`, `Origin` and `Authorization` and
 * joins repeated custom headers with ", ", so a second copy would be silently ignored or turned into an unknown session
 * id (404); a proxy or another parser may pick the other copy. An ambiguous request is refused instead.
 */
const SINGLE_HEADERS = ["Host", "Origin", "Authorization", "Mcp-Session-Id", "MCP-Protocol-Version"] as const;

/** 400 when any of SINGLE_HEADERS is repeated (counted on `headersDistinct`, which keeps every copy). */
export function checkSingleHeaders(req: Pick<IncomingMessage, "headersDistinct">): Refusal | undefined {
  for (const name of SINGLE_HEADERS) {
    const count = req.headersDistinct[name.toLowerCase()]?.length ?? 0;
    if (count > 1) return { status: 400, message: `Bad Request: ${count} ${name} headers, send exactly one` };
  }
  return undefined;
}

/** `Host` must name the loopback listener exactly (any other name is a rebinding attempt). */
export function checkHost(headers: IncomingHttpHeaders, port: number): Refusal | undefined {
  const host = headers.host?.toLowerCase();
  if (host === `127.0.0.1:${port}` || host === `localhost:${port}`) return undefined;
  return { status: 403, message: "Forbidden: Host must be 127.0.0.1 or localhost with this server's port" };
}

/** Parses an allowlist once; an entry that is not a serialisable origin (scheme://host[:port]) is a startup error. */
export function normalizeOrigins(origins: readonly string[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const entry of origins) {
    const parsed = parseOrigin(entry);
    const url = parsed === undefined ? undefined : new URL(entry);
    if (parsed === undefined || url?.pathname !== "/" || url.search !== "" || url.hash !== "") {
      throw new Error(`allowedOrigins: '${entry}' is not an origin like https://example.com`);
    }
    out.add(parsed);
  }
  return out;
}

/** Any `Origin` (a browser page) is refused unless its parsed origin is exactly on the allowlist. Never by prefix. */
export function checkOrigin(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>): Refusal | undefined {
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  const parsed = parseOrigin(origin);
  if (parsed !== undefined && allowed.has(parsed)) return undefined;
  return { status: 403, message: "Forbidden: cross-origin requests are not accepted" };
}

function parseOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    // URL.origin is "null" for opaque origins (file:, data:, sandboxed frames); those never match.
    return url.origin === "null" ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

export interface Route {
  /** The token carried in the path (`/mcp/<token>`), if any. */
  readonly pathToken: string | undefined;
}

/** `/mcp` or `/mcp/<token>` (a query string is ignored); anything else is not ours. */
export function matchRoute(rawUrl: string | undefined): Route | undefined {
  if (rawUrl === undefined || !rawUrl.startsWith("/")) return undefined;
  const q = rawUrl.indexOf("?");
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  if (path === "/mcp" || path === "/mcp/") return { pathToken: undefined };
  if (!path.startsWith("/mcp/")) return undefined;
  const token = path.slice("/mcp/".length);
  if (token.length === 0 || token.includes("/")) return undefined;
  return { pathToken: token };
}

/**
 * Compares tokens in constant time (`timingSafeEqual` on equal-length buffers). A candidate of another length is
 * refused without comparing: that reveals only the token's length, which is no secret (64 hex digits).
 */
export class TokenCheck {
  private expected: Buffer;

  constructor(token: string) {
    this.expected = TokenCheck.encode(token);
  }

  /** Takes a new token (rotation): from the next request on, only it is accepted. */
  replace(token: string): void {
    this.expected = TokenCheck.encode(token);
  }

  private static encode(token: string): Buffer {
    if (token.length < 16) throw new Error("MCP token must be at least 16 characters");
    return Buffer.from(token, "utf8");
  }

  matches(candidate: string): boolean {
    const given = Buffer.from(candidate, "utf8");
    return given.length === this.expected.length && timingSafeEqual(given, this.expected);
  }

  /** Every token the request presents (Bearer header, path) must be right, and there must be at least one. */
  check(headers: IncomingHttpHeaders, route: Route): Refusal | undefined {
    const presented: string[] = [];
    const auth = headers.authorization;
    if (auth !== undefined) {
      const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth);
      presented.push(m ? m[1]! : "");
    }
    if (route.pathToken !== undefined) presented.push(safeDecode(route.pathToken));
    let good = presented.length > 0;
    for (const t of presented) good = this.matches(t) && good;
    if (good) return undefined;
    return {
      status: 401,
      message:
        presented.length === 0
          ? "Unauthorized: send Authorization: Bearer <token> or use the /mcp/<token> URL"
          : "Unauthorized: wrong token",
      headers: { "WWW-Authenticate": `Bearer ${MCP_REALM}` },
    };
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A declared Content-Length over the limit is refused before reading. */
export function checkDeclaredLength(headers: IncomingHttpHeaders, maxBytes: number): Refusal | undefined {
  const declared = headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBytes) return tooLarge(maxBytes);
  return undefined;
}

export function tooLarge(maxBytes: number): Refusal {
  return { status: 413, message: `Payload Too Large: request body must not exceed ${maxBytes} bytes` };
}

export type BodyResult =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly refusal: Refusal };

/** Reads the body, counting bytes as they stream in (chunked bodies have no Content-Length); stops past the limit. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        done = true;
        cleanup();
        chunks.length = 0;
        resolve({ ok: false, refusal: tooLarge(maxBytes) });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (done) return;
      done = true;
      cleanup();
      resolve({ ok: true, text: Buffer.concat(chunks, received).toString("utf8") });
    };
    const onError = (error: Error) => {
      if (done) return;
      done = true;
      cleanup();
      reject(error);
    };
    const onClose = () => onError(new Error("request closed before its body was complete"));
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
