// The embedded mode's key-value store (adapters/kv/durable-storage.ts): MemoryKeyValue's contract,
// and every change on disk once its call resolved — one write (a statement of its own) or several
// at once (one transaction) — on SQLite and PostgreSQL: a store loaded again from the database holds
// what the first one was told, and nothing it erased.
import { describe, expect, it } from 'vitest';
import { DurableKeyValueStorage } from '../../adapters/kv/durable-storage.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { randomPrefix, type OpenKeyValue } from '../helpers/key-values.js';
import { keyValueContract } from './key-value.contract.js';

const T0 = 1_750_000_000_000;

forEachDatabase('DurableKeyValueStorage', (open) => {
  const database = useFreshDatabase(open);

  /** A store on the test's database, loaded from what is there. */
  async function loaded(prefix: string): Promise<{ kv: MemoryKeyValue; storage: DurableKeyValueStorage }> {
    const storage = new DurableKeyValueStorage(database.current.db.knex);
    await storage.load();
    return { kv: new MemoryKeyValue({ prefix, storage }), storage };
  }

  describe('the KeyValue contract', () => {
    const openDurable: OpenKeyValue = async () => {
      const prefix = randomPrefix();
      const { kv, storage } = await loaded(prefix);
      return {
        kv,
        kind: 'memory',
        prefix,
        openAnother: (other = prefix) => new MemoryKeyValue({ prefix: other, storage }),
        cleanup: () => kv.close(),
      };
    };
    keyValueContract(openDurable);
  });

  it('a store loaded again holds every write once its call resolved, one at a time or several at once', async () => {
    const prefix = randomPrefix();
    const { kv } = await loaded(prefix);
    // One at a time: each write is its own batch.
    expect(await kv.dedupe('5:5511987654321:m1', 60_000, 'e1')).toBe(true);
    await kv.bufferPush('5:5511987654321', 'm1', { text: 'oi' }, T0, 60_000);
    const token = await kv.acquireLock('5:5511987654321', 60_000);
    // Several at once: written in one batch.
    await Promise.all([
      kv.bufferPush('5:5511987654321', 'm2', { text: 'tudo bem?' }, T0 + 10, 60_000),
      kv.dedupe('5:5511987654321:m2', 60_000, 'e2'),
      kv.dedupe('6:5521912345678:m9', 60_000, 'e9'),
      kv.bufferPush('6:5521912345678', 'm9', { text: 'olá' }, T0 + 20, 60_000),
    ]);
    // Erased after being written: gone from the database too.
    expect(await kv.erase(['6:5521912345678'])).toBeGreaterThan(0);

    const again = (await loaded(prefix)).kv;
    expect(await again.lockHolder('5:5511987654321')).toBe(token);
    expect(await again.dedupe('5:5511987654321:m1', 60_000, 'other')).toBe(false);
    expect(await again.dedupe('5:5511987654321:m1', 60_000, 'e1')).toBe(true);
    expect(await again.dedupe('5:5511987654321:m2', 60_000, 'other')).toBe(false);
    expect(await again.dedupe('6:5521912345678:m9', 60_000, 'other')).toBe(false);
    expect((await again.bufferPeek('5:5511987654321'))?.entries.map((e) => [e.id, e.payload])).toEqual([
      ['m1', { text: 'oi' }],
      ['m2', { text: 'tudo bem?' }],
    ]);
    expect(await again.bufferPeek('6:5521912345678')).toBeNull();
  });

  it('a drained buffer and a released lock stay gone after a reload; a rewritten slot keeps its last value', async () => {
    const prefix = randomPrefix();
    const { kv } = await loaded(prefix);
    await kv.bufferPush('k', 'a', 1, T0, 60_000);
    await kv.bufferPush('k', 'b', 2, T0 + 1, 60_000);
    expect((await kv.bufferDrainIfLast('k', 'b', T0 + 2, 60_000))?.map((e) => e.id)).toEqual(['a', 'b']);
    await kv.bufferPush('k2', 'c', 3, T0, 60_000);
    await kv.bufferPush('k2', 'd', 4, T0 + 5, 60_000);
    const token = await kv.acquireLock('l', 60_000);
    expect(await kv.releaseLock('l', token!)).toBe(true);

    const again = (await loaded(prefix)).kv;
    expect(await again.bufferPeek('k')).toBeNull();
    expect(await again.lockHolder('l')).toBeNull();
    expect(await again.bufferPeek('k2')).toMatchObject({ count: 2, first_at: T0, last_at: T0 + 5, last_id: 'd' });
  });
});
