// The erasure ledger (`excluir`, data protection; engine/store/erasing-store.ts), shared by every
// process on the database: one row per erasure whose executions have not all ended yet. `erasure`
// is the Erasure as JSON text (it holds the person's data: the row is deleted as soon as every
// execution of `execution_ids` has a final status, and at `expires_at` at the latest);
// `execution_ids` is a JSON array of the erasing execution (`eraser_id`) and the person's
// executions that were running or waiting when it erased. Times are ms since the epoch.
import type { Knex } from 'knex';

/** Creates the erasure ledger `execution_erasures` (see the file comment). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('execution_erasures', (t) => {
    t.string('id', 64).primary();
    t.text('erasure').notNullable();
    t.string('eraser_id', 64).notNullable();
    t.text('execution_ids').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
}

/** Drops `execution_erasures`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('execution_erasures');
}
