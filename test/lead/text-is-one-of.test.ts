import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/types.js';
import { comparable, matchingWord, wordsOf } from '../../nodes/lead/text-is-one-of.js';
import { runFlow, shutdownEngines } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const OPTOUT = 'parar,sair,stop,descadastrar';

describe('text.is-one-of (the opt-out words)', () => {
  it('ignores case, accents and every space, inside too', () => {
    expect(matchingWord(' PÁRAR ', OPTOUT)).toBe('parar');
    expect(matchingWord('Sáir', OPTOUT)).toBe('sair');
    expect(matchingWord('S T O P', OPTOUT)).toBe('stop');
    expect(matchingWord('des\u00a0cadastrar\n', OPTOUT)).toBe('descadastrar');
    // Decomposed input (a + combining acute) and look-alike "bold" or fullwidth letters.
    expect(matchingWord('pa\u0301rar', OPTOUT)).toBe('parar');
    expect(matchingWord('ＳＴＯＰ', OPTOUT)).toBe('stop');
  });

  it('ignores punctuation, symbols and emoji at the ends only', () => {
    expect(matchingWord('Parar.', OPTOUT)).toBe('parar');
    expect(matchingWord('parar!!!', OPTOUT)).toBe('parar');
    expect(matchingWord('*SAIR*', OPTOUT)).toBe('sair');
    expect(matchingWord('"stop"', OPTOUT)).toBe('stop');
    expect(matchingWord('Parar 👋🏻', OPTOUT)).toBe('parar');
    expect(matchingWord('pa.rar', OPTOUT)).toBeNull();
    expect(matchingWord('p-arar', OPTOUT)).toBeNull();
  });

  it('compares the whole text: a longer message is not a word', () => {
    expect(matchingWord('parar de mandar', OPTOUT)).toBeNull();
    expect(matchingWord('quero sair', OPTOUT)).toBeNull();
    expect(matchingWord('pararam', OPTOUT)).toBeNull();
    expect(matchingWord('para', OPTOUT)).toBeNull();
  });

  it('never matches an empty text, and ignores empty words of the list', () => {
    expect(matchingWord('', OPTOUT)).toBeNull();
    expect(matchingWord('   ', OPTOUT)).toBeNull();
    expect(matchingWord('...', 'parar,,.,  ,')).toBeNull();
    expect(matchingWord(null, OPTOUT)).toBeNull();
    expect(matchingWord('', ',,')).toBeNull();
    expect(matchingWord('parar', null)).toBeNull();
    expect(wordsOf(' parar , ,sair,,!, ')).toEqual(['parar', 'sair']);
    expect(wordsOf(['Stop ', ''])).toEqual(['Stop']);
  });

  it("answers the list's word as written (trimmed), the first that matches", () => {
    expect(matchingWord('stop', ' Sair , STOP ,stop')).toBe('STOP');
    expect(matchingWord('descadastrar', ['Descadastrar'])).toBe('Descadastrar');
    expect(matchingWord('sair', ['sáir'])).toBe('sáir');
  });

  it('puts text and words in the same comparable form', () => {
    expect(comparable(' Pá rar! ')).toBe('parar');
    expect(comparable('¡¿Sair?!')).toBe('sair');
    expect(comparable('🙂')).toBe('');
  });

  it('runs as a node: {matched, word}; a missing text is null and does not match', async () => {
    const flow = `
name: optout
steps:
  - id: optout_word
    type: text.is-one-of
    params: { text: "{{ trigger.body.text }}", words: "{{ trigger.body.words }}" }
`;
    const run = async (body: JsonObject) => (await runFlow(flow, { body })).record;
    const hit = await run({ text: ' PÁRAR. ', words: OPTOUT });
    expect(hit.status).toBe('success');
    expect(hit.output).toEqual({ matched: true, word: 'parar' });
    expect((await run({ text: 'parar de mandar', words: ['parar', 'sair'] })).output).toEqual({ matched: false, word: null });
    const missing = await run({ words: OPTOUT });
    expect(missing.status).toBe('success');
    expect(missing.output).toEqual({ matched: false, word: null });
  });
});

describe('matchingWord with a list that changes', () => {
  it('answers from the list of each call, the same list again or another one', () => {
    expect(matchingWord('parar', 'parar,sair')).toBe('parar');
    expect(matchingWord('parar', 'parar,sair')).toBe('parar');
    expect(matchingWord('parar', 'sair,stop')).toBeNull();
    expect(matchingWord('stop', 'sair,stop')).toBe('stop');
    expect(matchingWord('parar', ['Parar'])).toBe('Parar');
    expect(matchingWord('stop', 'sair,stop')).toBe('stop');
    expect(matchingWord('stop', 'parar,sair')).toBeNull();
  });
});
