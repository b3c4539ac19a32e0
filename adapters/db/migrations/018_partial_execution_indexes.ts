// Two indexes of `executions` made partial (issue 31): the one on `parent_id` and the key's
// (`flow`, `concurrency_key`, `status`, migration 007) hold an entry only for an execution that has
// a parent, or a key. Most have neither (a webhook's, the agent's), and an index without an entry
// for a row costs nothing when the row is inserted or its status changes: on SQLite each index
// entry written is a B-tree page more in the transaction. Every query that reads them names the
// parent (`parent_id = ?`) or the key (`concurrency_key = ?`), which implies the index's condition,
// so SQLite and PostgreSQL still use them (test/db/schema.test.ts). Same names as before.
import type { Knex } from 'knex';

const PARENT_INDEX = 'executions_parent_id_index';
const KEY_INDEX = 'executions_flow_concurrency_key_status_index';

/** Recreates both indexes with `WHERE … IS NOT NULL`. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`drop index if exists ${PARENT_INDEX}`);
  await knex.raw(`create index ${PARENT_INDEX} on executions (parent_id) where parent_id is not null`);
  await knex.raw(`drop index if exists ${KEY_INDEX}`);
  await knex.raw(`create index ${KEY_INDEX} on executions (flow, concurrency_key, status) where concurrency_key is not null`);
}

/** Recreates both as full indexes, as migrations 002 and 007 made them. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop index if exists ${PARENT_INDEX}`);
  await knex.raw(`create index ${PARENT_INDEX} on executions (parent_id)`);
  await knex.raw(`drop index if exists ${KEY_INDEX}`);
  await knex.raw(`create index ${KEY_INDEX} on executions (flow, concurrency_key, status)`);
}
