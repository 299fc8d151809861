// Adopted workers' names and paths: named after the conversation's title, else the objective's first words, else
// the conversation's id; two adoptions never look alike, and paths stay unique and valid when names collide.
import { describe, expect, it } from "vitest";
import { adoptedName, adoptedPath, pathSegment, TITLE_NAME_MAX } from "./adopted-name.ts";
import { Simulation } from "./simulation.ts";

const ID_A = "6a1f0c2e-1111-4222-8333-944455556666";
const ID_B = "0b0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
/** The worker path grammar of worker_spawn (shared/operations/worker.ts). */
const VALID_PATH = /^\/root(\/[a-z0-9][a-z0-9._-]*)*$/;

function adopt(
  sim: Simulation,
  workerId: string,
  id: string,
  more: { runId?: string; newRun?: boolean; title?: string; objective?: string } = {},
) {
  const { runId = `run-${workerId}`, newRun = true, title, objective } = more;
  return sim.try({
    type: "worker.adopt",
    workerId,
    runId,
    conversationUrl: `https://chatgpt.com/c/${id}`,
    ...(newRun ? { newRun: { name: "kept" } } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(objective !== undefined ? { objective } : {}),
  });
}

describe("the name of an adopted worker", () => {
  it("is the conversation's title, on one line and at most 80 characters, cut after a word", () => {
    expect(adoptedName("  Refactor the\n billing module ", undefined, ID_A)).toBe(
      "Refactor the billing module",
    );
    const long = `Plan ${"the migration of every table ".repeat(5)}`;
    const name = adoptedName(long, "ignored objective", ID_A);
    expect(name.length).toBeLessThanOrEqual(TITLE_NAME_MAX);
    expect(name).toMatch(/^Plan the migration of every table .*[a-z]…$/);
    expect(long.startsWith(name.slice(0, -1))).toBe(true);
  });

  it("is the objective's first words (six at most, 48 characters) when the conversation has no title", () => {
    for (const untitled of [undefined, "", "   ", "ChatGPT", "New chat"])
      expect(adoptedName(untitled, "finish the refactor", ID_A)).toBe("finish the refactor");
    expect(adoptedName(undefined, "write the release notes for version two and tag it", ID_A)).toBe(
      "write the release notes for version…",
    );
    const wordy = adoptedName(undefined, "internationalisation localisation documentation everywhere", ID_A);
    expect(wordy.length).toBeLessThanOrEqual(48);
    expect(wordy).toBe("internationalisation localisation documentation…");
  });

  it("is `conversation <id prefix>` with neither, so two such adoptions still differ", () => {
    expect(adoptedName(undefined, undefined, ID_A)).toBe("conversation 6a1f0c2e");
    expect(adoptedName(undefined, undefined, ID_B)).not.toBe(adoptedName(undefined, undefined, ID_A));
  });

  it("makes valid path segments of any name", () => {
    expect(pathSegment("Refactor the billing module")).toBe("refactor-the-billing-module");
    expect(pathSegment("Café — Überblick!")).toBe("cafe-uberblick");
    expect(pathSegment("日本語のタイトル")).toBe("conversation");
    expect(pathSegment(`--${"x".repeat(100)}`)).toHaveLength(40);
    for (const name of ["A.B", "-x-", "… a", "conversation 6a1f0c2e"])
      expect(`/root/${pathSegment(name)}`).toMatch(VALID_PATH);
  });

  it("never gives a path twice in a run", () => {
    const taken = new Set<string>();
    const paths = ["Same title", "Same title", "same   TITLE", "Other"].map((name) => {
      const path = adoptedPath(taken, name);
      taken.add(path);
      return path;
    });
    expect(paths).toEqual(["/root", "/root/same-title", "/root/same-title-2", "/root/other"]);
  });
});

describe("adopting two conversations", () => {
  it("gives them distinguishable names: the titles, or the objectives' words", () => {
    const sim = new Simulation();
    expect(adopt(sim, "w-a", ID_A, { title: "Billing refactor" }).error).toBeUndefined();
    expect(
      adopt(sim, "w-b", ID_B, { objective: "migrate the database to Postgres 17" }).error,
    ).toBeUndefined();
    expect(sim.worker("w-a")).toMatchObject({ name: "Billing refactor", path: "/root" });
    expect(sim.worker("w-b")).toMatchObject({
      name: "migrate the database to Postgres 17",
      path: "/root",
      objective: "migrate the database to Postgres 17",
    });
  });

  it("joining one run with the same title: same name, different valid paths", () => {
    const sim = new Simulation();
    expect(adopt(sim, "w-a", ID_A, { runId: "r", title: "Release notes" }).error).toBeUndefined();
    const ID_C = "1c0e4f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    expect(
      adopt(sim, "w-b", ID_B, { runId: "r", newRun: false, title: "Release notes" }).error,
    ).toBeUndefined();
    expect(
      adopt(sim, "w-c", ID_C, { runId: "r", newRun: false, title: "Release notes" }).error,
    ).toBeUndefined();
    const paths = ["w-a", "w-b", "w-c"].map((w) => sim.worker(w).path);
    expect(paths).toEqual(["/root", "/root/release-notes", "/root/release-notes-2"]);
    for (const p of paths) expect(p).toMatch(VALID_PATH);
    expect(sim.worker("w-c")).toMatchObject({ name: "Release notes", parentId: "w-a" });
  });
});
