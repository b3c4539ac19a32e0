// Small fixtures shared by the database suites.
import type { Database } from '../../adapters/db/database.js';

/** Column names of a table, in definition order, read from the catalog (PRAGMA / information_schema). */
export async function columnsOf(db: Database, table: string): Promise<string[]> {
  if (db.dialect === 'sqlite') {
    const rows = (await db.knex.raw(`pragma table_info(??)`, [table])) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  }
  const result = (await db.knex.raw(
    'select column_name from information_schema.columns where table_schema = current_schema() and table_name = ? order by ordinal_position',
    [table],
  )) as {
    rows: Array<{ column_name: string }>;
  };
  return result.rows.map((r) => r.column_name);
}

/** Inserts a clinic with an instance; returns their ids. */
export async function clinicWithInstance(db: Database, nome = 'Clínica Teste'): Promise<{ clinicaId: number; instanciaId: number }> {
  const clinic = await db.insert('clinicas_com_atendentes', { nome, hunter_nome: 'Ana', hunter_telefone: '5511900000001' });
  const instance = await db.insert('instancias_whatsapp', {
    clinica_id: clinic.id,
    nome: 'principal',
    server_url: 'http://127.0.0.1:8081',
    token: `tok-${nome}`,
  });
  return { clinicaId: clinic.id as number, instanciaId: instance.id as number };
}

/** Names of every table of the database (the migrations' bookkeeping tables too). */
export async function tablesOf(db: Database): Promise<string[]> {
  if (db.dialect === 'sqlite') {
    const rows = (await db.knex.raw(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
    )) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  }
  const result = (await db.knex.raw(
    "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name",
  )) as {
    rows: Array<{ table_name: string }>;
  };
  return result.rows.map((r) => r.table_name);
}

/** Every row of every table as text, one line per row (`table: {json}`): every column of every row, to search. */
export async function textOfEveryTable(db: Database): Promise<string> {
  const lines: string[] = [];
  for (const table of await tablesOf(db)) {
    for (const row of (await db.knex(table).select('*')) as Array<Record<string, unknown>>) lines.push(`${table}: ${JSON.stringify(row)}`);
  }
  return lines.join('\n');
}
