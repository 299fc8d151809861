// Mounts the overlay in a chatgpt.com tab only while the background says the tab is managed (bound to a worker)
// and the overlay is not hidden, or, when the user enabled the offer, on a conversation no worker holds (the
// adoption badge): an extension-owned element with a closed Shadow DOM, so neither ChatGPT's styles nor its scripts
// reach our controls. It is removed again when neither applies any more.
import { render } from "preact";
import { UiClient, type ClientPort } from "../../ui/ui-client.ts";
import { OVERLAY_PORT, type UiStatus } from "../../ui/ui-protocol.ts";
import { AdoptOffer } from "./adopt-offer.tsx";
import { Overlay, OVERLAY_CSS } from "./overlay-view.tsx";

export interface OverlayApi {
  runtime: { connect(info: { name: string }): ClientPort };
}

export const OVERLAY_HOST_ID = "chatgpt-orchestrator-overlay";

/** What the tab shows: the managed overlay of its worker, the adoption offer, or nothing. */
export function overlayMode(status: UiStatus): { workerId: string } | "adopt" | null {
  if (!status.prefs.overlay) return null;
  if (status.tabWorkerId !== null) return { workerId: status.tabWorkerId };
  return status.prefs.offerAdopt && status.tabAdoptable === true ? "adopt" : null;
}

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
  /** The person pressed "Keep this conversation going" in this overlay and the host has not refused it. */
  let adoptedHere = false;

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
    const mode = overlayMode(status);
    if (mode === null) return unmount();
    const key = mode === "adopt" ? "adopt" : `worker:${mode.workerId}`;
    if (mountedFor === key && host?.isConnected) return;
    // Adopted from the offer: focus moves on to the worker's badge instead of being lost with the offer (it may
    // already be on <body>: Chromium drops it from the button disabled while the request runs).
    const active = document.activeElement;
    const lost = active === null || active === document.body;
    const hadFocus = host?.isConnected === true && (active === host || (adoptedHere && lost));
    adoptedHere = false;
    if (host?.isConnected && root) render(null, root);
    else {
      unmount();
      host = document.createElement("div");
      host.id = OVERLAY_HOST_ID;
      // Outside <body>: ChatGPT's app re-renders body content; the root element is left alone.
      document.documentElement.appendChild(host);
      root = host.attachShadow({ mode: "closed" });
      const style = document.createElement("style");
      style.textContent = OVERLAY_CSS;
      root.appendChild(style);
    }
    mountedFor = key;
    const acceptEvent = opts.acceptEvent ?? ((e: Event) => e.isTrusted);
    render(
      mode === "adopt" ? (
        <AdoptOffer
          client={client}
          acceptEvent={acceptEvent}
          onAdopting={(accepted) => {
            adoptedHere = true;
            void accepted.then((ok) => {
              if (!ok) adoptedHere = false;
            });
          }}
        />
      ) : (
        <Overlay
          client={client}
          workerId={mode.workerId}
          now={opts.now ?? (() => Date.now())}
          acceptEvent={acceptEvent}
          focusBadge={hadFocus}
        />
      ),
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
