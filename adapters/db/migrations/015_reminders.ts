// Appointment reminders (CONTRACT.md §12; flows/reminders.yaml). One nullable column, free under §12
// ("more columns are free"):
//   agendamentos.lembrete_at  when the last reminder of the appointment was sent (UTC); null: none
//                             sent yet. From it until `inicio`, one of LEADFLOW_CONFIRM_WORDS from the
//                             lead confirms the appointment (flows/agent.yaml `confirmation`).
import type { Knex } from 'knex';
import { timestamp } from './dialect.js';

/** Adds `agendamentos.lembrete_at`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agendamentos', (t) => {
    timestamp(t, 'lembrete_at');
  });
}

/** Drops the column with plain `ALTER TABLE … DROP COLUMN` (SQLite 3.35+ and PostgreSQL). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table ?? drop column ??', ['agendamentos', 'lembrete_at']);
}
