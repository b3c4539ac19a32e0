// The KeyValue contract on the in-process store, plus what only it has (lazy expiry sweep).
import { describe, expect, it } from 'vitest';
import { createKeyValue } from '../../adapters/kv/create-key-value.js';
import { MemoryKeyValue, MemoryKeyValueStorage } from '../../adapters/kv/memory-key-value.js';
import { openMemoryKeyValue } from '../helpers/key-values.js';
import { sleep } from '../helpers/run-flow.js';
import { keyValueContract } from './key-value.contract.js';

describe('KeyValue contract [memory]', () => keyValueContract(openMemoryKeyValue));

describe('MemoryKeyValue', () => {
  it('is what createKeyValue gives without a URL, under the default prefix', async () => {
    const kv = createKeyValue({});
    expect(kv).toBeInstanceOf(MemoryKeyValue);
    expect(kv.prefix).toBe('leadflow:');
    await kv.close();
  });

  it('drops expired keys from its storage, not only from its answers', async () => {
    const storage = new MemoryKeyValueStorage();
    const kv = new MemoryKeyValue({ storage });
    await kv.dedupe('short', 50);
    await kv.acquireLock('short', 50);
    await kv.bufferPush('short', 'a', 1, Date.now(), 50);
    await kv.dedupe('long', 60_000);
    expect(storage.size).toBe(4);
    await sleep(150);
    expect(storage.size).toBe(1);
  });

  it('copies payloads in and out, as a server would', async () => {
    const kv = new MemoryKeyValue();
    const payload = { text: 'oi', nested: { n: 1 } };
    await kv.bufferPush('lead', 'a', payload, 1000);
    payload.nested.n = 2;
    const peeked = await kv.bufferPeek('lead');
    expect(peeked?.entries[0]?.payload).toEqual({ text: 'oi', nested: { n: 1 } });
    (peeked!.entries[0]!.payload as { text: string }).text = 'changed';
    expect((await kv.bufferDrainIfLast('lead', 'a', 1000, 0))?.[0]?.payload).toEqual({ text: 'oi', nested: { n: 1 } });
  });

  it('refuses use after close', async () => {
    const kv = new MemoryKeyValue();
    await kv.close();
    await expect(kv.ping()).rejects.toThrow('closed');
    await expect(kv.dedupe('x', 100)).rejects.toThrow('closed');
  });
});
