// Windows registration is exercised through an injected `reg.exe`: it cannot run here.
import { describe, expect, it } from "vitest";
import { BROWSERS, resolveTargets, UsageError, userManifestTarget } from "./browsers.ts";
import type { ExecFn, ExecResult } from "./context.ts";
import { NATIVE_HOST_NAME } from "../../../shared/extension-ids.ts";
import {
  deleteRegistryKey,
  parseRegDefaultValue,
  readRegistryDefault,
  regAddArgs,
  regDeleteArgs,
  setRegistryDefault,
} from "./install.ts";

const pe = {
  platform: "win32" as const,
  env: { USERPROFILE: "C:\\Users\\me", LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local" },
};

/** A fake `reg` holding one registry in memory, recording every call. */
function fakeReg(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial));
  const calls: string[][] = [];
  const ok = (stdout = ""): ExecResult => ({ code: 0, stdout, stderr: "" });
  const missing: ExecResult = {
    code: 1,
    stdout: "",
    stderr: "ERROR: The system was unable to find the specified registry key or value.",
  };
  const exec: ExecFn = (file, args) => {
    calls.push([file, ...args]);
    const [verb, key = ""] = args;
    if (verb === "query") {
      const value = values.get(key);
      return Promise.resolve(
        value === undefined ? missing : ok(`\r\n${key}\r\n    (Default)    REG_SZ    ${value}\r\n\r\n`),
      );
    }
    if (verb === "add") {
      values.set(key, args[args.indexOf("/d") + 1] ?? "");
      return Promise.resolve(ok("The operation completed successfully.\r\n"));
    }
    if (verb === "delete") return Promise.resolve(values.delete(key) ? ok() : missing);
    return Promise.resolve({ code: 1, stdout: "", stderr: "bad verb" });
  };
  return { exec, calls, values };
}

describe("Windows registration", () => {
  it("keeps manifests under %LOCALAPPDATA% and names them from HKCU keys of each browser", () => {
    const targets = BROWSERS.map((b) => userManifestTarget(b, pe));
    expect(targets.map((t) => [t.file, t.registryKey])).toEqual([
      [
        `C:\\Users\\me\\AppData\\Local\\chatgpt-orchestrator\\NativeMessagingHosts\\chrome\\${NATIVE_HOST_NAME}.json`,
        `HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`,
      ],
      [
        `C:\\Users\\me\\AppData\\Local\\chatgpt-orchestrator\\NativeMessagingHosts\\chromium\\${NATIVE_HOST_NAME}.json`,
        `HKCU\\Software\\Chromium\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`,
      ],
      [
        `C:\\Users\\me\\AppData\\Local\\chatgpt-orchestrator\\NativeMessagingHosts\\firefox\\${NATIVE_HOST_NAME}.json`,
        `HKCU\\Software\\Mozilla\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`,
      ],
      [
        `C:\\Users\\me\\AppData\\Local\\chatgpt-orchestrator\\NativeMessagingHosts\\librewolf\\${NATIVE_HOST_NAME}.json`,
        `HKCU\\Software\\LibreWolf\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`,
      ],
    ]);
  });

  it("builds reg.exe argument vectors (no shell: spaces in paths need no quoting)", () => {
    const key = `HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`;
    const file = "C:\\Users\\Jane Doe\\AppData\\Local\\x.json";
    expect(regAddArgs(key, file)).toEqual(["add", key, "/ve", "/t", "REG_SZ", "/d", file, "/f"]);
    expect(regDeleteArgs(key)).toEqual(["delete", key, "/f"]);
  });

  it("adds the key when missing, leaves it alone when it already names the manifest, updates it otherwise", async () => {
    const target = userManifestTarget("firefox", pe);
    const key = target.registryKey ?? "";
    const reg = fakeReg();
    expect(await setRegistryDefault(reg.exec, key, target.file)).toBe("created");
    expect(reg.calls).toEqual([
      ["reg", "query", key, "/ve"],
      ["reg", "add", key, "/ve", "/t", "REG_SZ", "/d", target.file, "/f"],
    ]);
    expect(await readRegistryDefault(reg.exec, key)).toBe(target.file);

    reg.calls.length = 0;
    expect(await setRegistryDefault(reg.exec, key, target.file)).toBe("unchanged");
    expect(reg.calls).toEqual([["reg", "query", key, "/ve"]]);

    reg.values.set(key, "C:\\old\\place.json");
    expect(await setRegistryDefault(reg.exec, key, target.file)).toBe("updated");
    expect(reg.values.get(key)).toBe(target.file);
  });

  it("deletes the key on uninstall, and reports absent when there is none", async () => {
    const key = userManifestTarget("chrome", pe).registryKey ?? "";
    const reg = fakeReg({ [key]: "C:\\m.json" });
    expect(await deleteRegistryKey(reg.exec, key)).toBe("removed");
    expect(reg.calls.at(-1)).toEqual(["reg", "delete", key, "/f"]);
    expect(await deleteRegistryKey(reg.exec, key)).toBe("absent");
  });

  it("reports a failing reg.exe", async () => {
    const exec: ExecFn = (_file, args) =>
      Promise.resolve(
        args[0] === "query"
          ? { code: 1, stdout: "", stderr: "" }
          : { code: 1, stdout: "", stderr: "ERROR: Access is denied." },
      );
    await expect(setRegistryDefault(exec, "HKCU\\Software\\X", "C:\\m.json")).rejects.toThrow(
      /Access is denied/,
    );
  });

  it("parses `reg query /ve` output, localized or not", () => {
    expect(
      parseRegDefaultValue(
        "\r\nHKEY_CURRENT_USER\\Software\\X\r\n    (Default)    REG_SZ    C:\\a b\\m.json\r\n",
      ),
    ).toBe("C:\\a b\\m.json");
    expect(
      parseRegDefaultValue("HKEY_CURRENT_USER\\Software\\X\n    (Standard)    REG_SZ    D:\\m.json\n"),
    ).toBe("D:\\m.json");
    expect(parseRegDefaultValue("HKEY_CURRENT_USER\\Software\\X\n    (Default)    REG_SZ\n")).toBeUndefined();
  });

  it("refuses --profile-dir on Windows, where Chrome reads only the registry", () => {
    expect(() => resolveTargets(["chromium"], "C:\\udd", { ...pe, cwd: "C:\\" })).toThrow(UsageError);
  });
});
