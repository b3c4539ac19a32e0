// Pinned flow versions (CONTRACT.md §10): every execution records the version of its flow it runs
// on (`executions.flow_version`, the hex SHA-256 of the flow's YAML and the files it reads; null on
// executions recorded before versions), and `flow_versions` keeps the source of each version, so any
// process resumes an execution on its own version whatever flow file it has. `source` is JSON text
// (file name, YAML text, files read); `created_at` and `used_at` are ms since the epoch, `used_at`
// the last time a process confirmed it starts executions on it. A version no unfinished execution
// runs on, unused for a day, is pruned with the executions.
import type { Knex } from 'knex';

/** Adds `executions.flow_version` and creates `flow_versions` (see the file comment). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flow_versions', (t) => {
    t.string('flow', 200).notNullable();
    t.string('version', 64).notNullable();
    t.text('source').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('used_at').notNullable();
    t.primary(['flow', 'version']);
  });
  await knex.schema.alterTable('executions', (t) => {
    t.string('flow_version', 64);
    t.index(['flow_version']);
  });
}

/** Drops `flow_versions` and `executions.flow_version`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('executions', (t) => {
    t.dropIndex(['flow_version']);
    t.dropColumn('flow_version');
  });
  await knex.schema.dropTableIfExists('flow_versions');
}
