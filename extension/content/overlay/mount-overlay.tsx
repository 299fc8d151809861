// Mounts the overlay in a chatgpt.com tab only while the background says the tab is managed (bound to a worker)
// and the overlay is not hidden: an extension-owned element with a closed Shadow DOM, so neither ChatGPT's styles
// nor its scripts reach our controls. It is removed again when the tab stops being managed or is hidden.
import { render } from "preact";
import { UiClient, type ClientPort } from "../../ui/ui-client.ts";
import { OVERLAY_PORT } from "../../ui/ui-protocol.ts";
import { Overlay, OVERLAY_CSS } from "./overlay-view.tsx";

export interface OverlayApi {
  runtime: { connect(info: { name: string }): ClientPort };
}

export const OVERLAY_HOST_ID = "chatgpt-orchestrator-overlay";

export interface OverlayHandle {
  readonly client: UiClient;
  /** The host element and its (closed) shadow root while mounted, for tests. */
  host(): HTMLElement | undefined;
  shadow(): ShadowRoot | undefined;
  stop(): void;
}

export function startOverlay(opts: {
  api: OverlayApi;
  document: Document;
  now?: () => number;
  acceptEvent?: (e: Event) => boolean;
}): OverlayHandle {
  const { document } = opts;
  const client = new UiClient((name) => opts.api.runtime.connect({ name }), OVERLAY_PORT);
  let host: HTMLElement | undefined;
  let mountedFor: string | undefined;
  let root: ShadowRoot | undefined;

  const unmount = () => {
    if (root) render(null, root);
    host?.remove();
    host = undefined;
    root = undefined;
    mountedFor = undefined;
  };

  const update = () => {
    const status = client.status.value;
    if (!client.alive.value) return unmount();
    // While the background restarts (status null) keep what is shown; it says "offline" itself.
    if (status === null) return;
    const workerId = status.prefs.overlay ? status.tabWorkerId : null;
    if (workerId === null) return unmount();
    if (mountedFor === workerId && host?.isConnected) return;
    unmount();
    host = document.createElement("div");
    host.id = OVERLAY_HOST_ID;
    // Outside <body>: ChatGPT's app re-renders body content; the root element is left alone.
    document.documentElement.appendChild(host);
    root = host.attachShadow({ mode: "closed" });
    const style = document.createElement("style");
    style.textContent = OVERLAY_CSS;
    root.appendChild(style);
    mountedFor = workerId;
    render(
      <Overlay
        client={client}
        workerId={workerId}
        now={opts.now ?? (() => Date.now())}
        acceptEvent={opts.acceptEvent ?? ((e) => e.isTrusted)}
      />,
      root,
    );
  };

  const unsubscribe = client.status.subscribe(() => update());
  const unsubscribeAlive = client.alive.subscribe(() => update());
  return {
    client,
    host: () => host,
    shadow: () => root,
    stop: () => {
      unsubscribe();
      unsubscribeAlive();
      unmount();
      client.close();
    },
  };
}
