// The in-page overlay: a collapsed badge with the worker's state in words, and a drawer with name, state, a move to
// a new conversation under way, attempt, resumes, last progress, Auto Resume, Pause / Continue now / Continue in a
// new conversation / Stop worker and recent events.
// It sits in the top-right corner, away from the composer (bottom centre), and acts on trusted events only.
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Announcer, EventGuard, Root, StateChip, useGuarded, WorkerControls } from "../../ui/components.tsx";
import { ago, attemptLine, clock, eventLine, STATE_ICON, stateWords, workerName } from "../../ui/format.ts";
import { useLive } from "../../ui/live.ts";
import { LivenessLine } from "../../ui/liveness-view.tsx";
import { ObjectiveLine } from "../../ui/objective-line.tsx";
import { RolloverLine } from "../../ui/rollover-line.tsx";
import { movingSuffix } from "../../ui/rollover-words.ts";
import type { UiClient } from "../../ui/ui-client.ts";
import type { StateLabel, WorkerView } from "../../../shared/operations/views.ts";

export interface OverlayProps {
  readonly client: UiClient;
  readonly workerId: string;
  readonly now: () => number;
  /** Which events count; the content script passes `e.isTrusted` so page scripts cannot click for the user. */
  readonly acceptEvent: (e: Event) => boolean;
  /** Focus the badge once mounted (the tab was just adopted from the overlay's offer with focus in it). */
  readonly focusBadge?: boolean;
}

/** The collapsed badge forms: "● Working · Attempt 4", "↻ Continuing · Attempt 4", "! Needs you", … */
export function collapsedText(w: WorkerView): string {
  const words = w.label === "Resuming" ? "Continuing" : stateWords(w);
  // Numbered by turns actually submitted, as everywhere (format.ts attemptLine).
  const attempt =
    (w.label === "Working" || w.label === "Resuming") && w.turns > 0 ? ` · Attempt ${w.turns}` : "";
  return `${words}${attempt}`;
}

/** Auto Resume governs this worker: its policy says so and neither the global switch nor anything else holds it. */
function autoResumes(w: WorkerView): boolean {
  return w.policy.mode === "auto" && w.liveness?.reason !== "auto_resume_off";
}

/** Labels under which nothing resumes now (held by a person or ended): the badge does not add "Auto Resume". */
const NOT_RESUMING: ReadonlySet<StateLabel> = new Set(["Paused", "Stalled", "Complete", "Failed", "Stopped"]);

/** The collapsed badge's suffix: "· Auto Resume" only while the worker would continue by itself. */
export function badgeSuffix(w: WorkerView): string {
  return autoResumes(w) && !NOT_RESUMING.has(w.label) ? " · Auto Resume" : "";
}

export function Overlay(props: OverlayProps): JSX.Element {
  return (
    <EventGuard.Provider value={props.acceptEvent}>
      <OverlayBody {...props} />
    </EventGuard.Provider>
  );
}

function OverlayBody(props: OverlayProps): JSX.Element {
  const { client } = props;
  const [open, setOpen] = useState(false);
  const badgeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (props.focusBadge === true) badgeRef.current?.focus();
  }, []); // on mount only: later renders leave focus where the person put it
  const detail = useLive(client, "ui_worker_detail", { workerId: props.workerId, recentEvents: 8 });
  const connected = client.status.value?.connection === "connected";
  const w = detail.data?.worker;
  const toggle = useGuarded(() => setOpen((o) => !o));
  const close = useGuarded((e: KeyboardEvent) => {
    if (e.key !== "Escape") return;
    setOpen(false);
    badgeRef.current?.focus();
  });
  const facts = new Map<string, string>(
    w ? [["state", `Orchestrator: ${stateWords(w)}${movingSuffix(w)}`]] : [],
  );
  return (
    <Root testId="overlay">
      <div class="orc-overlay" onKeyDown={close}>
        <Announcer facts={facts} />
        <button
          ref={badgeRef}
          type="button"
          class="orc-badge"
          aria-expanded={open}
          aria-controls="orc-drawer"
          data-testid="overlay-badge"
          onClick={toggle}
        >
          {w ? (
            <>
              <span aria-hidden="true">{STATE_ICON[w.label]} </span>
              {collapsedText(w)}
              {badgeSuffix(w)}
            </>
          ) : connected ? (
            "Orchestrated"
          ) : (
            "Orchestrator offline"
          )}
        </button>
        {open ? (
          <div
            id="orc-drawer"
            class="orc-drawer card"
            role="region"
            aria-label="Orchestrator"
            data-testid="overlay-drawer"
          >
            {!connected ? (
              <p role="alert">The orchestrator host is not connected; controls are unavailable.</p>
            ) : null}
            {detail.error && connected ? <p role="alert">{detail.error.message}</p> : null}
            {w && connected ? (
              <>
                <div class="spread">
                  <h3>{workerName(w)}</h3>
                  <StateChip worker={w} />
                </div>
                <ObjectiveLine worker={w} />
                <LivenessLine worker={w} now={props.now} />
                <RolloverLine worker={w} />
                <dl class="counts">
                  <dt>Attempt</dt>
                  <dd>{attemptLine(w)}</dd>
                  <dt>Last progress</dt>
                  <dd>{ago(w.lastProgressAt, props.now())}</dd>
                  <dt>Auto Resume</dt>
                  <dd>{autoResumes(w) ? "On" : "Off"}</dd>
                </dl>
                <WorkerControls client={client} worker={w} place="overlay" show={{ newConversation: true }} />
                <h3>Recent events</h3>
                <ol data-testid="overlay-events">
                  {(detail.data?.events ?? []).map((e) => (
                    <li key={e.seq}>
                      {clock(e.at)} {eventLine(e)}
                    </li>
                  ))}
                </ol>
              </>
            ) : null}
          </div>
        ) : null}
      </div>
    </Root>
  );
}

/** Positioning of the overlay: top right, under ChatGPT's header, never over the composer at the bottom. */
export const OVERLAY_CSS = `
.orc-overlay { position: fixed; top: 64px; right: 16px; z-index: 2147483000; max-width: 340px;
  display: flex; flex-direction: column; align-items: flex-end; gap: 6px; }
.orc-badge { border-radius: 999px !important; box-shadow: 0 1px 4px rgba(0,0,0,.2); }
.orc-drawer { background: #fff; max-height: 50vh; overflow: auto; width: 320px; box-shadow: 0 2px 10px rgba(0,0,0,.25); }
`;
