// The tables of CONTRACT.md §3, with their exact column names. Phones are digits only; booleans
// default false; `respostas` is JSON; a lead is unique per (clinica_id, remotejid).
import type { Knex } from 'knex';
import { nowDefault, timestamp } from './dialect.js';

/** Creates the five contract tables, parents first (each function below is one table). */
export async function up(knex: Knex): Promise<void> {
  await createClinics(knex);
  await createProtocols(knex);
  await createInstances(knex);
  await createLeads(knex);
  await createChatHistories(knex);
}

/** Clinics: name (unique, `leadflow seed` matches by it), address, positioning, the Hunter, the admin numbers. */
async function createClinics(knex: Knex): Promise<void> {
  await knex.schema.createTable('clinicas_com_atendentes', (t) => {
    t.increments('id');
    t.text('nome').notNullable();
    t.text('endereco');
    t.text('posicionamento');
    t.text('hunter_nome');
    t.text('hunter_telefone');
    // Comma-separated digits, may be empty.
    t.text('admin_telefones').notNullable().defaultTo('');
    // `leadflow seed` matches a clinic by its name.
    t.unique(['nome']);
  });
}

/** A clinic's protocols (treatments offered): name unique per clinic, description, price as shown to leads. */
async function createProtocols(knex: Knex): Promise<void> {
  await knex.schema.createTable('protocolos', (t) => {
    t.increments('id');
    t.integer('clinica_id').notNullable().references('id').inTable('clinicas_com_atendentes').onDelete('CASCADE');
    t.text('nome').notNullable();
    t.text('descricao');
    // Text as shown to leads, e.g. "R$ 1.500 à vista".
    t.text('preco');
    t.unique(['clinica_id', 'nome']);
  });
}

/** A clinic's WhatsApp instances: server URL and token (inbound events are looked up by token). */
async function createInstances(knex: Knex): Promise<void> {
  await knex.schema.createTable('instancias_whatsapp', (t) => {
    t.increments('id');
    t.integer('clinica_id').notNullable().references('id').inTable('clinicas_com_atendentes').onDelete('CASCADE');
    t.text('nome').notNullable();
    t.text('server_url').notNullable();
    t.text('token').notNullable();
    t.unique(['clinica_id', 'nome']);
    // Inbound gateway events are authenticated by their instance token.
    t.index(['token']);
  });
}

/** Leads: one per (clinica_id, remotejid), with the form answers and the handoff flags. */
async function createLeads(knex: Knex): Promise<void> {
  await knex.schema.createTable('leads', (t) => {
    t.increments('id');
    t.text('remotejid').notNullable();
    t.integer('clinica_id').notNullable().references('id').inTable('clinicas_com_atendentes').onDelete('CASCADE');
    t.integer('instancia_id').references('id').inTable('instancias_whatsapp').onDelete('SET NULL');
    t.text('nome');
    t.text('telefone');
    t.text('orcamento');
    t.json('respostas');
    t.boolean('transferido').notNullable().defaultTo(false);
    t.boolean('handoff_enviado').notNullable().defaultTo(false);
    timestamp(t, 'handoff_at');
    t.text('ultima_mensagem');
    timestamp(t, 'ultima_mensagem_at');
    timestamp(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
    timestamp(t, 'updated_at').notNullable().defaultTo(nowDefault(knex));
    t.unique(['clinica_id', 'remotejid']);
    // Handoff looks a phone up across clinics.
    t.index(['remotejid']);
  });
}

/** The agent's memory: one row per message, per (clinica_id, session_id). */
async function createChatHistories(knex: Knex): Promise<void> {
  await knex.schema.createTable('wf_chat_histories', (t) => {
    t.increments('id');
    // The lead's remotejid; memory is per (clinica_id, session_id).
    t.text('session_id').notNullable();
    t.integer('clinica_id').notNullable();
    // `lead` or `agent`.
    t.text('type').notNullable();
    t.text('content').notNullable();
    timestamp(t, 'created_at').notNullable().defaultTo(nowDefault(knex));
    t.index(['clinica_id', 'session_id', 'id']);
  });
}

/** Drops the five contract tables, children first. */
export async function down(knex: Knex): Promise<void> {
  for (const table of ['wf_chat_histories', 'leads', 'instancias_whatsapp', 'protocolos', 'clinicas_com_atendentes']) {
    await knex.schema.dropTableIfExists(table);
  }
}
