// Which browsers doctor counts as installed: a program on PATH (Linux), an app bundle (macOS).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { browserSearchPlaces, findBrowser } from "./browsers.ts";

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("findBrowser", () => {
  it("finds an executable program on PATH, not a plain file or a directory", () => {
    home = mkdtempSync(path.join(tmpdir(), "orchestrator-browsers-"));
    const [a, b] = [path.join(home, "a"), path.join(home, "b")];
    mkdirSync(a);
    mkdirSync(b);
    const pe = { platform: "linux" as const, env: { HOME: home, PATH: `relative:${a}:${b}` } };
    expect(findBrowser("chromium", pe)).toBeUndefined();

    writeFileSync(path.join(a, "chromium"), "not executable");
    mkdirSync(path.join(a, "google-chrome"));
    expect(findBrowser("chromium", pe)).toBeUndefined();
    expect(findBrowser("chrome", pe)).toBeUndefined();

    writeFileSync(path.join(b, "chromium-browser"), "#!/bin/sh\n");
    chmodSync(path.join(b, "chromium-browser"), 0o755);
    expect(findBrowser("chromium", pe)).toBe(path.join(b, "chromium-browser"));
    expect(findBrowser("firefox", pe)).toBeUndefined();
    expect(browserSearchPlaces("chromium", "linux")).toBe("chromium, chromium-browser on PATH");
  });

  it("finds a macOS app bundle in ~/Applications", () => {
    home = mkdtempSync(path.join(tmpdir(), "orchestrator-browsers-"));
    const pe = { platform: "darwin" as const, env: { HOME: home } };
    expect(findBrowser("librewolf", pe)).toBeUndefined();
    mkdirSync(path.join(home, "Applications", "LibreWolf.app"), { recursive: true });
    expect(findBrowser("librewolf", pe)).toBe(path.join(home, "Applications", "LibreWolf.app"));
  });
});
