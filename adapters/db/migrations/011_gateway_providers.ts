// Gateways beside uazapi (CONTRACT.md §11): each WhatsApp instance names its provider.
//   provider      text, not null, default `uazapi`: `uazapi`, `evolution` or `cloud` (checked by
//                 `leadflow seed`, adapters/db/seed-schema.ts; not by the database)
//   external_id   the instance as the provider names it: Evolution's instance name, Cloud's phone
//                 number id; null for uazapi (its events carry the instance token instead)
//   app_secret    Cloud: the app secret that signs webhooks; Evolution: the webhook's `jwt_key`. A credential
//   verify_token  Cloud: the token of the webhook verification GET. A credential
//   templates     Cloud: JSON text naming the approved templates ({"primeiro_contato": {"name",
//                 "language"}, "alerta_hunter": {…}, "follow_up": {…}}); null otherwise
// Inbound events find their instance by (provider, external_id): unique, so an event names at most
// one instance (uazapi rows keep external_id null; NULLs never collide on SQLite nor PostgreSQL).
import type { Knex } from 'knex';

/** Name of the unique index on (provider, external_id). */
export const PROVIDER_EXTERNAL_ID_INDEX = 'instancias_whatsapp_provider_external_id_unique';

/**
 * Adds the gateway provider columns of `instancias_whatsapp` (see the file comment); existing
 * instances become uazapi's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instancias_whatsapp', (t) => {
    t.text('provider').notNullable().defaultTo('uazapi');
    t.text('external_id');
    t.text('app_secret');
    t.text('verify_token');
    t.text('templates');
  });
  await knex.schema.alterTable('instancias_whatsapp', (t) => {
    t.unique(['provider', 'external_id'], { indexName: PROVIDER_EXTERNAL_ID_INDEX });
  });
}

/**
 * Drops the index, then the columns with plain `ALTER TABLE … DROP COLUMN` (SQLite 3.35+ and
 * PostgreSQL): knex's SQLite dropColumn copies the table, and dropping the old one would
 * cascade-delete every lead's instance link while foreign keys are on.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instancias_whatsapp', (t) => {
    t.dropUnique(['provider', 'external_id'], PROVIDER_EXTERNAL_ID_INDEX);
  });
  for (const column of ['templates', 'verify_token', 'app_secret', 'external_id', 'provider'])
    await knex.raw('alter table ?? drop column ??', ['instancias_whatsapp', column]);
}
