// What the host sends and when, on the settings page: a switch per kind of notification (saved at once) and quiet
// hours (from/to in the host computer's local time, or off; saved with their button).
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { NotifyKinds } from "../../shared/notify-settings.ts";
import { ActionButton } from "../ui/components.tsx";

const KIND_SWITCHES: readonly { key: keyof NotifyKinds; label: string; help: string }[] = [
  {
    key: "needsYou",
    label: "Needs you",
    help: "A worker is held until a person acts: a question, an approval, a page error, signed out, a cap, a rate limit that will not clear. One message per episode.",
  },
  { key: "runEnded", label: "Run completed or failed", help: "Once per run, when it ends." },
  {
    key: "workerEnded",
    label: "Each worker's completion or failure",
    help: "One message per worker: many in a large run.",
  },
  {
    key: "resolved",
    label: "“Resolved” follow-ups",
    help: "A short message once a Needs-you episode is over, whoever resolved it.",
  },
  {
    key: "operatorPause",
    label: "Pauses you make yourself",
    help: "Normally not sent: you know you paused.",
  },
];

export function KindSwitches(props: {
  kinds: NotifyKinds;
  save: (key: keyof NotifyKinds, on: boolean) => Promise<string | undefined>;
}): JSX.Element {
  return (
    <div role="group" aria-labelledby="notify-kinds-title">
      <h3 id="notify-kinds-title">What is sent</h3>
      {KIND_SWITCHES.map((k) => {
        const on = props.kinds[k.key];
        const id = `notify-kind-switch-${k.key}`;
        return (
          <div class="spread card" key={k.key}>
            <div>
              <div id={`${id}-label`}>{k.label}</div>
              <div class="muted" id={`${id}-help`}>
                {k.help}
              </div>
            </div>
            <ActionButton
              label={on ? "On" : "Off"}
              labelId={`${id}-state`}
              labelledBy={`${id}-label ${id}-state`}
              describedBy={`${id}-help`}
              checked={on}
              class="switch"
              testId={id}
              run={() => props.save(k.key, !on)}
            />
          </div>
        );
      })}
    </div>
  );
}

type Quiet = { readonly start: string; readonly end: string } | null;

interface QuietForm {
  /** The host's value the form started from (JSON). */
  readonly from: string;
  readonly on: boolean;
  readonly start: string;
  readonly end: string;
}

function formOf(quiet: Quiet): QuietForm {
  return {
    from: JSON.stringify(quiet),
    on: quiet !== null,
    start: quiet?.start ?? "22:00",
    end: quiet?.end ?? "07:00",
  };
}

export function QuietHours(props: {
  quietHours: Quiet;
  save: (quietHours: Quiet) => Promise<string | undefined>;
}): JSX.Element {
  const [edited, setEdited] = useState(() => formOf(props.quietHours));
  // Once the host's value changes (saved here, or elsewhere) the form starts from it; derived, not remounted, so
  // the focused Save button keeps the focus.
  const form = edited.from === JSON.stringify(props.quietHours) ? edited : formOf(props.quietHours);
  const { on, start, end } = form;
  const edit = (change: Partial<QuietForm>) =>
    setEdited((prev) => ({ ...(prev.from === form.from ? prev : form), ...change }));
  const next: Quiet = on ? { start, end } : null;
  return (
    <div role="group" aria-labelledby="notify-quiet-title">
      <h3 id="notify-quiet-title">Quiet hours</h3>
      <div class="card">
        <p>
          <input
            type="checkbox"
            id="notify-quiet-on"
            checked={on}
            aria-describedby="notify-quiet-help"
            data-testid="notify-quiet-on"
            onChange={(e) => edit({ on: e.currentTarget.checked })}
          />{" "}
          <label for="notify-quiet-on">Hold messages during quiet hours</label>
        </p>
        <p class="muted" id="notify-quiet-help">
          In the local time of the computer the host runs on. Messages decided meanwhile are sent when the
          quiet hours end; a From later than To spans midnight.
        </p>
        <div class="row">
          <label for="notify-quiet-start">From</label>
          <input
            type="time"
            id="notify-quiet-start"
            value={start}
            disabled={!on}
            data-testid="notify-quiet-start"
            onInput={(e) => edit({ start: e.currentTarget.value })}
          />
          <label for="notify-quiet-end">To</label>
          <input
            type="time"
            id="notify-quiet-end"
            value={end}
            disabled={!on}
            data-testid="notify-quiet-end"
            onInput={(e) => edit({ end: e.currentTarget.value })}
          />
          <ActionButton label="Save quiet hours" testId="notify-quiet-save" run={() => props.save(next)} />
        </div>
      </div>
    </div>
  );
}
