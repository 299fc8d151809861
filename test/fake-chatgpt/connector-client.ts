// The fake assistant's MCP connection: the official SDK client over Streamable HTTP to the connector URL
// (`/mcp/<token>`, no headers), which is how a ChatGPT developer-mode connector reaches the orchestrator.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface ToolOutcome {
  isError: boolean;
  structured: unknown;
  text: string;
}

export class ConnectorClient {
  private client: Promise<Client> | null = null;

  constructor(readonly url: string) {}

  private connect(): Promise<Client> {
    this.client ??= (async () => {
      const client = new Client({ name: "fake-chatgpt-connector", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(this.url)));
      return client;
    })().catch((e: unknown) => {
      this.client = null;
      throw e;
    });
    return this.client;
  }

  async call(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const client = await this.connect();
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const first = result.content[0];
    return {
      isError: result.isError === true,
      structured: result.structuredContent,
      text: first?.type === "text" ? first.text : "",
    };
  }

  /** Forgets the session (after a host restart the next call connects afresh). */
  async reset(): Promise<void> {
    const old = this.client;
    this.client = null;
    await (await old?.catch(() => null))?.close();
  }

  async close(): Promise<void> {
    await this.reset();
  }
}
