// The documentation a reader gets is self-contained: every relative link and image in README.md, CONTRIBUTING.md,
// docs/, skills/ and manifests/README.md points at a file of this repository (and, with `#anchor`, at a heading of
// it, by GitHub's slug rules); every section cited by name (`docs/host.md, "Tab slots"`) and every repository path
// named in the text exists; and no page cites documents a reader does not have (specifications, research notes,
// issue numbers, folders outside the repository).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");

function markdownUnder(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return markdownUnder(path);
    return e.name.endsWith(".md") ? [path] : [];
  });
}

const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  "manifests/README.md",
  ...markdownUnder("docs"),
  ...markdownUnder("skills"),
].sort();

/** The text with fenced code blocks blanked (line numbers kept), so code samples are neither links nor citations. */
function withoutFences(text: string): string {
  let fence: string | null = null;
  return text
    .split("\n")
    .map((line) => {
      const open = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence === null && open) {
        fence = open[1]![0]!.repeat(open[1]!.length);
        return "";
      }
      if (fence !== null) {
        if (line.trim().startsWith(fence)) fence = null;
        return "";
      }
      return line;
    })
    .join("\n");
}

const withoutCodeSpans = (line: string) => line.replace(/(`+)[^`]*?\1/g, "");

/** GitHub's heading anchor: the heading's text (markup removed), lower-cased, punctuation dropped, spaces to `-`. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images keep their text
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(/`/g, "")
    .replace(/(\*\*|__|\*|_(?=\S)|(?<=\S)_)/g, (m, _g, offset: number, s: string) =>
      // `_` inside a word (snake_case) is text; emphasis markers around words are not
      m === "_" && /\w/.test(s[offset - 1] ?? "") && /\w/.test(s[offset + 1] ?? "") ? m : "",
    )
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Every anchor a page offers: its headings' slugs (repeats get -1, -2, …) and explicit `id`/`name` attributes. */
function anchorsOf(file: string): Set<string> {
  const text = withoutFences(readFileSync(file, "utf8"));
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of text.split("\n")) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<[a-z][^>]*\s(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]!);
  }
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** Inline links and images `[t](target)`, reference definitions `[t]: target`, and HTML `src`/`href`. */
function linksOf(text: string): Link[] {
  const links: Link[] = [];
  withoutFences(text)
    .split("\n")
    .forEach((raw, i) => {
      const line = withoutCodeSpans(raw);
      const add = (target: string) => links.push({ line: i + 1, target: target.trim() });
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) add(m[1]!);
      const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(line);
      if (definition) add(definition[1]!);
      for (const m of line.matchAll(/\s(?:src|href)="([^"]+)"/g)) add(m[1]!);
    });
  return links;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");

/** What is wrong with one link of `page`, or null. */
function brokenLink(page: string, target: string): string | null {
  if (isExternal(target)) return null;
  const hash = target.indexOf("#");
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = pathPart === "" ? join(root, page) : resolve(root, dirname(page), pathPart);
  const rel = relative(root, file);
  if (rel === ".." || rel.startsWith(`..${sep}`)) return `climbs out of the repository`;
  if (!existsSync(file)) return `${rel} does not exist`;
  if (anchor === null || anchor === "") return null;
  if (statSync(file).isDirectory() || extname(file) !== ".md")
    return `#${anchor} on a file that is not markdown`;
  if (!anchorsOf(file).has(anchor)) return `${rel} has no heading #${anchor}`;
  return null;
}

/** The text of every heading of a markdown file, markup removed, lower-cased. */
function headingsOf(file: string): string[] {
  return withoutFences(readFileSync(file, "utf8"))
    .split("\n")
    .map((line) => /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1])
    .filter((h): h is string => h !== undefined)
    .map((h) => h.replace(/`/g, "").toLowerCase());
}

/**
 * Sections cited by name, `docs/host.md, "Tab slots"` or `[e2e.md](e2e.md), "How a browser is wired"`: the page
 * must exist and have a heading that starts with those words. Returns what is wrong with each citation that is.
 */
function brokenSectionCitations(page: string, text: string): string[] {
  const problems: string[] = [];
  withoutFences(text)
    .split("\n")
    .forEach((line, i) => {
      for (const m of line.matchAll(/((?:[\w.-]+\/)*[\w.-]+\.md)(?:\]\(([^)\s#]+)[^)]*\))?, "([^"]+)"/g)) {
        const [, name, target, section] = m;
        const candidates = [
          ...(target ? [resolve(root, dirname(page), target)] : []),
          resolve(root, dirname(page), name!),
          resolve(root, name!),
        ];
        const file = candidates.find((f) => existsSync(f));
        if (!file) {
          problems.push(`line ${i + 1}: ${name} does not exist`);
          continue;
        }
        const wanted = section!.toLowerCase();
        if (!headingsOf(file).some((h) => h.startsWith(wanted)))
          problems.push(`line ${i + 1}: ${relative(root, file)} has no section "${section}"`);
      }
    });
  return problems;
}

/** Paths of this repository named in the text (`docs/ui.md`, `skills/…/SKILL.md`, an image) must exist. */
function missingPaths(text: string): string[] {
  const missing: string[] = [];
  withoutFences(text)
    .split("\n")
    .forEach((line, i) => {
      for (const m of line.matchAll(
        /(?<![\w./-])((?:docs|skills|manifests)\/[\w./-]*[\w-]\.(?:md|svg|png))/g,
      ))
        if (!existsSync(join(root, m[1]!))) missing.push(`line ${i + 1}: ${m[1]} does not exist`);
    });
  return missing;
}

/** Citations of documents a reader of this repository does not have. */
const OUTSIDE_REFERENCES: [RegExp, string][] = [
  [/\bspec(?:ification)?\s*§/i, "a specification section"],
  [/\bspec\s+[0-9]/i, "a specification section"],
  [/\bresearch\//i, "a research file"],
  [/\barchitecture\s+§/i, "an outside architecture section"],
  [/\bissues?\s+#?[0-9]+/i, "an issue number"],
  [/(?<!\]\()\.\.\/shared\//, "a folder outside the repository"],
];

function outsideReferences(text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const [pattern, what] of OUTSIDE_REFERENCES) {
      const m = pattern.exec(line);
      if (m) found.push(`line ${i + 1}: "${m[0]}" (${what})`);
    }
  });
  return found;
}

describe("documentation links", () => {
  it("covers the pages a reader gets", () => {
    expect(PAGES).toEqual(
      expect.arrayContaining(["README.md", "CONTRIBUTING.md", "docs/getting-started.md"]),
    );
    expect(PAGES.length).toBeGreaterThan(15);
  });

  it.each(PAGES)("%s: every relative link and image exists, anchors included", (page) => {
    const problems = linksOf(readFileSync(join(root, page), "utf8"))
      .map(({ line, target }) => {
        const problem = brokenLink(page, target);
        return problem && `line ${line}: ${target} — ${problem}`;
      })
      .filter((p): p is string => p !== null);
    expect(problems).toEqual([]);
  });

  it.each(PAGES)("%s: every section cited by name and every path named exists", (page) => {
    const text = readFileSync(join(root, page), "utf8");
    expect([...brokenSectionCitations(page, text), ...missingPaths(text)]).toEqual([]);
  });

  it.each(PAGES)("%s: cites nothing outside the repository", (page) => {
    expect(outsideReferences(readFileSync(join(root, page), "utf8"))).toEqual([]);
  });
});

describe("the link checker itself", () => {
  it("makes GitHub's heading slugs", () => {
    expect(slug("`orchestrator start` (`npm start`)")).toBe("orchestrator-start-npm-start");
    expect(slug("Benchmark (`npm run bench:adapter`)")).toBe("benchmark-npm-run-benchadapter");
    expect(slug("2. First thing to try: keep one conversation going (no setup)")).toBe(
      "2-first-thing-to-try-keep-one-conversation-going-no-setup",
    );
    expect(slug("The `events_wait` call — **fast**")).toBe("the-events_wait-call--fast");
  });

  it("finds links but not code, and flags missing files, anchors and escapes", () => {
    const text = "See [a](docs/x.md#y) and ![p](img.png).\n```\n[no](missing.md)\n```\n`[no](missing.md)`\n";
    expect(linksOf(text).map((l) => l.target)).toEqual(["docs/x.md#y", "img.png"]);
    expect(brokenLink("README.md", "docs/getting-started.md")).toBeNull();
    expect(brokenLink("README.md", "docs/no-such-page.md")).toMatch(/does not exist/);
    expect(brokenLink("README.md", "docs/getting-started.md#no-such-heading")).toMatch(/no heading/);
    expect(brokenLink("docs/privacy.md", "../../outside.md")).toMatch(/climbs out/);
    expect(brokenLink("README.md", "https://example.com/x")).toBeNull();
  });

  it("checks sections cited by name and paths named in the text", () => {
    expect(brokenSectionCitations("docs/extension.md", 'see docs/host.md, "Tab slots"')).toEqual([]);
    expect(
      brokenSectionCitations("docs/extension.md", 'see [e2e.md](e2e.md), "How a browser is wired"'),
    ).toEqual([]);
    expect(brokenSectionCitations("docs/extension.md", 'see docs/host.md, "No such section"')).toHaveLength(
      1,
    );
    expect(brokenSectionCitations("README.md", 'see docs/gone.md, "Anything"')).toHaveLength(1);
    expect(missingPaths("see docs/getting-started.md and docs/images/connector-steps.svg")).toEqual([]);
    expect(missingPaths("see docs/no-such-page.md")).toHaveLength(1);
    expect(missingPaths("build output in dist/skills/x.md is not a repository path")).toEqual([]);
  });

  it("flags citations of outside documents", () => {
    expect(outsideReferences("as spec §4.2 says")).toHaveLength(1);
    expect(outsideReferences("see research/adapter-notes.md")).toHaveLength(1);
    expect(outsideReferences("fixed in issue 25")).toHaveLength(1);
    expect(outsideReferences("docs/architecture.md, section 2")).toEqual([]);
  });
});
