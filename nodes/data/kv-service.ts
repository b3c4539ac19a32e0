// How the debounce, dedupe and lock node types reach the key-value store: `ctx.services.kv`
// (Redis when REDIS_URL is set, else in-process), never a global.
import type { KeyValue } from '../../adapters/kv/key-value.js';
import type { NodeContext } from '../../engine/types.js';

const METHODS = ['bufferPush', 'bufferDrainIfLast', 'dedupe', 'acquireLock', 'releaseLock', 'extendLock'] as const;

/** The key-value store of `ctx.services.kv`; throws when the host configured none. */
export function kvService(ctx: NodeContext): KeyValue {
  const kv = ctx.services.kv as Partial<KeyValue> | undefined;
  if (!kv || METHODS.some((m) => typeof kv[m] !== 'function')) {
    throw new Error(`step "${ctx.stepId}" needs a key-value store, but none is configured (services.kv is missing)`);
  }
  return kv as KeyValue;
}
