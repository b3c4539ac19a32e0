// `services.media` of a runtime: the media bytes in this process's cache, each medium's source noted
// on the key-value store every process reads, so a process taking an execution over downloads a
// medium again when a step asks for a handle another process put (adapters/gateway/media-store.ts).
import type { KeyValue } from '../adapters/kv/key-value.js';
import { MediaSourceNotes } from '../adapters/gateway/media-source-notes.js';
import { SharedMediaStore } from '../adapters/gateway/media-store.js';
import { instanceClient } from '../nodes/messaging/lib/instance-client.js';
import type { ServicesOf } from '../nodes/services.js';

/**
 * The media store over `kv`: a miss downloads again through the instance's gateway client, looked
 * up in `services` as `gateway.download` does (any provider).
 */
export function sharedMediaStore(services: ServicesOf<'gateway' | 'instances'>, kv: KeyValue): SharedMediaStore {
  return new SharedMediaStore({
    notes: new MediaSourceNotes(kv),
    async download(source, options) {
      const { client } = await instanceClient(services, source.instance_id);
      return client.downloadMedia(source.media_ref, options.signal ? { signal: options.signal } : {});
    },
  });
}
