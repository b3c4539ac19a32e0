// The clinic's people (CONTRACT.md §13).
//   usuarios                     console accounts: `email` unique (stored lowercase), `nome`, `papel`
//                                admin | equipe | hunter (checked by the code), `senha_hash` (the
//                                memory-hard hash of console/server/passwords.ts, never the password),
//                                `clinica_ids` JSON text (an array of clinic ids; ignored for admin),
//                                `desativado_at` null while the account is active.
//   auditoria                    one row per action of a person (or of the admin token: `usuario_id`
//                                null): `acao`, `clinica_id`, `lead_id` (no foreign keys: a lead's or
//                                an account's erasure keeps its rows), `detalhes` JSON text without
//                                message texts or phones.
//   mensagens                    the transcript people read: one row per WhatsApp message in or out
//                                and per event (see §13 for the columns). `chave` (an addition, like
//                                wf_chat_histories.evento) names what recorded the row (`in:<message
//                                id>`, an outbound send's id and paragraph, an event's execution and
//                                step) so a replay or a take-over records it once: unique per
//                                (clinica_id, chave), NULLs never collide. Deleted with its lead.
//   wf_chat_histories.autor      the name of the person who wrote an `operator` row.
// Backfill: every memory row of a known lead is copied into `mensagens` (lead rows as `entrada` by
// the lead, agent rows as `saida` by the agent, operator rows as `saida` by the clinic's people), so
// conversations from before this migration do not appear empty. A burst kept as one memory row stays
// one message: the individual messages were never stored.
import type { Knex } from 'knex';
import { isPostgres, nowDefault, timestamp } from './dialect.js';

/** Name of the unique index on mensagens (clinica_id, chave). */
export const MESSAGE_KEY_INDEX = 'mensagens_clinica_chave_unique';
/** Name of the index reading a lead's transcript in time order. */
export const LEAD_TRANSCRIPT_INDEX = 'mensagens_lead_created_index';
/** Name of the index finding a message by the provider's id (delivery statuses). */
export const PROVIDER_MESSAGE_INDEX = 'mensagens_provider_message_index';

/** Creates usuarios, auditoria and mensagens, adds wf_chat_histories.autor, and backfills mensagens. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usuarios', (t) => {
    t.increments('id');
    t.string('email', 254).notNullable().unique();
    t.text('nome').notNullable();
    t.string('papel', 16).notNullable();
    t.text('senha_hash').notNullable();
    t.text('clinica_ids').notNullable().defaultTo('[]');
    timestamp(t, 'desativado_at');
    timestamp(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
  });
  await knex.schema.createTable('auditoria', (t) => {
    t.increments('id');
    t.integer('usuario_id');
    t.string('acao', 64).notNullable();
    t.integer('clinica_id');
    t.integer('lead_id');
    t.text('detalhes').notNullable().defaultTo('{}');
    timestamp(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
    t.index(['lead_id', 'created_at']);
    t.index(['created_at']);
  });
  await knex.schema.createTable('mensagens', (t) => {
    t.increments('id');
    t.integer('clinica_id').notNullable().references('id').inTable('clinicas_com_atendentes').onDelete('CASCADE');
    t.integer('lead_id').notNullable().references('id').inTable('leads').onDelete('CASCADE');
    t.string('direcao', 8).notNullable();
    t.string('autor', 8).notNullable();
    t.text('autor_nome');
    t.string('tipo', 12).notNullable();
    t.text('conteudo').notNullable().defaultTo('');
    t.text('provider_message_id');
    t.string('status', 8);
    t.text('chave');
    timestamp(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
    t.unique(['clinica_id', 'chave'], { indexName: MESSAGE_KEY_INDEX });
    t.index(['lead_id', 'created_at'], LEAD_TRANSCRIPT_INDEX);
    t.index(['provider_message_id'], PROVIDER_MESSAGE_INDEX);
  });
  await knex.schema.alterTable('wf_chat_histories', (t) => {
    t.text('autor');
  });
  await backfill(knex);
}

/** Copies every memory row of a known lead into mensagens (see the file comment). */
async function backfill(knex: Knex): Promise<void> {
  const key = isPostgres(knex) ? "'memoria:' || h.id::text" : "'memoria:' || h.id";
  await knex.raw(
    `insert into mensagens (clinica_id, lead_id, direcao, autor, autor_nome, tipo, conteudo, chave, created_at)
     select l.clinica_id, l.id,
            case when h.type = 'lead' then 'entrada' else 'saida' end,
            case when h.type = 'lead' then 'lead' when h.type = 'operator' then 'equipe' else 'agente' end,
            null, 'texto', coalesce(h.content, ''), ${key}, h.created_at
       from wf_chat_histories h
       join leads l on l.clinica_id = h.clinica_id and l.remotejid = h.session_id
      where h.type in ('lead', 'agent', 'operator')
      order by h.id`,
  );
}

/** Drops the three tables and the column (plain `ALTER TABLE … DROP COLUMN`, see 013). */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mensagens');
  await knex.schema.dropTableIfExists('auditoria');
  await knex.schema.dropTableIfExists('usuarios');
  await knex.raw('alter table ?? drop column ??', ['wf_chat_histories', 'autor']);
}
