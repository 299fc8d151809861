// The settings page's form for one notification channel, new or existing: the kind (new only), its name, the
// kind's fields with their help (the Telegram API base under "Advanced"), and Enabled. A secret is shown as the host
// masked it: left as it is, the stored one is kept. The host's refusal (INVALID_INPUT) is shown next to the form.
import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ChannelKind } from "../../shared/notify-settings.ts";
import { CHANNEL_KIND_WORDS } from "../ui/notify-words.ts";
import { type ChannelDraft, type FieldSpec, KIND_FIELDS } from "./notify-draft.ts";

const KINDS = Object.keys(CHANNEL_KIND_WORDS) as ChannelKind[];
const KIND_HELP: Readonly<Record<ChannelKind, string>> = {
  webhook: "A JSON POST to a URL of yours (a chat tool's incoming webhook, an automation).",
  ntfy: "Push notifications to the ntfy app on your phone, through ntfy.sh or your own server.",
  telegram: "Messages from a Telegram bot of yours.",
};

export function ChannelForm(props: {
  initial: ChannelDraft;
  /** Saves the draft; a refusal comes back in words. */
  save: (draft: ChannelDraft) => Promise<string | undefined>;
  close: () => void;
}): JSX.Element {
  const [draft, setDraft] = useState(props.initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const formRef = useRef<HTMLFormElement>(null);
  const isNew = draft.id === null;
  useEffect(() => {
    // The first thing to fill in takes the focus: the kind while adding, the name while editing.
    formRef.current
      ?.querySelector<HTMLInputElement>(isNew ? "input[name=notify-kind]:checked" : "input")
      ?.focus();
  }, []);
  const set = (key: string, value: string) =>
    setDraft((d) => ({ ...d, values: { ...d.values, [key]: value } }));
  const submit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    void props.save(draft).then((refusal) => {
      setBusy(false);
      setError(refusal);
    });
  };
  const fields = KIND_FIELDS[draft.kind];
  const advanced = fields.filter((f) => f.advanced === true);
  const title = isNew ? "Add a channel" : `Edit ${props.initial.name}`;
  return (
    <form
      ref={formRef}
      class="card"
      aria-labelledby="notify-form-title"
      data-testid="notify-form"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === "Escape") props.close();
      }}
    >
      <h3 id="notify-form-title">{title}</h3>
      {isNew ? (
        <fieldset>
          <legend>Kind</legend>
          {KINDS.map((k) => (
            <div key={k}>
              <input
                type="radio"
                id={`notify-kind-${k}`}
                name="notify-kind"
                value={k}
                checked={draft.kind === k}
                aria-describedby={`notify-kind-${k}-help`}
                data-testid={`notify-kind-${k}`}
                onChange={() => setDraft((d) => ({ ...d, kind: k }))}
              />
              <label for={`notify-kind-${k}`}>{CHANNEL_KIND_WORDS[k]}</label>{" "}
              <span class="muted" id={`notify-kind-${k}-help`}>
                {KIND_HELP[k]}
              </span>
            </div>
          ))}
        </fieldset>
      ) : (
        <p>Kind: {CHANNEL_KIND_WORDS[draft.kind]}</p>
      )}
      <TextField
        id="notify-name"
        label="Name"
        help="How this channel is listed here and on the dashboard."
        value={draft.name}
        onInput={(v) => setDraft((d) => ({ ...d, name: v }))}
      />
      {fields
        .filter((f) => f.advanced !== true)
        .map((f) => (
          <SpecField key={`${draft.kind}-${f.key}`} field={f} draft={draft} set={set} />
        ))}
      {advanced.length > 0 ? (
        <details>
          <summary>Advanced: {advanced.map((f) => f.label).join(", ")}</summary>
          {advanced.map((f) => (
            <SpecField key={`${draft.kind}-${f.key}`} field={f} draft={draft} set={set} />
          ))}
        </details>
      ) : null}
      <p>
        <input
          type="checkbox"
          id="notify-enabled"
          checked={draft.enabled}
          data-testid="notify-form-enabled"
          onChange={(e) => setDraft((d) => ({ ...d, enabled: e.currentTarget.checked }))}
        />{" "}
        <label for="notify-enabled">Enabled (off: kept, but nothing is sent through it)</label>
      </p>
      <div class="row">
        <button
          type="submit"
          class="primary"
          aria-disabled={busy ? "true" : undefined}
          aria-describedby={error !== undefined ? "notify-form-error" : undefined}
          data-testid="notify-form-save"
        >
          {isNew ? "Add channel" : "Save channel"}
        </button>
        <button type="button" data-testid="notify-form-cancel" onClick={props.close}>
          Cancel
        </button>
      </div>
      {error !== undefined ? (
        <p role="alert" id="notify-form-error" data-testid="notify-form-error">
          {error}
        </p>
      ) : null}
    </form>
  );
}

/** One of a kind's fields; a secret still as the host masked it says so, and is selected whole on focus. */
function SpecField(props: {
  field: FieldSpec;
  draft: ChannelDraft;
  set: (key: string, value: string) => void;
}): JSX.Element {
  const { field: f, draft } = props;
  const value = draft.values[f.key] ?? "";
  const stored = draft.stored[f.key];
  const masked = f.secret && stored !== undefined && stored !== "" && value === stored;
  const help = masked
    ? `${f.help} Shown masked: leave it as it is to keep the stored one, or type a new one.`
    : f.help;
  return (
    <TextField
      id={`notify-${f.key}`}
      label={f.optional ? `${f.label} (optional)` : f.label}
      help={help}
      value={value}
      required={!f.optional}
      selectOnFocus={masked}
      onInput={(v) => props.set(f.key, v)}
    />
  );
}

function TextField(props: {
  id: string;
  label: string;
  help: string;
  value: string;
  onInput: (value: string) => void;
  required?: boolean;
  selectOnFocus?: boolean;
}): JSX.Element {
  return (
    <div style="margin:6px 0">
      <label for={props.id} style="display:block">
        {props.label}
      </label>
      <input
        id={props.id}
        type="text"
        size={48}
        autocomplete="off"
        spellcheck={false}
        value={props.value}
        aria-required={props.required === false ? undefined : "true"}
        aria-describedby={`${props.id}-help`}
        data-testid={props.id}
        onFocus={(e) => {
          if (props.selectOnFocus === true) e.currentTarget.select();
        }}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      <div class="muted" id={`${props.id}-help`}>
        {props.help}
      </div>
    </div>
  );
}
