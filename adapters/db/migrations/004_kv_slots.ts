// The key-value store of the embedded mode (no REDIS_URL), written through to the database so a
// crash or restart loses no message buffer, dedupe mark or lock (adapters/kv/durable-storage.ts).
// One row per live key: the slot as JSON text, and when it expires (ms since epoch).
import type { Knex } from 'knex';

/**
 * Creates `kv_slots`: one row per live key of the embedded key-value store, with its expiry (ms since
 * the epoch).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('kv_slots', (t) => {
    t.string('key', 1024).primary();
    t.text('slot').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
}

/** Drops `kv_slots`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('kv_slots');
}
