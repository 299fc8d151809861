// Packages skills/durable-continuation-output into dist/skills/durable-continuation-output.zip
// (docs/prompts.md, "Packaging"): an uploadable Agent Skills archive holding the folder
// `durable-continuation-output/` with SKILL.md at its root and nothing but the skill's own files. Usage: `npm run package:skill [-- --out <dir>]`.
import { lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { zipSync, type Zippable } from "fflate";

export const SKILL_NAME = "durable-continuation-output";
const REPO_ROOT = path.resolve(import.meta.dirname, "..");
export const DEFAULT_SKILL_DIR = path.join(REPO_ROOT, "skills", SKILL_NAME);
export const DEFAULT_OUT_DIR = path.join(REPO_ROOT, "dist", "skills");

/** Fixed entry time, so the same skill files always give the same archive bytes. */
export const ENTRY_MTIME = new Date(2000, 0, 1);

export interface SkillFrontmatter {
  readonly name: string;
  readonly description: string;
  readonly [key: string]: string;
}

export interface PackagedSkill {
  readonly zipPath: string;
  /** Archive entry names, sorted, e.g. `durable-continuation-output/SKILL.md`. */
  readonly entries: readonly string[];
  readonly frontmatter: SkillFrontmatter;
}

/**
 * Parses and checks SKILL.md's frontmatter: a `---` block of `key: value` lines (plain or quoted scalars
 * only) with the Agent Skills rules for `name` (1–64 lowercase letters, digits and single hyphens) and
 * `description` (1–1024 characters).
 */
export function parseSkillFrontmatter(skillMd: string): SkillFrontmatter {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(skillMd);
  if (!m) throw new Error("SKILL.md must start with a --- frontmatter block");
  const fields: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const kv = /^([A-Za-z][\w-]*):[ \t]*(.*)$/.exec(line);
    if (!kv) throw new Error(`unsupported frontmatter line: ${line}`);
    const key = kv[1]!;
    if (key in fields) throw new Error(`duplicate frontmatter key: ${key}`);
    fields[key] = unquote(kv[2]!.trim());
  }
  const name = fields.name ?? "";
  const description = fields.description ?? "";
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) || name.length > 64) {
    throw new Error(`frontmatter name '${name}' must be 1-64 lowercase letters, digits and single hyphens`);
  }
  if (description === "" || description.length > 1024) {
    throw new Error("frontmatter description must be 1-1024 characters");
  }
  return { ...fields, name, description };
}

function unquote(value: string): string {
  if (/^"(?:[^"\\]|\\.)*"$/.test(value)) return JSON.parse(value) as string;
  if (/^'(?:[^']|'')*'$/.test(value)) return value.slice(1, -1).replace(/''/g, "'");
  if (/^[|>]/.test(value)) throw new Error("block scalars are not supported in the frontmatter");
  return value;
}

/** The skill's regular files, relative and sorted; hidden files are left out and links refused. */
async function skillFiles(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const relPath = rel === "" ? entry.name : `${rel}/${entry.name}`;
    const stat = await lstat(path.join(dir, relPath));
    if (stat.isSymbolicLink()) throw new Error(`refusing to package a link: ${relPath}`);
    if (stat.isDirectory()) out.push(...(await skillFiles(dir, relPath)));
    else if (stat.isFile()) out.push(relPath);
  }
  return out;
}

export async function packageSkill(
  options: { skillDir?: string; outDir?: string } = {},
): Promise<PackagedSkill> {
  const skillDir = options.skillDir ?? DEFAULT_SKILL_DIR;
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const folder = path.basename(skillDir);
  const frontmatter = parseSkillFrontmatter(await readFile(path.join(skillDir, "SKILL.md"), "utf8"));
  if (frontmatter.name !== folder) {
    throw new Error(`frontmatter name '${frontmatter.name}' must match the folder name '${folder}'`);
  }
  const files: Zippable = {};
  for (const rel of await skillFiles(skillDir)) {
    files[`${folder}/${rel}`] = [
      new Uint8Array(await readFile(path.join(skillDir, rel))),
      { mtime: ENTRY_MTIME },
    ];
  }
  const zipPath = path.join(outDir, `${folder}.zip`);
  await mkdir(outDir, { recursive: true });
  await writeFile(zipPath, zipSync(files, { level: 9 }));
  return { zipPath, entries: Object.keys(files).sort(), frontmatter };
}

async function main(argv: readonly string[]): Promise<void> {
  const outIndex = argv.indexOf("--out");
  const outDir = outIndex >= 0 ? argv[outIndex + 1] : undefined;
  if (outIndex >= 0 && !outDir) throw new Error("--out needs a directory");
  const packaged = await packageSkill(outDir ? { outDir: path.resolve(outDir) } : {});
  process.stdout.write(`${packaged.zipPath}\n${packaged.entries.map((e) => `  ${e}`).join("\n")}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
