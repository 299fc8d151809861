// The import rules of eslint.config.js fail the lint on a violation: each case writes a few files into a scratch tree
// laid out like the repository and lints one of them with the same rules (importBoundaries), through ESLint's Node API.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ESLint, type Linter } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../..");

type Boundaries = (root: string) => Linter.Config[];

let root: string;
let eslint: ESLint;

/** Existing files the linted sources import (their content does not matter unless they import back). */
const FILES: Record<string, string> = {
  "shared/contract.ts": "export const CONTRACT = 1;\n",
  "native-host/src/core/model.ts":
    'import { CONTRACT } from "../../../shared/contract.ts";\nexport const M = CONTRACT;\n',
  "native-host/src/store/store-types.ts": "export const S = 1;\n",
  "native-host/src/mcp/tools.ts": "export const T = 1;\n",
  "native-host/src/cli/context.ts": "export const C = 1;\n",
  "native-host/src/host/owner.ts": "export const C = 1;\n",
  "native-host/src/operations/cycle-b.ts": 'import { A } from "./cycle-a.ts";\nexport const B = A + 1;\n',
  "native-host/src/operations/cycle-a.ts": "export const A = 1;\n",
  "extension/popup/popup-view.ts": "export const P = 1;\n",
  "extension/ui/format.ts": "export const F = 1;\n",
};

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "import-rules-"));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const config = (await import(pathToFileURL(path.join(REPO, "eslint.config.js")).href)) as {
    importBoundaries: Boundaries;
  };
  eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config.importBoundaries(root) });
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** The rule ids of the errors ESLint reports for `code` placed at `file` (relative to the scratch root). */
async function ruleErrors(file: string, code: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  const messages = result?.messages ?? [];
  // A parse or configuration failure would also be an error with a null rule: show it rather than pass by accident.
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return messages.map((m) => m.ruleId);
}

describe("import rules (eslint.config.js)", () => {
  it("refuses core importing the store", async () => {
    const code = 'import { S } from "../store/store-types.ts";\nexport const X = S;\n';
    expect(await ruleErrors("native-host/src/core/evaluate.ts", code)).toEqual([
      "import-x/no-restricted-paths",
    ]);
  });

  it("refuses the extension importing the host", async () => {
    const code = 'import { M } from "../../native-host/src/core/model.ts";\nexport const X = M;\n';
    expect(await ruleErrors("extension/background/executor.ts", code)).toEqual([
      "import-x/no-restricted-paths",
    ]);
  });

  it("refuses an upward import inside the host (operations → mcp, host → cli)", async () => {
    const fromOperations = 'import { T } from "../mcp/tools.ts";\nexport const X = T;\n';
    expect(await ruleErrors("native-host/src/operations/views.ts", fromOperations)).toEqual([
      "import-x/no-restricted-paths",
    ]);
    // Notifications sit beside operations, below the host that wires them.
    const fromNotify = 'import { C } from "../host/owner.ts";\nexport const X = C;\n';
    expect(await ruleErrors("native-host/src/notify/channels.ts", fromNotify)).toEqual([
      "import-x/no-restricted-paths",
    ]);
    const fromHost = 'import { C } from "../cli/context.ts";\nexport const X = C;\n';
    expect(await ruleErrors("native-host/src/host/owner.ts", fromHost)).toEqual([
      "import-x/no-restricted-paths",
    ]);
  });

  it("refuses a view importing another view", async () => {
    const code = 'import { P } from "../popup/popup-view.ts";\nexport const X = P;\n';
    expect(await ruleErrors("extension/dashboard/dashboard-view.ts", code)).toEqual([
      "import-x/no-restricted-paths",
    ]);
  });

  it("refuses an import cycle between files", async () => {
    // cycle-b.ts (on disk) imports cycle-a.ts; this text of cycle-a.ts imports cycle-b.ts back.
    const code = 'import { B } from "./cycle-b.ts";\nexport const A = 1;\nexport const X = B;\n';
    expect(await ruleErrors("native-host/src/operations/cycle-a.ts", code)).toEqual(["import-x/no-cycle"]);
  });

  it("allows imports that go down or stay inside an area", async () => {
    const operations =
      'import { M } from "../core/model.ts";\nimport { S } from "../store/store-types.ts";\n' +
      'import { CONTRACT } from "../../../shared/contract.ts";\nexport const X = M + S + CONTRACT;\n';
    expect(await ruleErrors("native-host/src/operations/views.ts", operations)).toEqual([]);
    const cli = 'import { T } from "../mcp/tools.ts";\nexport const X = T;\n';
    expect(await ruleErrors("native-host/src/cli/main.ts", cli)).toEqual([]);
    const view = 'import { F } from "../ui/format.ts";\nexport const X = F;\n';
    expect(await ruleErrors("extension/popup/popup.ts", view)).toEqual([]);
  });

  it("lets a test reach across the host's layers, but not across areas", async () => {
    const acrossLayers = 'import { T } from "../mcp/tools.ts";\nexport const X = T;\n';
    expect(await ruleErrors("native-host/src/core/model.test.ts", acrossLayers)).toEqual([]);
    const acrossAreas = 'import { M } from "../../native-host/src/core/model.ts";\nexport const X = M;\n';
    expect(await ruleErrors("extension/ui/format.test.ts", acrossAreas)).toEqual([
      "import-x/no-restricted-paths",
    ]);
  });
});

describe("the repository's lint configuration", () => {
  it("applies the import rules to the real tree", async () => {
    const repoLint = new ESLint({ cwd: REPO });
    const config = (await repoLint.calculateConfigForFile(
      path.join(REPO, "native-host/src/core/model.ts"),
    )) as {
      rules: Record<string, unknown>;
    };
    expect(config.rules["import-x/no-restricted-paths"]).toBeDefined();
    expect(config.rules["import-x/no-cycle"]).toBeDefined();
  });
});
