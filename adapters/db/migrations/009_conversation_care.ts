// Conversation care (CONTRACT.md §9). `leads.pausado_ate`: until when the agent stays silent for the
// lead after a person of the clinic wrote to it by hand (null: not paused). `leads.optout_at`: when
// the lead asked to get no more automatic messages (null: never, or cleared by a new form).
// `clinicas_com_atendentes.horario_atendimento`: the clinic's business hours as JSON text
// (adapters/hours/business-hours.ts; null: always open). Timestamps are declared like `handoff_at`.
import type { Knex } from 'knex';
import { timestamp } from './dialect.js';

/** Adds `leads.pausado_ate`, `leads.optout_at` and `clinicas_com_atendentes.horario_atendimento`, each nullable. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('leads', (t) => {
    timestamp(t, 'pausado_ate');
    timestamp(t, 'optout_at');
  });
  await knex.schema.alterTable('clinicas_com_atendentes', (t) => {
    t.text('horario_atendimento');
  });
}

/**
 * Drops the columns with plain `ALTER TABLE … DROP COLUMN` (SQLite 3.35+ and PostgreSQL): knex's
 * SQLite dropColumn copies the table into a new one, and dropping the old clinics table would
 * cascade-delete every protocol, instance and lead while foreign keys are on.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table ?? drop column ??', ['clinicas_com_atendentes', 'horario_atendimento']);
  await knex.raw('alter table ?? drop column ??', ['leads', 'pausado_ate']);
  await knex.raw('alter table ?? drop column ??', ['leads', 'optout_at']);
}
