// The host's own settings as the extension's settings page sees them: MCP port, URL, connector URL and
// token (shown masked unless revealed), rotated on request. Carried by `ui.request` ops that only the browser's
// native port answers: they are not operations, so no MCP client can read or rotate the token through them.
import { z } from "zod";

export const HOST_SETTINGS_OP = "host_settings";
export const HOST_TOKEN_ROTATE_OP = "host_token_rotate";
export const HOST_SETTINGS_OPS = [HOST_SETTINGS_OP, HOST_TOKEN_ROTATE_OP] as const;

export const hostSettingsParamsSchema = z
  .object({
    /** Show the token and the connector URL in full (default: masked, last 4 characters). */
    reveal: z.boolean().optional(),
  })
  .strict();

export const hostSettingsSchema = z
  .object({
    hostVersion: z.string(),
    dataDir: z.string(),
    /** Null when the MCP server did not start (e.g. its port is taken: see `orchestrator doctor`). */
    mcp: z
      .object({
        port: z.number().int().min(1).max(65_535),
        /** `http://127.0.0.1:<port>/mcp` (send `Authorization: Bearer <token>`). */
        url: z.string(),
        /** `…/mcp/<token>` for connectors that cannot send headers; masked unless revealed. */
        connectorUrl: z.string(),
        token: z.string(),
        revealed: z.boolean(),
      })
      .strict()
      .nullable(),
  })
  .strict();
export type HostSettings = z.infer<typeof hostSettingsSchema>;

/** `••••…` plus the last 4 characters: enough to tell two tokens apart, useless to an onlooker. */
export function maskSecret(secret: string): string {
  return `••••••••${secret.slice(-4)}`;
}
