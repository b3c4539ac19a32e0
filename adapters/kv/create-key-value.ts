// Picks the key-value store: Redis when a URL is given (REDIS_URL), else in-process memory.
import type { KeyValue } from './key-value.js';
import { MemoryKeyValue } from './memory-key-value.js';
import { RedisKeyValue } from './redis-key-value.js';

export interface KeyValueOptions {
  /** `redis://…`; unset or empty: in-process store (one process only). */
  url?: string;
  /** Namespace of every key; default `leadflow:`. */
  prefix?: string;
  /** Redis connection errors (the client reconnects on its own). */
  onError?: (err: Error) => void;
}

export function createKeyValue(options: KeyValueOptions = {}): KeyValue {
  if (options.url) return new RedisKeyValue({ url: options.url, prefix: options.prefix, onError: options.onError });
  return new MemoryKeyValue({ prefix: options.prefix });
}
