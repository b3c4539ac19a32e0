// Booking (CONTRACT.md §12).
//   clinicas_com_atendentes.agenda  text null: the clinic's calendar configuration as JSON text
//                                   (adapters/calendar/agenda-config.ts; written by `leadflow seed`).
//                                   Holds credentials (Google's private key, Cal.com's API key)
//   agendamentos                    one row per appointment: `inicio` and `fim` timestamps (UTC;
//                                   `fim` = `inicio` + `duracao_min`), `status` marcado | confirmado |
//                                   cancelado | compareceu | faltou, `origem` agente | console,
//                                   `provider` interno | google | calcom, `external_id` the provider's
//                                   event id or booking uid (null for interno). Statuses are checked by
//                                   the code (adapters/calendar/appointments.ts), not by the database.
// A clinic's or lead's deletion deletes its appointments (the erasure of `excluir` and the console);
// a protocol's leaves them without one. Indexes: (lead_id, status, inicio) finds a lead's upcoming
// appointment; (clinica_id, inicio) a clinic's appointments overlapping a span (`inicio` < its end;
// an appointment lasts at most a day, so its start bounds the scan).
import type { Knex } from 'knex';
import { nowDefault, timestamp } from './dialect.js';

/** Name of the index finding a lead's upcoming appointment. */
export const LEAD_UPCOMING_INDEX = 'agendamentos_lead_status_inicio_index';
/** Name of the index finding a clinic's appointments in a span. */
export const CLINIC_SPAN_INDEX = 'agendamentos_clinica_inicio_index';

/** Adds `clinicas_com_atendentes.agenda` and creates `agendamentos` with its two indexes. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('clinicas_com_atendentes', (t) => {
    t.text('agenda');
  });
  await knex.schema.createTable('agendamentos', (t) => {
    t.increments('id');
    t.integer('clinica_id').notNullable().references('id').inTable('clinicas_com_atendentes').onDelete('CASCADE');
    t.integer('lead_id').notNullable().references('id').inTable('leads').onDelete('CASCADE');
    t.integer('protocolo_id').references('id').inTable('protocolos').onDelete('SET NULL');
    timestamp(t, 'inicio').notNullable();
    timestamp(t, 'fim').notNullable();
    t.string('status', 16).notNullable().defaultTo('marcado');
    t.string('origem', 16).notNullable();
    t.string('provider', 16).notNullable().defaultTo('interno');
    t.text('external_id');
    timestamp(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
    timestamp(t, 'updated_at').notNullable().defaultTo(nowDefault(knex));
    t.index(['lead_id', 'status', 'inicio'], LEAD_UPCOMING_INDEX);
    t.index(['clinica_id', 'inicio'], CLINIC_SPAN_INDEX);
  });
}

/**
 * Drops `agendamentos`, then the column with plain `ALTER TABLE … DROP COLUMN` (knex's SQLite
 * dropColumn copies the clinics table, and dropping the old one would cascade-delete its rows).
 */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('agendamentos');
  await knex.raw('alter table ?? drop column ??', ['clinicas_com_atendentes', 'agenda']);
}
