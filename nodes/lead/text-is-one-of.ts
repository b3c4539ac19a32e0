import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/**
 * Whether a whole message is one of a few words, e.g. an opt-out word ("parar", "sair").
 *
 * Contract: text and each word are compared after `comparable`:
 *   - Unicode compatibility decomposition (NFKD: NFD plus look-alike forms such as fullwidth or
 *     "bold" letters), then every combining mark removed: accents are ignored ("PÁRAR" is "parar");
 *   - lowercased;
 *   - every whitespace removed, inside too ("pa rar" is "parar");
 *   - punctuation, symbols (emoji included) and invisible format characters removed at both ends
 *     only ("Parar.", "*sair*", "stop 👋" match; "pa.rar" does not).
 * The WHOLE text must equal a word: "parar de mandar" is not "parar". A word that compares as empty
 * is ignored; an empty (or null) text never matches. The first matching word of the list wins.
 */
const EDGES = /^[\p{P}\p{S}\p{Cf}]+|[\p{P}\p{S}\p{Cf}]+$/gu;

/** The form in which text and words are compared (see the file header). */
export function comparable(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/gu, '')
    .replace(EDGES, '');
}

/** The words of a list written as text ("parar, sair") or as a list, each trimmed; blanks dropped. */
export function wordsOf(list: string | string[] | null | undefined): string[] {
  if (list === null || list === undefined) return [];
  const items = Array.isArray(list) ? list : list.split(',');
  return items.map((word) => String(word).trim()).filter((word) => comparable(word) !== '');
}

/** Each word of a list (wordsOf) with its comparable form. */
type ComparableWords = Array<{ word: string; form: string }>;

function comparableWords(list: string | string[] | null | undefined): ComparableWords {
  return wordsOf(list).map((word) => ({ word, form: comparable(word) }));
}

/** Most lists written as text whose words are kept in comparable form (the shipped flows pass two). */
const KEPT_LISTS = 32;
/**
 * Lists written as text and their words' forms: a flow passes the same lists (env values) on every
 * message, so their words are put in comparable form once, not per message. The oldest list goes
 * past KEPT_LISTS.
 */
const keptLists = new Map<string, ComparableWords>();

function wordsOfList(list: string | string[] | null | undefined): ComparableWords {
  if (typeof list !== 'string') return comparableWords(list);
  let words = keptLists.get(list);
  if (!words) {
    words = comparableWords(list);
    keptLists.set(list, words);
    if (keptLists.size > KEPT_LISTS) keptLists.delete(keptLists.keys().next().value as string);
  }
  return words;
}

/** The word of `words` (as written, trimmed) that the whole `text` is, or null. */
export function matchingWord(text: string | null | undefined, words: string | string[] | null | undefined): string | null {
  const said = typeof text === 'string' ? comparable(text) : '';
  if (said === '') return null;
  return wordsOfList(words).find((entry) => entry.form === said)?.word ?? null;
}

/**
 * `text.is-one-of`: `{matched, word}`: whether the whole `text` is one of `words` compared as
 * `comparable` makes them (see the contract above), and the first word of the list that matched (as
 * written, trimmed), or null. Read-only.
 */
export default defineNode({
  type: 'text.is-one-of',
  readOnly: true,
  description:
    'Whether a whole message is one of a list of words (e.g. the opt-out words): spaces, case and accents are ignored, and so are punctuation, symbols and emoji at its ends ("Parar." and " PÁRAR " are "parar"); a longer message ("parar de mandar") is not. An empty text never matches.',
  params: Type.Object(
    {
      text: Type.Union([Type.String(), Type.Null()], {
        description: "The message, e.g. the lead's text; null or blank never matches.",
        examples: ['{{ vars.input }}'],
      }),
      words: Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()], {
        description: 'The words: comma-separated text ("parar,sair,stop") or a list; blank entries are ignored; null: none.',
        examples: ['{{ env.LEADFLOW_OPTOUT_WORDS }}', ['parar', 'sair', 'stop', 'descadastrar']],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description: '`{matched, word}`: whether the text is one of the words, and which word of the list (as written, trimmed), or null.',
  },
  examples: [
    {
      title: 'Is the message an opt-out word?',
      step: {
        id: 'optout_word',
        type: 'text.is-one-of',
        params: { text: '{{ vars.input }}', words: '{{ env.LEADFLOW_OPTOUT_WORDS }}' },
      },
    },
    {
      title: 'A fixed list',
      step: { id: 'stop_word', type: 'text.is-one-of', params: { text: 'Parar.', words: ['parar', 'sair'] } },
    },
  ],
  async run(params) {
    const word = matchingWord(params.text, params.words);
    return { matched: word !== null, word };
  },
});
