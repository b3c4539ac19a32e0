// A lead's conversation as chat bubbles, oldest first: the lead on the left, the agent on the
// right, a person of the clinic (operator) on the right in another colour, labelled "equipe".
// Message text is rendered as text (line breaks kept by CSS), never as HTML.
import type { ChatMessageRow } from '../../server/api-types.js';
import { formatWhen } from '../format.js';
import { t } from '../i18n/index.js';

/** A lead's messages as bubbles (oldest first), or a line saying there are none. */
export function Conversation({ messages }: { messages: ChatMessageRow[] }) {
  if (messages.length === 0) return <p class="muted">{t.lead.noMessages}</p>;
  return (
    <ol class="chat">
      {messages.map((message) => (
        <li key={message.id} class={`bubble bubble-${message.type}`}>
          <span class="bubble-author">{t.lead.from[message.type]}</span>
          <p class="bubble-text">{message.content}</p>
          <time class="bubble-time" dateTime={message.created_at}>
            {formatWhen(message.created_at)}
          </time>
        </li>
      ))}
    </ol>
  );
}
