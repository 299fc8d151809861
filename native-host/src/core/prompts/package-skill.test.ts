// The skill archive (skills/, docs/prompts.md): packaged into a temp dir, read back with the same library.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_SKILL_DIR,
  packageSkill,
  parseSkillFrontmatter,
  SKILL_NAME,
} from "../../../../scripts/package-skill.ts";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "skill-zip-"));
  dirs.push(dir);
  return dir;
}

describe("packageSkill", () => {
  it("writes an archive holding only the skill folder with SKILL.md at its root", async () => {
    const outDir = await tempDir();
    const packaged = await packageSkill({ outDir });
    expect(packaged.zipPath).toBe(path.join(outDir, `${SKILL_NAME}.zip`));

    const entries = unzipSync(new Uint8Array(await readFile(packaged.zipPath)));
    expect(Object.keys(entries)).toEqual([`${SKILL_NAME}/SKILL.md`]);
    const skillMd = strFromU8(entries[`${SKILL_NAME}/SKILL.md`]!);
    expect(skillMd).toBe(await readFile(path.join(DEFAULT_SKILL_DIR, "SKILL.md"), "utf8"));

    const frontmatter = parseSkillFrontmatter(skillMd);
    expect(frontmatter.name).toBe(SKILL_NAME);
    expect(frontmatter.description.length).toBeGreaterThan(20);
  });

  it("is reproducible: the same files give the same bytes", async () => {
    const a = await packageSkill({ outDir: await tempDir() });
    const b = await packageSkill({ outDir: await tempDir() });
    expect(await readFile(a.zipPath)).toEqual(await readFile(b.zipPath));
  });

  it("keeps nested skill files, leaves hidden files out and requires the name to match the folder", async () => {
    const skillDir = path.join(await tempDir(), "demo-skill");
    await mkdir(path.join(skillDir, "reference"), { recursive: true });
    await writeFile(
      path.join(skillDir, "SKILL.md"),
      "---\nname: demo-skill\ndescription: Demo.\n---\nBody\n",
    );
    await writeFile(path.join(skillDir, "reference", "notes.md"), "notes\n");
    await writeFile(path.join(skillDir, ".DS_Store"), "junk");
    const packaged = await packageSkill({ skillDir, outDir: await tempDir() });
    const entries = unzipSync(new Uint8Array(await readFile(packaged.zipPath)));
    expect(Object.keys(entries).sort()).toEqual(["demo-skill/SKILL.md", "demo-skill/reference/notes.md"]);

    await writeFile(path.join(skillDir, "SKILL.md"), "---\nname: other-name\ndescription: Demo.\n---\n");
    await expect(packageSkill({ skillDir, outDir: await tempDir() })).rejects.toThrow(
      /must match the folder/,
    );
  });

  it("rejects a frontmatter the Agent Skills format does not allow", () => {
    expect(() => parseSkillFrontmatter("# no frontmatter\n")).toThrow(/frontmatter/);
    expect(() => parseSkillFrontmatter("---\nname: Bad_Name\ndescription: x\n---\n")).toThrow(/name/);
    expect(() => parseSkillFrontmatter("---\nname: ok\n---\n")).toThrow(/description/);
    expect(parseSkillFrontmatter("---\nname: 'ok-2'\ndescription: \"a: b\"\n---\nbody")).toEqual({
      name: "ok-2",
      description: "a: b",
    });
  });
});
