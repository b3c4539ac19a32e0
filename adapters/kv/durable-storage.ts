// The embedded mode's key-value data, kept in memory (MemoryKeyValue's semantics and atomicity) and
// written through to the database table `kv_slots` (migration 004), so a crash or restart of the
// one process loses no message buffer, dedupe mark or lock. Contract:
//   - `load()` once before use: every live row comes back; expired rows are deleted.
//   - every change is queued; MemoryKeyValue awaits `flush()` before a write resolves, so what a
//     node was told is on disk. Writes go out in order, batched in one transaction per flush.
//   - one process per database (as the embedded mode is): nothing re-reads rows written by another.
import type { Knex } from 'knex';
import type { BufferEntry } from './key-value.js';
import { MemoryKeyValueStorage, type Slot } from './memory-key-value.js';

const TABLE = 'kv_slots';

type StoredSlot = { expiresAt: number } & ({ buffer: { entries: BufferEntry[]; first_at: number; last_at: number } } | { value: string });

function toStored(slot: Slot): StoredSlot {
  if ('buffer' in slot)
    return {
      expiresAt: slot.expiresAt,
      buffer: { entries: slot.buffer.entries, first_at: slot.buffer.first_at, last_at: slot.buffer.last_at },
    };
  return { expiresAt: slot.expiresAt, value: slot.value };
}

function fromStored(stored: StoredSlot): Slot {
  if ('buffer' in stored) {
    const { entries, first_at, last_at } = stored.buffer;
    return { expiresAt: stored.expiresAt, buffer: { entries, ids: new Set(entries.map((e) => e.id)), first_at, last_at } };
  }
  return { expiresAt: stored.expiresAt, value: stored.value };
}

export class DurableKeyValueStorage extends MemoryKeyValueStorage {
  /** Latest change per key since the last flush: the slot to write, or null to delete. */
  private pending = new Map<string, Slot | null>();
  private writing: Promise<void> = Promise.resolve();
  private loading = false;

  constructor(private readonly knex: Knex) {
    super();
  }

  /** Reads every live row into memory and deletes the expired ones. */
  async load(now = Date.now()): Promise<number> {
    await this.knex(TABLE).where('expires_at', '<=', now).delete();
    const rows = (await this.knex(TABLE).select('key', 'slot')) as Array<{ key: string; slot: string }>;
    this.loading = true;
    try {
      for (const row of rows) super.set(row.key, fromStored(JSON.parse(row.slot) as StoredSlot));
    } finally {
      this.loading = false;
    }
    return rows.length;
  }

  override set(key: string, slot: Slot): void {
    super.set(key, slot);
    if (!this.loading) this.pending.set(key, slot);
  }

  override delete(key: string): boolean {
    const live = super.delete(key);
    this.pending.set(key, null);
    return live;
  }

  override async flush(): Promise<void> {
    if (this.pending.size > 0) {
      const batch = this.pending;
      this.pending = new Map();
      // Serialised now (the slot may change after), written in order after earlier flushes.
      const writes = [...batch].map(([key, slot]) => ({
        key,
        stored: slot ? JSON.stringify(toStored(slot)) : null,
        expiresAt: slot?.expiresAt ?? 0,
      }));
      // A failed earlier batch was reported to its own caller; it does not block this one.
      this.writing = this.writing
        .catch(() => undefined)
        .then(() =>
          this.knex.transaction(async (trx) => {
            for (const w of writes) {
              if (w.stored === null) await trx(TABLE).where({ key: w.key }).delete();
              else
                await trx(TABLE)
                  .insert({ key: w.key, slot: w.stored, expires_at: w.expiresAt })
                  .onConflict('key')
                  .merge(['slot', 'expires_at']);
            }
          }),
        );
    }
    await this.writing;
  }
}
