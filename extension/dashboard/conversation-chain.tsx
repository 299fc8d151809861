// The drill-down's chain of conversations (docs/ui.md, "Continue in a new conversation"): "Conversation 1 → 2 → 3",
// then each one, oldest first, with a way to open it, its turns and size, and when, why and with which brief the
// worker left it. Sizes and reasons only: no brief or answer text is ever shown or kept.
import type { JSX } from "preact";
import type { ConversationLink, WorkerView } from "../../shared/operations/views.ts";
import { isChatGptUrl } from "../lib/chatgpt-url.ts";
import { leftWords, sizeWords } from "../ui/rollover-words.ts";
import type { UiClient } from "../ui/ui-client.ts";

export function ConversationChain(props: {
  client: UiClient;
  worker: WorkerView;
  conversations: readonly ConversationLink[];
}): JSX.Element | null {
  const links = props.conversations;
  if (links.length === 0) return null;
  return (
    <div data-testid="conversation-chain">
      <p data-testid="chain-summary">Conversation {links.map((l) => l.index).join(" → ")}</p>
      <ol>
        {links.map((l) => {
          const left = leftWords(l);
          return (
            <li key={l.index} data-testid="conversation" data-index={l.index}>
              <ConversationOpener client={props.client} worker={props.worker} link={l} /> · {sizeWords(l)}
              {left === null ? null : <span data-testid="conversation-left"> · {left}</span>}
            </li>
          );
        })}
      </ol>
    </div>
  );
}

/**
 * The current conversation is opened the way every "Open conversation" does (its bound tab is brought forward, or its
 * URL opened and bound); one the worker left is a plain link to a new tab, so opening it never touches the worker's tab.
 */
function ConversationOpener(props: {
  client: UiClient;
  worker: WorkerView;
  link: ConversationLink;
}): JSX.Element {
  const { link } = props;
  const name = `Conversation ${link.index}`;
  if (link.leftAt === null)
    return (
      <button
        type="button"
        data-testid="conversation-open"
        onClick={() => props.client.openConversation(props.worker.id, link.url)}
      >
        {name} (current)
      </button>
    );
  if (link.url === null || !isChatGptUrl(link.url)) return <span>{name} (no address)</span>;
  return (
    <a href={link.url} target="_blank" rel="noreferrer" data-testid="conversation-link">
      {name}
      <span class="sr-only"> (opens in a new tab)</span>
    </a>
  );
}
