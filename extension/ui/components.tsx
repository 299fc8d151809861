// Shared pieces of every view: the root with its stylesheet, state and connection chips, the connection banner with
// its fix, buttons that run an operation and show its error, a button that asks first, the worker controls
// (Pause / a hold's remedy / Continue now / Continue in a new conversation / Stop worker) and a polite live region
// for meaningful changes only.
import { createContext, type ComponentChildren, type JSX } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { clock, STATE_ICON, stateWords } from "./format.ts";
import { UI_CSS } from "./styles.ts";
import type { UiClient } from "./ui-client.ts";
import type { UiStatus } from "./ui-protocol.ts";
import { offersContinueNow, PAUSE_REASONS, remedyPlan, type RemedyPlan } from "./remedy.ts";
import { NEW_CONVERSATION_QUESTION } from "./rollover-words.ts";
import type { Storage } from "../../shared/operations/records.ts";
import type { WorkerView } from "../../shared/operations/views.ts";
import type { ViewCall, ViewCallName, ViewCallParams } from "./view-calls.ts";

/**
 * Which input events a control acts on. Extension pages run only our code, so every event counts; the overlay
 * lives in chatgpt.com, whose scripts could synthesise clicks, so it accepts only trusted (user) events.
 */
export const EventGuard = createContext<(e: Event) => boolean>(() => true);

/** Wraps a handler so it runs only for events the guard accepts. */
export function useGuarded<E extends Event>(fn: (e: E) => void): (e: E) => void {
  const accept = useContext(EventGuard);
  return (e) => {
    if (accept(e)) fn(e);
  };
}

export function Root(props: { children: ComponentChildren; testId: string }): JSX.Element {
  return (
    <div class="orc-root" data-testid={props.testId}>
      <style>{UI_CSS}</style>
      {props.children}
    </div>
  );
}

export function StateChip(props: { worker: Pick<WorkerView, "label"> }): JSX.Element {
  const slug = props.worker.label.toLowerCase().replace(/\s+/g, "-");
  return (
    <span class={`state state-${slug}`} data-testid="state" data-state={props.worker.label}>
      <span aria-hidden="true">{STATE_ICON[props.worker.label]}</span>
      {stateWords(props.worker)}
    </span>
  );
}

/** What the connection is, in words: the first thing a person wants to know. */
export function connectionWords(status: UiStatus | null): { icon: string; text: string; ok: boolean } {
  switch (status?.connection) {
    case undefined:
      return { icon: "…", text: "Starting…", ok: false };
    case "connected":
      return { icon: "●", text: "Live", ok: true };
    case "connecting":
      return { icon: "…", text: "Connecting…", ok: false };
    case "reconnecting":
      return { icon: "↻", text: "Reconnecting…", ok: false };
    case "host-not-installed":
      return { icon: "✕", text: "Host not installed", ok: false };
    case "incompatible":
      return { icon: "✕", text: "Host needs an update", ok: false };
  }
}

export function ConnectionChip(props: { status: UiStatus | null }): JSX.Element {
  const c = connectionWords(props.status);
  return (
    <span class={`conn ${c.ok ? "conn-connected" : "conn-problem"}`} data-testid="connection">
      <span aria-hidden="true">{c.icon}</span>
      {c.text}
    </span>
  );
}

/** Shown while the host is not reachable: what is wrong, how to fix it, and a way to retry now. */
export function ConnectionBanner(props: { client: UiClient }): JSX.Element | null {
  const status = props.client.status.value;
  if (status?.connection === "connected") return null;
  const c = connectionWords(status);
  let fix: ComponentChildren = "Nothing you see here is stale: it reappears as soon as the host answers.";
  if (status?.connection === "host-not-installed")
    fix = (
      <>
        Run <code>npx orchestrator install</code> in the project, then choose Reconnect.
      </>
    );
  if (status?.connection === "incompatible") fix = status.error ?? "Update the extension or the host.";
  return (
    <div class="banner" data-testid="connection-banner">
      <p>
        <strong>{c.text}</strong>
        {status?.error && status.connection === "reconnecting" ? ` (${status.error})` : ""}
      </p>
      <p>{fix}</p>
      <button type="button" onClick={() => props.client.retry()} disabled={status === null}>
        Reconnect
      </button>
    </div>
  );
}

/**
 * Shown while the host cannot save changes (its disk is full or failing): what is wrong, that nothing shown is lost,
 * and that it heals by itself once the disk takes data. Workers are not resumed meanwhile, so the operator must know.
 */
export function StorageBanner(props: { storage: Storage | undefined; now: number }): JSX.Element | null {
  const s = props.storage;
  if (!s || s.writable) return null;
  return (
    <div class="banner" role="alert" data-testid="storage-banner">
      <p>
        <strong>Changes cannot be saved</strong> since {clock(s.since)}: {s.message}
      </p>
      <p>
        Free space on that disk (or fix it). What you see is what is saved; nothing resumes meanwhile. Saving
        restarts by itself within {Math.max(1, Math.ceil((s.nextRetryAt - props.now) / 1000))} s of the disk
        taking data again.
      </p>
    </div>
  );
}

/**
 * Runs an operation; unavailable while it runs; a refusal is shown next to it (role=alert), never swallowed.
 * While busy the button is `aria-disabled`, not `disabled`: Chromium moves the focus off a focused button that
 * becomes disabled, which would throw a keyboard user back to the top of the page.
 */
export function ActionButton(props: {
  label: string;
  run: () => Promise<string | undefined>;
  testId?: string;
  disabled?: boolean;
  class?: string;
  describedBy?: string;
  /** For a switch: role="switch" with aria-checked (the label still says On/Off in words). */
  checked?: boolean;
  labelledBy?: string;
  /** Id of the label text itself (so a switch's name can include its On/Off word). */
  labelId?: string;
}): JSX.Element {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const ref = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  const running = useRef(false);
  useEffect(() => {
    // The view may re-render this button disabled after its action (e.g. Continue now while Resuming), and
    // Chromium then drops focus to <body>: give it back, so a keyboard user stays where they were.
    const el = ref.current;
    if (busy || !refocus.current || !el) return;
    refocus.current = false;
    const active = el.ownerDocument.activeElement;
    if (active === null || active === el.ownerDocument.body) el.focus();
  }, [busy]);
  const onClick = useGuarded(() => {
    if (running.current) return; // one call at a time; the button stays focusable meanwhile
    running.current = true;
    const root = ref.current?.getRootNode() as Document | ShadowRoot | undefined;
    refocus.current = root?.activeElement === ref.current;
    setBusy(true);
    setError(undefined);
    void props.run().then((e) => {
      running.current = false;
      setBusy(false);
      setError(e);
    });
  });
  return (
    <span class="row">
      <button
        ref={ref}
        type="button"
        class={props.class}
        data-testid={props.testId}
        disabled={props.disabled}
        aria-disabled={busy ? "true" : undefined}
        aria-describedby={props.describedBy}
        aria-labelledby={props.labelledBy}
        role={props.checked === undefined ? undefined : "switch"}
        aria-checked={props.checked}
        onClick={onClick}
      >
        <span id={props.labelId}>{props.label}</span>
      </button>
      {error ? <span role="alert">{error}</span> : null}
    </span>
  );
}

/**
 * An action that asks first: the first press shows the question in place, the second does it; focus starts on Cancel
 * and Escape cancels. Destructive by default (red, "■"); `plain` for a weighty but not destructive action.
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  run: () => Promise<string | undefined>;
  testId?: string;
  disabled?: boolean;
  plain?: boolean;
}): JSX.Element {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  const restore = useRef(false);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    // Back on the opener after Cancel/Escape, so the keyboard user is where they were.
    else if (restore.current) openerRef.current?.focus();
    restore.current = false;
  }, [asking]);
  const cancel = () => {
    restore.current = true;
    setAsking(false);
  };
  const open = useGuarded(() => setAsking(true));
  const guardedCancel = useGuarded(cancel);
  const onKeyDown = useGuarded((e: KeyboardEvent) => {
    if (e.key === "Escape") cancel();
  });
  if (!asking)
    return (
      <button
        ref={openerRef}
        type="button"
        class={props.plain ? undefined : "danger"}
        data-testid={props.testId}
        disabled={props.disabled}
        onClick={open}
      >
        {props.plain ? null : <span aria-hidden="true">■ </span>}
        {props.label}…
      </button>
    );
  return (
    <span class="row warn" role="group" aria-label={props.question} onKeyDown={onKeyDown}>
      <span>{props.question}</span>
      <ActionButton
        label={`Yes, ${props.label.toLowerCase()}`}
        class={props.plain ? "primary" : "danger"}
        testId={props.testId ? `${props.testId}-confirm` : undefined}
        run={async () => {
          const e = await props.run();
          if (!e) setAsking(false);
          return e;
        }}
      />
      <button type="button" ref={confirmRef} onClick={guardedCancel} data-testid="confirm-cancel">
        Cancel
      </button>
    </span>
  );
}

/** Calls an operation and returns its refusal in words, or undefined when it went through. */
export async function act<N extends ViewCallName>(
  client: UiClient,
  op: N,
  params: ViewCallParams<N>,
): Promise<string | undefined> {
  const r = await client.call(op, params);
  return r.ok ? undefined : r.error.message;
}

/** The Needs-you answer for the `answer` remedy: the dashboard's form, or the popup opening the dashboard. */
export interface AnswerAction {
  readonly label: string;
  readonly open: () => void;
}

/**
 * A worker's controls, driven by its liveness (docs/ui.md, "Liveness and remedies"): Pause, or while paused the
 * pause's remedy (Resume / Continue anyway / Continue now) in the same button; the remedy of any other hold (Release,
 * Open conversation, Answer, and Continue in a new conversation, asked in place first); Continue now where it makes
 * sense; Continue in a new conversation where the view asks for it; Stop worker. `Continue now` while the conversation
 * is generating queues one turn for after it (docs/continuation-core.md, "Operator semantics"), and says so on the button.
 */
export function WorkerControls(props: {
  client: UiClient;
  worker: WorkerView;
  /** Which controls beyond the remedy; Continue in a new conversation is off unless asked for (drill-down, overlay). */
  show?: { pause?: boolean; continueNow?: boolean; stop?: boolean; newConversation?: boolean };
  /** The overlay may call only its own worker's controls, and is itself the conversation (nothing to open). */
  place?: "page" | "overlay";
  answer?: AnswerAction;
}): JSX.Element | null {
  const { client, worker: w } = props;
  const show = { pause: true, continueNow: true, stop: true, newConversation: false, ...props.show };
  if (w.status !== "active") return null;
  const l = w.liveness;
  const overlay = props.place === "overlay";
  const plan: RemedyPlan = l ? remedyPlan(w.id, l) : { kind: "text" };
  const paused = l ? PAUSE_REASONS.has(l.reason) : w.pause !== null;
  // One element that changes its words (Pause ⇄ the pause's remedy), not two: replacing the focused button would
  // drop a keyboard user's focus to the top of the page right after they pressed it.
  const toggle =
    paused && plan.kind === "call"
      ? plan
      : paused
        ? remedyCall("Resume", "resume", { op: "worker_resume", params: { workerId: w.id } })
        : remedyCall("Pause", "pause", { op: "worker_pause", params: { workerId: w.id } });
  const continueRemedy = !paused && plan.kind === "call" && l?.remedy.action === "continue_now";
  const showContinue =
    (show.continueNow || continueRemedy) &&
    offersContinueNow(l) &&
    !(paused && toggle.call.op === "worker_continue_now");
  const continueCall = continueRemedy
    ? plan.call
    : ({ op: "worker_continue_now", params: { workerId: w.id, clearPause: true } } satisfies ViewCall);
  const generating = w.conversation.state === "generating";
  // Another remedy than the pause's or Continue now's: Release, Open conversation, Answer, Auto Resume on.
  let extra: JSX.Element | null = null;
  if (!paused && plan.kind === "call" && !continueRemedy && !(overlay && plan.call.op === "auto_resume_set"))
    extra =
      plan.confirm === undefined ? (
        <ActionButton label={plan.label} testId={plan.testId} run={() => runCall(client, plan.call)} />
      ) : offersNewConversation(w) ? (
        // Continue in a new conversation (the length limit's remedy): asks in place first.
        <ConfirmButton
          plain
          label={plan.label}
          question={plan.confirm}
          testId={plan.testId}
          run={() => runCall(client, plan.call)}
        />
      ) : null;
  if (plan.kind === "open" && !overlay)
    extra = (
      <button
        type="button"
        data-testid={plan.testId}
        onClick={() => client.openConversation(w.id, w.conversation.url)}
      >
        {plan.label}
      </button>
    );
  if (plan.kind === "answer" && props.answer)
    extra = (
      <button type="button" data-testid={plan.testId} onClick={props.answer.open}>
        {props.answer.label}
      </button>
    );
  return (
    <div class="row" role="group" aria-label={`Controls for ${w.name || w.path}`}>
      {show.pause || paused ? (
        <ActionButton label={toggle.label} testId={toggle.testId} run={() => runCall(client, toggle.call)} />
      ) : null}
      {extra}
      {showContinue ? (
        <ActionButton
          label={generating ? "Continue after this turn" : "Continue now"}
          testId="continue-now"
          // Due with nothing to do (idle grace, a turn being sent): the turn goes out anyway.
          disabled={l?.state === "due" && l.remedy.action === "none"}
          run={() => runCall(client, continueCall)}
        />
      ) : null}
      {show.newConversation && !(plan.kind === "call" && plan.call.op === "worker_new_conversation") ? (
        <NewConversationButton client={client} worker={w} />
      ) : null}
      {show.stop ? (
        <ConfirmButton
          label="Stop worker"
          question={`Stop ${w.name || w.path} for good? This cannot be undone.`}
          testId="stop-worker"
          run={() => act(client, "worker_stop", { workerId: w.id, reason: "stopped by the operator" })}
        />
      ) : null}
    </div>
  );
}

/** Continue in a new conversation is offered for an active worker while no move is under way. */
export function offersNewConversation(w: Pick<WorkerView, "status" | "rollover">): boolean {
  return w.status === "active" && (w.rollover ?? null) === null;
}

/**
 * The operator's rollover (`worker_new_conversation`, docs/ui.md "Continue in a new conversation"): the first press
 * says in place what will happen, the second asks the host. Nothing while the worker has ended or a move is under way.
 */
export function NewConversationButton(props: { client: UiClient; worker: WorkerView }): JSX.Element | null {
  const { client, worker: w } = props;
  if (!offersNewConversation(w)) return null;
  return (
    <ConfirmButton
      plain
      label="Continue in a new conversation"
      question={NEW_CONVERSATION_QUESTION}
      testId="new-conversation"
      run={() => act(client, "worker_new_conversation", { workerId: w.id })}
    />
  );
}

function remedyCall(
  label: string,
  testId: string,
  call: ViewCall,
): { label: string; testId: string; call: ViewCall } {
  return { label, testId, call };
}

/** Runs a remedy's operation; the host's refusal (e.g. CONVERSATION_BLOCKED) comes back as words to show. */
export function runCall(client: UiClient, call: ViewCall): Promise<string | undefined> {
  // A ViewCall pairs its name and params; TypeScript cannot follow the pairing through a union, so it is restated.
  return act(client, call.op, call.params as never);
}

/**
 * A polite live region that speaks only when something meaningful changed: the connection, or a worker's
 * state in words. Re-renders with the same facts say nothing.
 */
export function Announcer(props: { facts: ReadonlyMap<string, string> }): JSX.Element {
  const previous = useRef<ReadonlyMap<string, string> | null>(null);
  const [text, setText] = useState("");
  const signature = JSON.stringify([...props.facts]);
  useEffect(() => {
    const before = previous.current;
    previous.current = props.facts;
    if (before === null) return; // the first render is what the person is looking at, not a change
    const changed = [...props.facts].filter(([k, v]) => before.get(k) !== v).map(([, v]) => v);
    if (changed.length > 0) setText(changed.join(". "));
  }, [signature]); // the signature stands for the facts: a new Map with the same content is no change
  return (
    <div class="sr-only" role="status" aria-live="polite" data-testid="announcer">
      {text}
    </div>
  );
}
