// The settings page's Notifications section (docs/ui.md): the channels the host sends Needs-you and run-end
// messages through (webhook, ntfy, Telegram) with their delivery status, added, edited, tested and removed here;
// what is sent and quiet hours. Every change sends the whole settings (`notify_settings_set`) over the browser's
// native port; secrets stay as the host masked them unless the person types new ones.
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { MAX_CHANNELS, NOTIFY_SETTINGS_SET_OP } from "../../shared/notify-settings.ts";
import { useNotifySettings } from "../ui/notify-read.ts";
import { channelName, text, type RawChannel } from "../ui/notify-words.ts";
import type { UiClient } from "../ui/ui-client.ts";
import { ChannelForm } from "./notify-channel-form.tsx";
import { ChannelRow } from "./notify-channel-row.tsx";
import { KindSwitches, QuietHours } from "./notify-choices.tsx";
import {
  channelOf,
  type ChannelDraft,
  draftOf,
  newChannelId,
  newDraft,
  settingsOf,
  type SettingsToSend,
  withChannel,
  withoutChannel,
} from "./notify-draft.ts";

const ADD_ID = "notify-add";

export function NotifySettings(props: {
  client: UiClient;
  connected: boolean;
  now?: () => number;
}): JSX.Element {
  const { client, connected } = props;
  const { view, error, replace } = useNotifySettings(client);
  /** The channel being edited (its draft), or none. */
  const [editing, setEditing] = useState<ChannelDraft | null>(null);
  const [note, setNote] = useState("");
  // Where the focus goes once that element is there: back to the button that opened the form when it closes, to
  // Add a channel when the focused row was removed (a keyboard user is never dropped to the top of the page).
  const focusNext = useRef<string | null>(null);
  const opener = useRef(ADD_ID);
  useEffect(() => {
    const el = focusNext.current === null ? null : document.getElementById(focusNext.current);
    if (el === null) return;
    focusNext.current = null;
    el.focus();
  });
  const now = (props.now ?? Date.now)();

  // Changes go one at a time, each applied to the settings as the last answer left them, so two switches pressed
  // quickly do not undo each other.
  const latest = useRef(view);
  if (view !== undefined) latest.current = view;
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const save = (change: (s: SettingsToSend) => SettingsToSend, done: string): Promise<string | undefined> => {
    const send = async (): Promise<string | undefined> => {
      const current = latest.current;
      if (current === undefined) return "the settings are not read yet";
      const r = await client.call(NOTIFY_SETTINGS_SET_OP, { settings: change(settingsOf(current)) });
      if (!r.ok) return r.error.message;
      latest.current = r.value;
      replace(r.value);
      setNote(done);
      return undefined;
    };
    const next = queue.current.then(send, send);
    queue.current = next;
    return next;
  };
  const close = () => {
    focusNext.current = opener.current;
    setEditing(null);
  };
  const saveDraft = async (d: ChannelDraft): Promise<string | undefined> => {
    const name = d.name.trim();
    const refusal = await save(
      (s) =>
        withChannel(
          s,
          channelOf(
            d,
            d.id ??
              newChannelId(
                d.kind,
                s.channels.map((c) => text(c, "id")),
              ),
          ),
        ),
      d.id === null ? `Channel ${name} added.` : `Channel ${name} saved.`,
    );
    if (refusal === undefined) close();
    return refusal;
  };
  return (
    <section aria-labelledby="notify-title" data-testid="notify-settings">
      <h2 id="notify-title">Notifications</h2>
      <p class="muted">
        Sent by the host to your phone or another service when a worker needs you or a run ends, also while
        this browser is closed (the desktop notifications above are this browser's own). They carry names,
        states and reasons, never conversation text.
      </p>
      {!connected ? <p class="muted">Connect to the host to see these.</p> : null}
      {connected && error !== undefined ? (
        <p role="alert">Could not read the notification settings: {error}</p>
      ) : null}
      <p role="status" data-testid="notify-note">
        {note}
      </p>
      {connected && view ? (
        <>
          <h3 id="notify-channels-title">Channels</h3>
          {view.channels.length === 0 ? <p class="muted">No channel yet: add one to be notified.</p> : null}
          <ul style="list-style:none;padding:0;margin:0" aria-labelledby="notify-channels-title">
            {view.channels.map(({ channel, status }) => {
              const raw = channel as RawChannel;
              const id = text(raw, "id");
              const draft = draftOf(raw);
              return (
                <ChannelRow
                  key={id}
                  client={client}
                  channel={raw}
                  status={status}
                  now={now}
                  setEnabled={(enabled) =>
                    save(
                      (s) => withChannel(s, { ...(s.channels.find((c) => c.id === id) ?? raw), enabled }),
                      `${channelName(raw)} switched ${enabled ? "on" : "off"}.`,
                    )
                  }
                  remove={async () => {
                    const refusal = await save((s) => withoutChannel(s, id), `${channelName(raw)} removed.`);
                    if (refusal === undefined && editing === null) focusNext.current = ADD_ID;
                    return refusal;
                  }}
                  edit={
                    draft === undefined || editing !== null
                      ? undefined
                      : () => {
                          opener.current = `notify-ch-${id}-edit`;
                          setEditing(draft);
                        }
                  }
                />
              );
            })}
          </ul>
          {editing !== null ? (
            <ChannelForm key={editing.id ?? "new"} initial={editing} save={saveDraft} close={close} />
          ) : (
            <button
              type="button"
              id={ADD_ID}
              data-testid="notify-add"
              disabled={view.channels.length >= MAX_CHANNELS}
              onClick={() => {
                opener.current = ADD_ID;
                setEditing(newDraft());
              }}
            >
              Add a channel
            </button>
          )}
          <KindSwitches
            kinds={view.kinds}
            save={(key, on) => save((s) => ({ ...s, kinds: { ...s.kinds, [key]: on } }), "Saved.")}
          />
          <QuietHours
            quietHours={view.quietHours}
            save={(quietHours) =>
              save((s) => ({ ...s, quietHours }), quietHours ? "Quiet hours saved." : "Quiet hours off.")
            }
          />
        </>
      ) : null}
    </section>
  );
}
