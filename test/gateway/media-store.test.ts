// The runtime's media store (adapters/gateway/media-store.ts): bytes in this process, each medium's
// source noted on the key-value store, so a store of another process (a take-over) that misses a
// handle downloads the medium again; a handle without a note reads as missing. On the in-process
// store, Redis, and the embedded mode's store written through to the database (a restart), and
// through each provider's real client against its fake (cli/media-service.ts).
import { describe, expect, it } from 'vitest';
import type { MediaSource } from '../../adapters/gateway/media-cache.js';
import { MediaSourceNotes } from '../../adapters/gateway/media-source-notes.js';
import { type MediaDownload, SharedMediaStore } from '../../adapters/gateway/media-store.js';
import { gatewayProviders } from '../../adapters/gateway/providers.js';
import { DurableKeyValueStorage } from '../../adapters/kv/durable-storage.js';
import type { KeyValue } from '../../adapters/kv/key-value.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import { sharedMediaStore } from '../../cli/media-service.js';
import { MediaNotFoundError } from '../../adapters/media/media-not-found-error.js';
import { forEachProvider } from '../e2e/providers.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { dumpKeyValues } from '../helpers/erasure-dump.js';
import { forEachKeyValue, randomPrefix, useFreshKeyValue } from '../helpers/key-values.js';
import { NodeRegistry } from '../../engine/registry.js';
import { aiNodes } from '../../nodes/ai/index.js';
import { coreNodes } from '../../nodes/index.js';
import { runFlow, shutdownEngines, stepRecord } from '../helpers/run-flow.js';

const VOICE = Buffer.from('OggS voice note of the lead');
const SOURCE: MediaSource = { instance_id: 7, media_ref: '3EB0AUDIOSOURCE0001' };

/** A download that serves VOICE for SOURCE and counts its calls. */
function countingDownload(): { download: MediaDownload; calls: MediaSource[] } {
  const calls: MediaSource[] = [];
  const download: MediaDownload = async (source) => {
    calls.push(source);
    await new Promise((r) => setTimeout(r, 5));
    if (source.media_ref !== SOURCE.media_ref) throw new Error('unknown media');
    return { bytes: VOICE, mimetype: 'audio/ogg; codecs=opus' };
  };
  return { download, calls };
}

/** One store per "process": its own cache over the shared key-value store. */
const storeOn = (kv: KeyValue, download: MediaDownload, ttlMs?: number) =>
  new SharedMediaStore({ notes: new MediaSourceNotes(kv, ttlMs ? { ttlMs } : {}), download });

forEachKeyValue('SharedMediaStore', (open) => {
  const store = useFreshKeyValue(open);

  it('a handle put by one process is downloaded again by another from its noted source, once, and cached there', async () => {
    const first = countingDownload();
    const ref = await storeOn(store.current.kv, first.download).put(VOICE, 'audio/ogg; codecs=opus', 'nota.ogg', SOURCE);
    expect(first.calls).toEqual([]);

    const other = countingDownload();
    const taker = storeOn(store.current.openAnother(), other.download);
    const [a, b] = await Promise.all([taker.get(ref), taker.get(ref)]);
    expect(a).toEqual({ bytes: VOICE, mimetype: 'audio/ogg; codecs=opus', filename: 'nota.ogg' });
    expect(b).toEqual(a);
    expect(await taker.take(ref)).toEqual(a);
    expect(other.calls).toEqual([SOURCE]);
  });

  it('take frees the memory but keeps the note: a consumer run again after a crash still finds the medium', async () => {
    const { download, calls } = countingDownload();
    const media = storeOn(store.current.kv, download);
    const ref = await media.put(VOICE, 'audio/ogg', undefined, SOURCE);
    expect((await media.take(ref))?.bytes.equals(VOICE)).toBe(true);
    expect(calls).toEqual([]);
    expect((await media.get(ref))?.bytes.equals(VOICE)).toBe(true);
    expect(calls).toEqual([SOURCE]);
  });

  it('a handle without a note (never put with a source, unknown, or its note expired) reads as missing', async () => {
    const { download, calls } = countingDownload();
    const media = storeOn(store.current.kv, download, 50);
    const local = await media.put(VOICE, 'audio/ogg');
    const elsewhere = storeOn(store.current.openAnother(), download);
    expect(await elsewhere.get(local)).toBeUndefined();
    expect(await elsewhere.take('media_00000000-0000-4000-8000-000000000000')).toBeUndefined();
    const expiring = await media.put(VOICE, 'audio/ogg', undefined, SOURCE);
    await new Promise((r) => setTimeout(r, 120));
    expect(await elsewhere.get(expiring)).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('the store holds neither the gateway reference nor the file name in clear, and a note read under another handle says nothing', async () => {
    const { download } = countingDownload();
    const ref = await storeOn(store.current.kv, download).put(VOICE, 'application/pdf', 'exame-maria-souza.pdf', SOURCE);
    const dump = await dumpKeyValues(store.current.kv);
    expect(dump.names.some((name) => name.includes('media-source:'))).toBe(true);
    expect(dump.text).not.toContain(SOURCE.media_ref);
    expect(dump.text.toLowerCase()).not.toContain('maria');
    expect(dump.text).not.toContain(ref);
    const notes = new MediaSourceNotes(store.current.kv);
    expect(await notes.read(ref)).toEqual({ ...SOURCE, file_name: 'exame-maria-souza.pdf' });
    expect(await notes.read(`${ref}0`)).toBeNull();
  });

  it('a download that fails again fails the read (the consumer sees the gateway error, not an empty medium)', async () => {
    const media = storeOn(store.current.kv, async () => {
      throw new Error('gateway down');
    });
    const ref = await media.put(VOICE, 'audio/ogg', undefined, SOURCE);
    const taker = storeOn(store.current.openAnother(), async () => {
      throw new Error('gateway down');
    });
    await expect(taker.get(ref)).rejects.toThrow('gateway down');
    expect((await media.get(ref))?.bytes.equals(VOICE)).toBe(true);
  });
});

forEachDatabase('SharedMediaStore on the embedded store written through to the database', (openDb) => {
  const database = useFreshDatabase(openDb);

  it('a note written before a crash is read by the restarted process (a store loaded again from the database)', async () => {
    const prefix = randomPrefix();
    const before = new DurableKeyValueStorage(database.current.db.knex);
    await before.load();
    const ref = await storeOn(new MemoryKeyValue({ prefix, storage: before }), countingDownload().download).put(
      VOICE,
      'audio/ogg',
      undefined,
      SOURCE,
    );
    // No close: the process died. What its put resolved on is in the table.
    const after = new DurableKeyValueStorage(database.current.db.knex);
    await after.load();
    const { download, calls } = countingDownload();
    expect((await storeOn(new MemoryKeyValue({ prefix, storage: after }), download).get(ref))?.bytes.equals(VOICE)).toBe(true);
    expect(calls).toEqual([SOURCE]);
  });
});

describe('media.to-text on a SharedMediaStore', () => {
  it('a handle with no note fails the step with the clear error', async () => {
    const media = storeOn(new MemoryKeyValue({ prefix: randomPrefix() }), countingDownload().download);
    const flow = `
name: media
steps:
  - id: conv
    type: media.to-text
    params: { media_ref: "{{ trigger.body.ref }}", transcribe_model: "openai:whisper-1" }
`;
    const ref = 'media_00000000-0000-4000-8000-000000000001';
    const registry = new NodeRegistry([...coreNodes, ...aiNodes]);
    try {
      const { record } = await runFlow(flow, { body: { ref }, engine: { registry, services: { ai: {}, media } as never } });
      expect(record.status).toBe('failed');
      expect(stepRecord(record, 'conv').error?.message).toBe(new MediaNotFoundError(ref).message);
    } finally {
      await shutdownEngines();
    }
  });
});

forEachProvider('SharedMediaStore downloads again through the instance client', (provider, title) => {
  describe(title, () => {
    it("a miss downloads the medium again from the provider's gateway, as gateway.download did", async () => {
      const fake = await provider.startFake();
      try {
        const seed = provider.instance(fake);
        const instance = { id: 3, clinica_id: 1, ...seed };
        const ref = `${provider.name}-media-${Date.now()}`;
        provider.setMedia(fake, ref, { mimetype: 'audio/ogg', bytes: VOICE });
        const kv = new MemoryKeyValue({ prefix: randomPrefix() });
        const services = {
          gateway: gatewayProviders.clientFactory({ kv, retries: 0 }),
          instances: { get: async (id: number) => (id === instance.id ? (instance as never) : undefined) },
        };
        const handle = await sharedMediaStore(services, kv).put(Buffer.from('x'), 'audio/ogg', undefined, {
          instance_id: instance.id,
          media_ref: ref,
        });
        const taker = sharedMediaStore(services, kv);
        expect(await taker.get(handle)).toEqual({ bytes: VOICE, mimetype: expect.stringMatching(/^audio\/ogg/) });
        expect(provider.downloads(fake)).toEqual([ref]);
      } finally {
        await fake.close();
      }
    });
  });
});
