// What every extension page entry needs: the browser API slice for pages and a client on the UI port.
import "../lib/zod-setup.ts";
import { getBrowserApi } from "../lib/browser-api.ts";
import { UiClient, type ClientPort } from "./ui-client.ts";
import { UI_PORT } from "./ui-protocol.ts";

export interface PageApi {
  runtime: {
    connect(info: { name: string }): ClientPort;
    getURL(path: string): string;
    openOptionsPage(): Promise<void>;
  };
  tabs: { create(properties: { url: string }): Promise<unknown> };
}

/** Where the build puts the dashboard (the input path, kept by vite-plugin-web-extension). */
export const DASHBOARD_PATH = "extension/dashboard/dashboard.html";

export function pageClient(): { api: PageApi; client: UiClient } {
  const api = getBrowserApi<PageApi>();
  return { api, client: new UiClient((name) => api.runtime.connect({ name }), UI_PORT) };
}

export function openPage(api: PageApi, page: "dashboard" | "options"): void {
  const opened =
    page === "options"
      ? api.runtime.openOptionsPage()
      : api.tabs.create({ url: api.runtime.getURL(DASHBOARD_PATH) });
  opened.catch((e: unknown) => console.error(`could not open the ${page}`, e));
}
