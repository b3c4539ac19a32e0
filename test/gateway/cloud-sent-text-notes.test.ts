// The notes of Cloud texts that named a template (adapters/gateway/cloud/sent-text-notes.ts), on the
// in-process store and on Redis: taken back once by the text's wamid, keyed without the phone (nor
// the wamid, which carries it), and erased with the lead by the provider's `forget` (`excluir`).
import { expect, it } from 'vitest';
import { SentTextNotes } from '../../adapters/gateway/cloud/sent-text-notes.js';
import { gatewayProviders } from '../../adapters/gateway/providers.js';
import { dumpKeyValues, expectNoTraces, realisticWamid, tracesIn } from '../helpers/erasure-dump.js';
import { forEachKeyValue, useFreshKeyValue } from '../helpers/key-values.js';

const LEAD = '5543999806366';
const OTHER = '5511987654321';
const HUNTER = '5511911112222';

forEachKeyValue('cloud sent-text notes', (open) => {
  const store = useFreshKeyValue(open);

  it('a note is taken once, by its wamid and instance; no key names the phone or the wamid', async () => {
    const notes = new SentTextNotes(store.current.kv);
    const wamid = realisticWamid(LEAD);
    await notes.note(7, wamid, LEAD, { purpose: 'follow_up', parameters: ['Maria'], group: 'g1' });
    const dump = await dumpKeyValues(store.current.kv);
    expect(tracesIn([LEAD, wamid, wamid.slice(6)], dump.names.join('\n'))).toEqual([]);
    expect(tracesIn([LEAD], dump.text)).toEqual([]);
    expect(await notes.take(8, wamid)).toBeNull();
    expect(await notes.take(7, realisticWamid(LEAD))).toBeNull();
    expect(await notes.take(7, wamid)).toEqual({ purpose: 'follow_up', parameters: ['Maria'], group: 'g1' });
    expect(await notes.take(7, wamid)).toBeNull();
  });

  it("the provider's forget erases the notes concerning the lead (sent to any Brazilian form of the number, or naming it), and only those", async () => {
    const notes = new SentTextNotes(store.current.kv);
    const [a, b, alert, other] = [realisticWamid(LEAD), realisticWamid(LEAD), realisticWamid(HUNTER), realisticWamid(OTHER)];
    await notes.note(7, a, LEAD, { purpose: 'primeiro_contato', parameters: ['Mariazinha', 'Clínica Aurora'], group: 'g1' });
    await notes.note(7, b, '554399806366', { purpose: 'follow_up', parameters: ['Mariazinha'], group: 'g2' });
    // The Hunter's alert about the lead: sent to the Hunter, naming the lead and her number.
    await notes.note(7, alert, HUNTER, {
      purpose: 'alerta_hunter',
      parameters: ['Mariazinha', `${LEAD}@s.whatsapp.net`, 'R$ 5 mil'],
      group: 'g3',
    });
    await notes.note(7, other, OTHER, { purpose: 'follow_up', parameters: ['Joana'], group: 'g4' });
    expect(tracesIn(['Mariazinha', LEAD], (await dumpKeyValues(store.current.kv)).text)).toEqual(['Mariazinha', LEAD]);
    expect(await gatewayProviders.get('cloud').forget!(7, LEAD, store.current.kv)).toBe(4); // three notes and the lead's index
    expectNoTraces(['Mariazinha', LEAD], await dumpKeyValues(store.current.kv), 'the key-value store');
    expect(await notes.take(7, a)).toBeNull();
    expect(await notes.take(7, b)).toBeNull();
    expect(await notes.take(7, alert)).toBeNull();
    expect(await notes.take(7, other)).toMatchObject({ parameters: ['Joana'] });
  });
});
