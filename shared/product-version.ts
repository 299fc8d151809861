// The product's version in one place: the backend reports it (welcome, MCP server info, `--version`) and notifications
// send it in their User-Agent. Kept equal to package.json's by test/cli/cli-contract.test.ts (a release bumps both).
export const PRODUCT_VERSION = "0.1.0";
