// The name the MCP server gives itself (in `initialize` and in its 401 refusals' realm): doctor recognises our server
// by it without loading the server's modules.
export const MCP_SERVER_NAME = "chatgpt-orchestrator";
/** The `WWW-Authenticate` parameter of a refused request. */
export const MCP_REALM = `realm="${MCP_SERVER_NAME}"`;
