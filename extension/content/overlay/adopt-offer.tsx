// The overlay's offer on a chatgpt.com conversation no worker holds (only when the user turned it on in the
// settings): a small collapsed badge; opened, "Keep this conversation going" with an optional objective adopts THIS
// tab through the background (which knows the tab from the port's sender). Trusted events only, like the overlay.
import type { JSX } from "preact";
import { useRef, useState } from "preact/hooks";
import { AdoptPanel } from "../../ui/adopt-panel.tsx";
import { EventGuard, Root, useGuarded } from "../../ui/components.tsx";
import type { UiClient } from "../../ui/ui-client.ts";

export interface AdoptOfferProps {
  readonly client: UiClient;
  /** Which events count; the content script passes `e.isTrusted` so page scripts cannot adopt for the user. */
  readonly acceptEvent: (e: Event) => boolean;
  /** Told when the person asked for adoption here (focus then follows to the managed overlay's badge). */
  readonly onAdopting?: (accepted: Promise<boolean>) => void;
}

export function AdoptOffer(props: AdoptOfferProps): JSX.Element {
  return (
    <EventGuard.Provider value={props.acceptEvent}>
      <AdoptOfferBody {...props} />
    </EventGuard.Provider>
  );
}

/** Keys typed into the objective must not reach ChatGPT's own document-level shortcuts (composer focus, …). */
const keepKeysHere = (e: KeyboardEvent) => e.stopPropagation();

function AdoptOfferBody(props: AdoptOfferProps): JSX.Element {
  const { client } = props;
  const [open, setOpen] = useState(false);
  const badgeRef = useRef<HTMLButtonElement>(null);
  const connected = client.status.value?.connection === "connected";
  const toggle = useGuarded(() => setOpen((o) => !o));
  const onKeyDown = useGuarded((e: KeyboardEvent) => {
    if (e.key !== "Escape" || !open) return;
    setOpen(false);
    badgeRef.current?.focus();
  });
  return (
    <Root testId="overlay-adopt">
      <div
        class="orc-overlay"
        onKeyDown={(e) => {
          keepKeysHere(e);
          onKeyDown(e);
        }}
        onKeyUp={keepKeysHere}
        onKeyPress={keepKeysHere}
      >
        <button
          ref={badgeRef}
          type="button"
          class="orc-badge"
          aria-expanded={open}
          aria-controls="orc-adopt"
          title="ChatGPT Orchestrator: no worker keeps this conversation going"
          data-testid="overlay-badge"
          onClick={toggle}
        >
          <span aria-hidden="true">↻ </span>
          Keep going?
        </button>
        {open ? (
          <div
            id="orc-adopt"
            class="orc-drawer card"
            role="region"
            aria-label="Keep this conversation going"
            data-testid="overlay-drawer"
          >
            {!connected ? (
              <p role="alert">The orchestrator host is not connected; try again once it is.</p>
            ) : null}
            <AdoptPanel client={client} disabled={!connected} onAdopting={props.onAdopting} />
            <p class="muted">This offer can be turned off in the orchestrator's settings.</p>
          </div>
        ) : null}
      </div>
    </Root>
  );
}
