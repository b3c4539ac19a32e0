// Picks the key-value store: Redis when a URL is given (REDIS_URL), else in-process memory.
import type { KeyValue } from './key-value.js';
import { MemoryKeyValue } from './memory-key-value.js';
import { RedisKeyValue } from './redis-key-value.js';

/**
 * Which key-value store to open (a Redis URL, or none for memory), its key namespace, and where Redis
 * connection errors go.
 */
export interface KeyValueOptions {
  /** `redis://…`; unset or empty: in-process store (one process only). */
  url?: string;
  /** Namespace of every key; default `leadflow:`. */
  prefix?: string;
  /** Redis connection errors (the client reconnects on its own). */
  onError?: (err: Error) => void;
}

/**
 * Opens the key-value store `options` name: a RedisKeyValue when `url` is set, else a MemoryKeyValue
 * of this process only.
 */
export function createKeyValue(options: KeyValueOptions = {}): KeyValue {
  if (options.url) return new RedisKeyValue({ url: options.url, prefix: options.prefix, onError: options.onError });
  return new MemoryKeyValue({ prefix: options.prefix });
}
