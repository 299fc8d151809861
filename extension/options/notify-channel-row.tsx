// One notification channel in the settings page's list: its name and kind, its fields (secrets as the host masked
// them), its last delivery in words, the Enabled switch, Edit, Send test with the host's answer, and Remove (asks
// first, in place).
import { Fragment, type JSX } from "preact";
import { useState } from "preact/hooks";
import { NOTIFY_TEST_OP, type ChannelStatus } from "../../shared/notify-settings.ts";
import { ActionButton, ConfirmButton } from "../ui/components.tsx";
import {
  channelName,
  deliveryWords,
  isChannelKind,
  kindWords,
  text,
  type RawChannel,
} from "../ui/notify-words.ts";
import type { UiClient } from "../ui/ui-client.ts";
import { KIND_FIELDS } from "./notify-draft.ts";

export function ChannelRow(props: {
  client: UiClient;
  channel: RawChannel;
  status: ChannelStatus;
  now: number;
  /** Saves the channel switched on or off; a refusal comes back in words. */
  setEnabled: (enabled: boolean) => Promise<string | undefined>;
  remove: () => Promise<string | undefined>;
  /** Undefined for a kind this extension cannot edit (a newer host's). */
  edit: (() => void) | undefined;
}): JSX.Element {
  const { client, channel: c } = props;
  const id = text(c, "id");
  const name = channelName(c);
  const enabled = c.enabled === true;
  const delivery = deliveryWords(props.status, props.now);
  const [test, setTest] = useState<{ ok: boolean; detail: string } | undefined>();
  const dom = `notify-ch-${id}`;
  return (
    <li class="card" data-testid="notify-channel" data-channel-id={id}>
      <div class="spread">
        <div>
          <strong id={`${dom}-name`}>{name}</strong> <span class="muted">· {kindWords(c.kind)}</span>
          <div data-testid="notify-status" class={delivery.failing ? "state state-failed" : undefined}>
            <span aria-hidden="true">{delivery.failing ? "✕ " : "● "}</span>
            {delivery.text}
          </div>
        </div>
        <ActionButton
          label={enabled ? "On" : "Off"}
          labelId={`${dom}-state`}
          labelledBy={`${dom}-name ${dom}-state`}
          checked={enabled}
          class="switch"
          testId="notify-enabled"
          run={() => props.setEnabled(!enabled)}
        />
      </div>
      {isChannelKind(c.kind) ? (
        <dl class="counts" data-testid="notify-fields">
          {KIND_FIELDS[c.kind].map((f) =>
            text(c, f.key) === "" ? null : (
              <Fragment key={f.key}>
                <dt>{f.label}</dt>
                <dd>
                  <code>{text(c, f.key)}</code>
                </dd>
              </Fragment>
            ),
          )}
        </dl>
      ) : null}
      <div class="row">
        {props.edit ? (
          <button type="button" id={`${dom}-edit`} data-testid="notify-edit" onClick={props.edit}>
            Edit<span class="sr-only"> {name}</span>
          </button>
        ) : null}
        <ActionButton
          label="Send test"
          testId="notify-test"
          describedBy={`${dom}-name`}
          run={async () => {
            setTest(undefined);
            const r = await client.call(NOTIFY_TEST_OP, { channelId: id });
            if (!r.ok) return r.error.message;
            setTest(r.value);
            return undefined;
          }}
        />
        <ConfirmButton
          label="Remove"
          question={`Remove ${name}? Its stored secrets are deleted; nothing more is sent through it.`}
          testId="notify-remove"
          run={props.remove}
        />
      </div>
      {/* Always present, so a screen reader announces the answer when it arrives. */}
      <p role="status" data-testid="notify-test-result">
        {test ? `${test.ok ? "✓ Test delivered" : "✕ Test failed"}: ${test.detail}` : ""}
      </p>
    </li>
  );
}
