// The execution journal (engine/store/journal.ts): one row per save of a drive in progress, JSON text
// of a JournalEntry, applied in `seq` order over the record's row when it is read. The drive's end
// writes the row whole and deletes its entries in the same statement, so rows here belong to drives in
// progress (or cut off by a crash, until taken over). No foreign key: entries of a deleted execution
// are deleted with it (prune).
//
// `executions.cancelled_by`: the execution whose flow.cancel step cancelled this one (null: cancelled
// otherwise, or not cancelled), so the step run again after a crash finds what it cancelled before.
import type { Knex } from 'knex';

/** Creates `execution_journal` and adds `executions.cancelled_by` (see the file comment). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('execution_journal', (t) => {
    t.increments('seq');
    t.string('execution_id', 64).notNullable();
    t.text('entry').notNullable();
    t.index(['execution_id', 'seq']);
  });
  await knex.schema.alterTable('executions', (t) => {
    t.string('cancelled_by', 64);
  });
}

/** Drops `execution_journal` and `executions.cancelled_by`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('executions', (t) => {
    t.dropColumn('cancelled_by');
  });
  await knex.schema.dropTableIfExists('execution_journal');
}
