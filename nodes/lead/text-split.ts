import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/**
 * Reply formatting of the original: escaped line breaks ("\\n" as two characters) become real ones,
 * stray isolated backslashes are removed, and two or more paragraphs (separated by a blank line)
 * become separate messages, in order. Empty paragraphs are dropped.
 */
export function formatReply(text: string): { text: string; messages: string[] } {
  const normalized = text
    .replace(/\r\n?/g, '\n')
    .replace(/\\r\\n|\\n/g, '\n')
    .replace(/\\(?![\\n])/g, '')
    .replace(/\\\\/g, '')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  const messages = normalized
    .split(/\n\s*\n+/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return { text: messages.join('\n\n'), messages };
}

/**
 * `text.split`: a generated reply as formatReply makes it: `{text, messages}`, the cleaned text and its
 * paragraphs as the messages to send, in order. Read-only.
 */
export default defineNode({
  type: 'text.split',
  readOnly: true,
  description:
    'Formats a generated reply as the original did: escaped line breaks normalised, stray backslashes removed, and each paragraph (blank-line separated) made its own WhatsApp message, in order.',
  params: Type.Object(
    { text: Type.String({ description: 'The generated text.', examples: ['{{ steps.reply.text }}'] }) },
    { additionalProperties: false },
  ),
  output: {
    description: '`{text, messages}`: the cleaned whole text (paragraphs joined by a blank line) and the messages to send, in order.',
  },
  examples: [
    {
      title: 'Split a reply into messages',
      step: { id: 'split', type: 'text.split', params: { text: 'Olá, Ana!\\n\\nComo posso ajudar?' } },
    },
  ],
  async run(params) {
    return formatReply(params.text);
  },
});
