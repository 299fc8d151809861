// Bridges node:http and the SDK's web-standard Streamable HTTP transport without an extra framework. The SDK's own Node
// wrapper converts every request through @hono/node-server; we have already read and parsed the body ourselves, so the
// transport only needs the method, the headers and a URL, and its answer is written straight back.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

/** The part of `Headers` the transport reads (`get`, `entries`), served from Node's already-lowercased header object. */
class NodeRequestHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  /** The transport copies all headers into every request's info: a plain array is cheaper than a generator. */
  entries(): IterableIterator<[string, string]> {
    const out: [string, string][] = [];
    for (const key in this.raw) {
      const value = this.raw[key];
      if (value !== undefined) out.push([key, Array.isArray(value) ? value.join(", ") : value]);
    }
    return out[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(fn: (value: string, key: string) => void): void {
    for (const [key, value] of this.entries()) fn(value, key);
  }
}

/**
 * A Request as far as WebStandardStreamableHTTPServerTransport (SDK 1.32.2, pinned) looks at one when the body is passed
 * pre-parsed: `method`, `url` and `headers.get/entries`. The URL is the endpoint's canonical one, so a token carried in
 * the path never reaches request handlers.
 */
export function transportRequest(req: IncomingMessage, canonicalUrl: string): Request {
  return {
    method: req.method ?? "GET",
    url: canonicalUrl,
    headers: new NodeRequestHeaders(req.headers),
  } as unknown as Request;
}

/** Writes the transport's Response: JSON answers in one write, event streams chunk by chunk until either side ends. */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  if (response.body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  if (!(headers["content-type"] ?? "").startsWith("text/event-stream")) {
    // A JSON answer is one UTF-8 chunk already: pass the bytes on instead of decoding and re-encoding them.
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    headers["content-length"] = String(body.byteLength);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const onClose = () => {
    reader.cancel().catch(() => undefined);
  };
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The stream was cancelled (client gone) or errored; either way this response is over.
  } finally {
    res.off("close", onClose);
    res.end();
  }
}
