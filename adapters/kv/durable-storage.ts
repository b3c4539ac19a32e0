// The embedded mode's key-value data, kept in memory (MemoryKeyValue's semantics and atomicity) and
// written through to the database table `kv_slots` (migration 004), so a crash or restart of the
// one process loses no message buffer, dedupe mark or lock. Contract:
//   - `load()` once before use: every live row comes back; expired rows are deleted.
//   - every change is queued; MemoryKeyValue awaits `flush()` before a write resolves, so what a
//     node was told is on disk. Writes go out in order: a flush of one change is one statement
//     (atomic on its own: no BEGIN/COMMIT around it), a flush of several is one transaction.
//   - one process per database (as the embedded mode is): nothing re-reads rows written by another.
import type { Knex } from 'knex';
import { StatementCache } from '../db/compiled-statements.js';
import { runStatement } from '../db/run-statement.js';
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

/** One slot's row: written (`stored`, the slot as JSON) or deleted (`stored` null). */
interface SlotWrite {
  key: string;
  stored: string | null;
  expiresAt: number;
}

/**
 * The upsert of one slot, the same text on SQLite and PostgreSQL (both have `ON CONFLICT … DO
 * UPDATE`), compiled once (SlotStatements): no query builder per write, and one prepared statement on SQLite.
 */
const UPSERT = `insert into "${TABLE}" ("key", "slot", "expires_at") values (?, ?, ?) on conflict ("key") do update set "slot" = excluded."slot", "expires_at" = excluded."expires_at"`;
const DELETE = `delete from "${TABLE}" where "key" = ?`;

/** The two statements, compiled once per storage (run-statement.ts: no knex runner per write). */
class SlotStatements {
  private readonly cache = new StatementCache(2);

  /** Writes `w` on `knex` (the storage's, or a transaction). */
  async write(knex: Knex | Knex.Transaction, w: SlotWrite): Promise<void> {
    if (w.stored === null)
      await runStatement(
        knex,
        this.cache.get('kv delete', (v) => knex.raw(DELETE, [v(0)])),
        [w.key],
      );
    else
      await runStatement(
        knex,
        this.cache.get('kv upsert', (v) => knex.raw(UPSERT, [v(0), v(1), v(2)])),
        [w.key, w.stored, w.expiresAt],
      );
  }
}

/**
 * MemoryKeyValue's storage written through to `kv_slots`, as the file comment describes: `load()` once
 * before use, `flush()` before a write resolves.
 */
export class DurableKeyValueStorage extends MemoryKeyValueStorage {
  /** Latest change per key since the last flush: the slot to write, or null to delete. */
  private pending = new Map<string, Slot | null>();
  private writing: Promise<void> = Promise.resolve();
  private loading = false;
  private readonly statements = new SlotStatements();

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
      const writes: SlotWrite[] = [...batch].map(([key, slot]) => ({
        key,
        stored: slot ? JSON.stringify(toStored(slot)) : null,
        expiresAt: slot?.expiresAt ?? 0,
      }));
      // A failed earlier batch was reported to its own caller; it does not block this one.
      this.writing = this.writing
        .catch(() => undefined)
        .then(() =>
          writes.length === 1
            ? this.statements.write(this.knex, writes[0]!)
            : this.knex.transaction(async (trx) => {
                for (const w of writes) await this.statements.write(trx, w);
              }),
        );
    }
    await this.writing;
  }
}
