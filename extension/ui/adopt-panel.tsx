// Zero-setup mode in the popup and the overlay's adoption offer: "Keep this conversation going" turns the
// ChatGPT conversation into a worker with Auto Resume on (no new chat, no MCP connector needed); "Release" gives it
// back to the user. Keyboard: Tab to the objective, type, Tab to the button, Enter.
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { act, ActionButton } from "./components.tsx";
import type { UiClient } from "./ui-client.ts";

export function AdoptPanel(props: {
  client: UiClient;
  disabled?: boolean;
  /** Told when an adoption was asked for here, with whether the host accepted it. */
  onAdopting?: (accepted: Promise<boolean>) => void;
}): JSX.Element {
  const [objective, setObjective] = useState("");
  return (
    <div class="card" data-testid="adopt">
      <p>
        Let the orchestrator continue this conversation on its own until the assistant says the work is
        complete or needs you. The worker is named after the conversation's title.
      </p>
      <label for="adopt-objective">Objective (optional)</label>
      <input
        id="adopt-objective"
        data-testid="adopt-objective"
        type="text"
        maxLength={2_000}
        value={objective}
        onInput={(e) => setObjective(e.currentTarget.value)}
      />
      <ActionButton
        label="Keep this conversation going"
        testId="adopt-button"
        disabled={props.disabled}
        run={() => {
          const refusal = act(
            props.client,
            "conversation_adopt",
            objective.trim() ? { objective: objective.trim() } : {},
          );
          props.onAdopting?.(refusal.then((e) => e === undefined));
          return refusal;
        }}
      />
    </div>
  );
}

export function ReleaseButton(props: { client: UiClient; workerId: string }): JSX.Element {
  return (
    <ActionButton
      label="Release"
      testId="release-button"
      describedBy="release-help"
      run={() => act(props.client, "conversation_release", { workerId: props.workerId })}
    />
  );
}
