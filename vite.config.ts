// Root Vite/Vitest configuration. Later issues add the extension build here; for now it drives the test run.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "native-host/**/*.test.ts",
      "shared/**/*.test.ts",
      "extension/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
  },
});
