// The request checks of the MCP endpoint as plain functions: exact Host, parsed-origin allowlist, route, token.
import { describe, expect, it } from "vitest";
import {
  checkHost,
  checkOrigin,
  checkSingleHeaders,
  matchRoute,
  normalizeOrigins,
  TokenCheck,
} from "../../native-host/src/mcp/http-guards.ts";

describe("checkHost", () => {
  it("accepts only the loopback names with this port", () => {
    expect(checkHost({ host: "127.0.0.1:8765" }, 8765)).toBeUndefined();
    expect(checkHost({ host: "localhost:8765" }, 8765)).toBeUndefined();
    expect(checkHost({ host: "LOCALHOST:8765" }, 8765)).toBeUndefined();
    for (const host of [
      undefined,
      "127.0.0.1",
      "localhost",
      "127.0.0.1:8766",
      "[::1]:8765",
      "0.0.0.0:8765",
      "127.0.0.1:8765.evil",
    ]) {
      expect(checkHost(host === undefined ? {} : { host }, 8765)?.status, String(host)).toBe(403);
    }
  });
});

describe("checkSingleHeaders", () => {
  it("refuses a repeated Host, Origin, Authorization or MCP header with 400 and lets single ones through", () => {
    const port = "127.0.0.1:8765";
    expect(checkSingleHeaders({ headersDistinct: { host: [port], accept: ["a", "b"] } })).toBeUndefined();
    for (const name of ["host", "origin", "authorization", "mcp-session-id", "mcp-protocol-version"]) {
      const refusal = checkSingleHeaders({ headersDistinct: { host: [port], [name]: ["x", "x"] } });
      expect(refusal?.status, name).toBe(400);
      expect(refusal?.message.toLowerCase(), name).toContain(`2 ${name} headers`);
    }
  });
});

describe("checkOrigin", () => {
  const allowed = normalizeOrigins(["https://chatgpt.com", "http://localhost:3000"]);

  it("lets requests without Origin through and refuses every other origin unless listed exactly", () => {
    expect(checkOrigin({}, allowed)).toBeUndefined();
    expect(checkOrigin({ origin: "https://chatgpt.com" }, allowed)).toBeUndefined();
    expect(checkOrigin({ origin: "https://chatgpt.com:443" }, allowed)).toBeUndefined();
    expect(checkOrigin({ origin: "http://localhost:3000" }, allowed)).toBeUndefined();
    for (const origin of [
      "https://chatgpt.com.evil.test",
      "https://evil.chatgpt.com",
      "http://chatgpt.com",
      "http://localhost:3001",
      "http://localhost",
      "null",
      "file://",
      "not a url",
    ]) {
      expect(checkOrigin({ origin }, allowed)?.status, origin).toBe(403);
    }
    expect(checkOrigin({ origin: "http://127.0.0.1:8765" }, normalizeOrigins([]))?.status).toBe(403);
  });

  it("refuses allowlist entries that are not bare origins", () => {
    expect(() => normalizeOrigins(["https://chatgpt.com/path"])).toThrow();
    expect(() => normalizeOrigins(["chatgpt.com"])).toThrow();
    expect(() => normalizeOrigins(["null"])).toThrow();
  });
});

describe("matchRoute", () => {
  it("knows /mcp and /mcp/<token> only", () => {
    expect(matchRoute("/mcp")).toEqual({ pathToken: undefined });
    expect(matchRoute("/mcp?x=1")).toEqual({ pathToken: undefined });
    expect(matchRoute("/mcp/")).toEqual({ pathToken: undefined });
    expect(matchRoute("/mcp/abc")).toEqual({ pathToken: "abc" });
    expect(matchRoute("/mcp/abc?y")).toEqual({ pathToken: "abc" });
    for (const url of [undefined, "", "/", "/mcpx", "/mcp/a/b", "http://127.0.0.1/mcp", "/MCP"]) {
      expect(matchRoute(url), String(url)).toBeUndefined();
    }
  });
});

describe("TokenCheck", () => {
  const token = "a".repeat(63) + "b";
  const check = new TokenCheck(token);

  it("matches only the exact token", () => {
    expect(check.matches(token)).toBe(true);
    expect(check.matches("a".repeat(64))).toBe(false);
    expect(check.matches(token + "b")).toBe(false);
    expect(check.matches(token.slice(1))).toBe(false);
    expect(check.matches("")).toBe(false);
  });

  it("requires every presented token to match and at least one to be presented", () => {
    expect(check.check({ authorization: `Bearer ${token}` }, { pathToken: undefined })).toBeUndefined();
    expect(check.check({ authorization: `bearer  ${token} ` }, { pathToken: undefined })).toBeUndefined();
    expect(check.check({}, { pathToken: token })).toBeUndefined();
    expect(check.check({ authorization: `Bearer ${token}` }, { pathToken: token })).toBeUndefined();
    expect(check.check({}, { pathToken: undefined })?.status).toBe(401);
    expect(check.check({ authorization: token }, { pathToken: undefined })?.status).toBe(401);
    expect(check.check({ authorization: "Bearer x" }, { pathToken: token })?.status).toBe(401);
    expect(check.check({ authorization: `Bearer ${token}` }, { pathToken: "x" })?.status).toBe(401);
  });

  it("refuses a short token at construction", () => {
    expect(() => new TokenCheck("short")).toThrow();
  });
});
