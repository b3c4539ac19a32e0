// The transcript's media (issue 30): two nullable columns on `mensagens`, LeadFlow's own additions
// like `chave` (CONTRACT §13 lets a table carry more columns):
//   mensagens.midia_ref   the gateway's reference of a received medium, as gateway.parse gave it
//                         (uazapi and Evolution: the message id; Cloud API: the media id): what the
//                         console's GET /admin/leads/:id/messages/:mid/media downloads again through
//                         the lead's instance. May name provider URLs or keys: never sent to a browser.
//   mensagens.midia_tipo  its MIME type as the provider reported it (e.g. `audio/ogg; codecs=opus`).
// Both null for every other row (texts, events, sends, and media recorded before this migration).
import type { Knex } from 'knex';

/** Adds `mensagens.midia_ref` and `mensagens.midia_tipo`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mensagens', (t) => {
    t.text('midia_ref');
    t.text('midia_tipo');
  });
}

/** Drops both columns with plain `ALTER TABLE … DROP COLUMN` (SQLite 3.35+ and PostgreSQL). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table ?? drop column ??', ['mensagens', 'midia_tipo']);
  await knex.raw('alter table ?? drop column ??', ['mensagens', 'midia_ref']);
}
