// Keys of executions (flow `concurrency:`, flow.start and flow.cancel): at most one execution of a
// flow per key is running or waiting. `concurrency_key` is the key (null: none), looked up with the
// flow and status when a start replaces or a step cancels; `replaced_by` names the execution whose
// start cancelled this one. `started_flows` / `cancelled_flows` are JSON text: the starts and cancels
// the execution's steps made (null: none), like `outbound`.
import type { Knex } from 'knex';

/**
 * Adds the execution key columns (`concurrency_key`, `replaced_by`, `started_flows`,
 * `cancelled_flows`) and the key's index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('executions', (t) => {
    t.string('concurrency_key', 500);
    t.string('replaced_by', 64);
    t.text('started_flows');
    t.text('cancelled_flows');
    t.index(['flow', 'concurrency_key', 'status']);
  });
}

/** Drops the execution key columns and their index. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('executions', (t) => {
    t.dropIndex(['flow', 'concurrency_key', 'status']);
    t.dropColumn('concurrency_key');
    t.dropColumn('replaced_by');
    t.dropColumn('started_flows');
    t.dropColumn('cancelled_flows');
  });
}
