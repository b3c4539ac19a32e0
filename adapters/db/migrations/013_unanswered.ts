// No lead left in silence (issue 28). Two nullable columns, free under CONTRACT.md §3 and §9:
//   leads.sem_resposta_at        when LeadFlow sent the lead its fixed holding message because no AI
//                                provider could answer (flows/agent.yaml); null once someone answered
//                                (the agent's next reply, a person typing on the clinic's phone,
//                                `destrans`). Declared like `handoff_at`.
//   wf_chat_histories.evento     what recorded the row, when a flow names it (e.g. `input:<message
//                                id>`: the lead's burst of one agent run), so the same event is
//                                recorded once however often its execution runs (a replay, a
//                                take-over): unique per (clinica_id, session_id, evento), through
//                                db.upsert with `on_conflict: keep`. Null: no such key (NULLs never
//                                collide on SQLite nor PostgreSQL), as every row written before.
import type { Knex } from 'knex';
import { timestamp } from './dialect.js';

/** Name of the unique index on wf_chat_histories (clinica_id, session_id, evento). */
export const CHAT_EVENT_INDEX = 'wf_chat_histories_evento_unique';

/** Adds `leads.sem_resposta_at` and `wf_chat_histories.evento` with its unique index. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('leads', (t) => {
    timestamp(t, 'sem_resposta_at');
  });
  await knex.schema.alterTable('wf_chat_histories', (t) => {
    t.text('evento');
  });
  await knex.schema.alterTable('wf_chat_histories', (t) => {
    t.unique(['clinica_id', 'session_id', 'evento'], { indexName: CHAT_EVENT_INDEX });
  });
}

/**
 * Drops the index, then the columns with plain `ALTER TABLE … DROP COLUMN` (SQLite 3.35+ and
 * PostgreSQL): knex's SQLite dropColumn copies the table, and dropping the old one would cascade.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('wf_chat_histories', (t) => {
    t.dropUnique(['clinica_id', 'session_id', 'evento'], CHAT_EVENT_INDEX);
  });
  await knex.raw('alter table ?? drop column ??', ['wf_chat_histories', 'evento']);
  await knex.raw('alter table ?? drop column ??', ['leads', 'sem_resposta_at']);
}
