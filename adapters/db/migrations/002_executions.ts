// The engine's execution records (engine/types.ts ExecutionRecord). Queried columns are real columns;
// the rest is JSON text, stored verbatim so a record reads back exactly as written (including a JSON
// `null` output, which is not the same as no output). `seq` orders records created in the same
// millisecond by insertion; `id` (a UUID made by the engine) is the key callers use.
import type { Knex } from 'knex';
import { timestamp } from './dialect.js';

/** Creates `executions` with its queried columns and indexes (see the file comment). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('executions', (t) => {
    t.increments('seq');
    t.string('id', 64).notNullable().unique();
    t.string('flow', 200).notNullable();
    t.string('status', 16).notNullable();
    // Milliseconds since the epoch; set while waiting on a timer.
    t.bigInteger('wake_at');
    t.string('parent_id', 64);
    t.boolean('dry_run').notNullable().defaultTo(false);
    timestamp(t, 'created_at').notNullable();
    timestamp(t, 'updated_at').notNullable();
    timestamp(t, 'finished_at');
    for (const column of ['trigger', 'vars', 'steps', 'outbound', 'response', 'output', 'error']) t.text(column);
    t.text('stop_reason');
    t.index(['status', 'wake_at']);
    t.index(['created_at']);
    t.index(['flow', 'created_at']);
    t.index(['parent_id']);
  });
}

/** Drops `executions`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('executions');
}
