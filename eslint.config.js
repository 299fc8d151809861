// Lint configuration: typescript-eslint's recommended type-aware rules over the whole project, plus the import rules
// between areas and layers that docs/architecture.md §2 describes (tested in test/tooling/import-rules.test.ts).
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Files that only tests use, wherever they live: they may reach across layers to set a scene up. */
const TEST_FILES = [
  "**/*.test.ts",
  "**/*.test.tsx",
  "**/fixtures/**",
  "**/test-fixtures.ts",
  "**/*-test-kit.ts",
  "test/**",
  "bench/**",
];

const HOST = "native-host/src";

/** The host's folders from the top down: a folder may import the ones after it, never one before it. */
const areaZones = [
  {
    target: "shared",
    from: ["native-host", "extension"],
    message: "shared/ holds the contracts both sides import, so it imports from neither.",
  },
  {
    target: "extension",
    from: ["native-host"],
    message:
      "The extension reaches the host only through native messages; what both need belongs in shared/.",
  },
  {
    target: "native-host",
    from: ["extension"],
    message: "The host never imports the extension; what both need belongs in shared/.",
  },
];

/** Each target may not import the folders listed against it (they sit above it, or beside it in the same layer). */
const hostLayers = {
  core: null, // only core/ and shared/: see below
  config: null, // only config/ and shared/: see below
  store: ["cli", "host", "mcp", "bridge", "engine", "operations"],
  operations: ["cli", "host", "mcp", "bridge", "engine", "notify"],
  notify: ["cli", "host", "mcp", "bridge", "engine"],
  engine: ["cli", "host", "mcp", "bridge"],
  mcp: ["cli", "host", "bridge"],
  bridge: ["cli", "host", "mcp"],
  host: ["cli"],
};

const hostZones = Object.entries(hostLayers).map(([folder, above]) =>
  above === null
    ? {
        target: `${HOST}/${folder}`,
        from: HOST,
        except: [`./${folder}`],
        message: `${folder}/ imports only ${folder}/ and shared/.`,
      }
    : {
        target: `${HOST}/${folder}`,
        from: above.map((f) => `${HOST}/${f}`),
        message: `No upward import in the host (cli → host → mcp, bridge → engine → operations → core, store): ${folder}/ may not import this.`,
      },
);

/** The views and the overlay share ui/, lib/ and shared/, never each other's files or the background's. */
const PAGES = ["popup", "dashboard", "options", "content/overlay"];
const extensionZones = [
  ...PAGES.map((page) => ({
    target: `extension/${page}`,
    from: [...PAGES.filter((p) => p !== page), "background"].map((p) => `extension/${p}`),
    message:
      "A view or the overlay imports only extension/ui, extension/lib and shared/; move what both need there.",
  })),
  {
    target: "extension/content",
    from: ["extension/background"],
    message: "The content script and the background talk through runtime messages only.",
  },
  {
    target: "extension/background",
    from: ["extension/content", "extension/popup", "extension/dashboard", "extension/options"],
    message: "The background talks to pages and views through runtime messages only.",
  },
  {
    target: "extension/ui",
    from: [
      "extension/background",
      "extension/content",
      "extension/popup",
      "extension/dashboard",
      "extension/options",
    ],
    message: "extension/ui is shared by the views: it imports only ui/, lib/ and shared/.",
  },
  {
    target: "extension/lib",
    from: [
      "extension/background",
      "extension/content",
      "extension/popup",
      "extension/dashboard",
      "extension/options",
      "extension/ui",
    ],
    message: "extension/lib is the bottom of the extension: it imports only lib/ and shared/.",
  },
];

/**
 * The import rules for a project rooted at `root` (a function so that the test can apply the same rules to a
 * scratch tree): areas apply to every file, layers to product files only.
 * @param {string} root
 * @returns {import("eslint").Linter.Config[]}
 */
export function importBoundaries(root) {
  return [
    {
      files: ["**/*.{ts,tsx,js}"],
      plugins: { "import-x": importX },
      languageOptions: { parser: tseslint.parser },
      settings: {
        "import-x/extensions": [".ts", ".tsx", ".js"],
        "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".tsx", ".js", ".json"] })],
      },
      rules: {
        "import-x/no-restricted-paths": ["error", { basePath: root, zones: areaZones }],
        // Type-only imports do not count: they vanish at runtime and cannot order module evaluation.
        "import-x/no-cycle": ["error", { ignoreExternal: true }],
      },
    },
    {
      files: ["native-host/**/*.ts", "extension/**/*.{ts,tsx}"],
      ignores: TEST_FILES,
      rules: {
        "import-x/no-restricted-paths": [
          "error",
          { basePath: root, zones: [...areaZones, ...hostZones, ...extensionZones] },
        ],
      },
    },
    {
      // core/ is pure (time, randomness and I/O are inputs), so it has no use for Node's modules.
      files: [`${HOST}/core/**/*.ts`],
      ignores: TEST_FILES,
      rules: {
        "no-restricted-imports": [
          "error",
          {
            patterns: [{ group: ["node:*"], message: "core/ does no I/O: take what it needs as an input." }],
          },
        ],
      },
    },
  ];
}

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "coverage/", ".tmp/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        // The JS files at the top and in bin/ belong to no area; they get the options every area shares.
        projectService: { allowDefaultProject: ["*.js", "bin/*.js"], defaultProject: "tsconfig.base.json" },
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "no-console": ["error", { allow: ["error", "warn"] }],
    },
  },
  {
    files: ["bench/**", "test/**", "native-host/src/cli/**", "bin/**"],
    rules: { "no-console": "off" },
  },
  ...importBoundaries(import.meta.dirname),
);
