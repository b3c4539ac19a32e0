// Leases on running executions, so several processes can share the executions table (queue mode):
// the process driving an execution holds it until `lease_until` (ms since epoch) and renews it while
// it runs; once the lease has passed (the holder died), another process may take the execution over
// and resume it from its recorded steps. Null lease on a running row: written before leases existed
// or by a process that never took one — taken over like an expired one.
import type { Knex } from 'knex';

/** Adds `executions.lease_owner` (the holding process) and `lease_until` (ms since the epoch; null: no lease). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('executions', (t) => {
    t.string('lease_owner', 200);
    t.bigInteger('lease_until');
  });
}

/** Drops the lease columns. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('executions', (t) => {
    t.dropColumn('lease_owner');
    t.dropColumn('lease_until');
  });
}
