// Migrations: the contract's tables with exactly its columns (§3, §9, §11, §12), constraints enforced, identical on
// SQLite and PostgreSQL; re-running is a no-op and concurrent runs apply each migration once.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { DatabaseOptions } from '../../adapters/db/database.js';
import { MIGRATIONS_TABLE, migrationSource } from '../../adapters/db/migrations/index.js';
import { forEachDatabase, MIGRATION_NAMES, useFreshDatabase } from '../helpers/databases.js';
import { clinicWithInstance, columnsOf, tablesOf } from './support.js';

const CONTRACT_COLUMNS: Record<string, string[]> = {
  clinicas_com_atendentes: [
    'id',
    'nome',
    'endereco',
    'posicionamento',
    'hunter_nome',
    'hunter_telefone',
    'admin_telefones',
    'horario_atendimento',
    'agenda',
  ],
  protocolos: ['id', 'clinica_id', 'nome', 'descricao', 'preco'],
  instancias_whatsapp: [
    'id',
    'clinica_id',
    'nome',
    'server_url',
    'token',
    'provider',
    'external_id',
    'app_secret',
    'verify_token',
    'templates',
  ],
  leads: [
    'id',
    'remotejid',
    'clinica_id',
    'instancia_id',
    'nome',
    'telefone',
    'orcamento',
    'respostas',
    'transferido',
    'handoff_enviado',
    'handoff_at',
    'ultima_mensagem',
    'ultima_mensagem_at',
    'created_at',
    'updated_at',
    'pausado_ate',
    'optout_at',
    'sem_resposta_at',
  ],
  wf_chat_histories: ['id', 'session_id', 'clinica_id', 'type', 'content', 'created_at', 'evento', 'autor'],
  agendamentos: [
    'id',
    'clinica_id',
    'lead_id',
    'protocolo_id',
    'inicio',
    'fim',
    'status',
    'origem',
    'provider',
    'external_id',
    'created_at',
    'updated_at',
    // Migration 015: when its last reminder went.
    'lembrete_at',
  ],
  // §13 (migration 016).
  usuarios: ['id', 'email', 'nome', 'papel', 'senha_hash', 'clinica_ids', 'desativado_at', 'created_at'],
  auditoria: ['id', 'usuario_id', 'acao', 'clinica_id', 'lead_id', 'detalhes', 'created_at'],
  // `chave` is LeadFlow's own addition: what recorded the row, so it is recorded once; so are
  // `midia_ref` and `midia_tipo` (migration 017): a received medium's gateway reference and type.
  mensagens: [
    'id',
    'clinica_id',
    'lead_id',
    'direcao',
    'autor',
    'autor_nome',
    'tipo',
    'conteudo',
    'provider_message_id',
    'status',
    'chave',
    'created_at',
    'midia_ref',
    'midia_tipo',
  ],
};

/** Runs test/db/fixtures/migrate-child.ts in its own node process; resolves with the names it applied. */
function migrateInChild(options: DatabaseOptions): Promise<string[]> {
  const script = join(import.meta.dirname, 'fixtures/migrate-child.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script],
      { env: { ...process.env, LEADFLOW_TEST_DB: JSON.stringify(options) }, timeout: 20_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as string[]);
      },
    );
  });
}

const EXECUTION_COLUMNS = [
  'seq',
  'id',
  'flow',
  'status',
  'wake_at',
  'parent_id',
  'dry_run',
  'created_at',
  'updated_at',
  'finished_at',
  'trigger',
  'vars',
  'steps',
  'outbound',
  'response',
  'output',
  'error',
  'stop_reason',
  'lease_owner',
  'lease_until',
  'flow_version',
  'concurrency_key',
  'replaced_by',
  'started_flows',
  'cancelled_flows',
  'cancelled_by',
];

forEachDatabase('migrations', (open) => {
  const t = useFreshDatabase(open);

  it('create the contract tables with exactly the contract columns, the executions table and the erasure ledger', async () => {
    const { db } = t.current;
    for (const [table, columns] of Object.entries(CONTRACT_COLUMNS)) {
      expect({ table, columns: await columnsOf(db, table) }).toEqual({ table, columns });
    }
    expect(await columnsOf(db, 'executions')).toEqual(EXECUTION_COLUMNS);
    expect(await columnsOf(db, 'execution_erasures')).toEqual(['id', 'erasure', 'eraser_id', 'execution_ids', 'created_at', 'expires_at']);
    expect(await columnsOf(db, 'flow_versions')).toEqual(['flow', 'version', 'source', 'created_at', 'used_at']);
    expect(await columnsOf(db, 'execution_journal')).toEqual(['seq', 'execution_id', 'entry']);
  });

  it('a second run applies nothing; a fresh database reports every migration applied', async () => {
    expect(await t.current.db.migrate()).toEqual([]);
    const fresh = await open({ migrate: false });
    try {
      expect(await fresh.db.migrate()).toEqual(MIGRATION_NAMES);
    } finally {
      await fresh.cleanup();
    }
  });

  it('migrations started by several processes at once apply each migration once', async () => {
    const fresh = await open({ migrate: false });
    try {
      const outputs = await Promise.all([1, 2, 3].map(() => migrateInChild(fresh.options)));
      expect(outputs.flat().sort()).toEqual(MIGRATION_NAMES);
      expect(await columnsOf(fresh.db, 'leads')).toEqual(CONTRACT_COLUMNS.leads);
      expect(await fresh.db.migrate()).toEqual([]);
    } finally {
      await fresh.cleanup();
    }
  });

  it('concurrent migrate() calls on one Database share the run', async () => {
    const fresh = await open({ migrate: false });
    try {
      const [a, b] = await Promise.all([fresh.db.migrate(), fresh.db.migrate()]);
      expect(a).toEqual(MIGRATION_NAMES);
      expect(b).toEqual(a);
    } finally {
      await fresh.cleanup();
    }
  });

  it('leads are unique per (clinica_id, remotejid); the same phone may be a lead of another clinic', async () => {
    const { db } = t.current;
    const a = await clinicWithInstance(db, 'A');
    const b = await clinicWithInstance(db, 'B');
    await db.knex('leads').insert({ clinica_id: a.clinicaId, remotejid: '5511987654321' });
    await expect(db.knex('leads').insert({ clinica_id: a.clinicaId, remotejid: '5511987654321' })).rejects.toThrow(/unique/i);
    await db.knex('leads').insert({ clinica_id: b.clinicaId, remotejid: '5511987654321' });
    expect(Number((await db.knex('leads').count({ n: '*' }).first())!.n)).toBe(2);
  });

  it('enforces foreign keys: no protocol, instance or lead of a missing clinic; deleting a clinic removes its rows', async () => {
    const { db } = t.current;
    await expect(db.knex('protocolos').insert({ clinica_id: 999, nome: 'x' })).rejects.toThrow(/foreign key/i);
    await expect(db.knex('instancias_whatsapp').insert({ clinica_id: 999, nome: 'x', server_url: 'http://x', token: 't' })).rejects.toThrow(
      /foreign key/i,
    );
    await expect(db.knex('leads').insert({ clinica_id: 999, remotejid: '5511' })).rejects.toThrow(/foreign key/i);
    const { clinicaId, instanciaId } = await clinicWithInstance(db);
    await db.knex('leads').insert({ clinica_id: clinicaId, instancia_id: instanciaId, remotejid: '5511987654321' });
    await db.knex('clinicas_com_atendentes').where({ id: clinicaId }).del();
    expect(await db.knex('leads').select()).toEqual([]);
    expect(await db.knex('instancias_whatsapp').select()).toEqual([]);
  });

  it('gives rows written by plain SQL the defaults: booleans false, admin_telefones empty, ISO timestamps of now', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const before = Date.now();
    await db.knex('leads').insert({ clinica_id: clinicaId, remotejid: '5511987654321' });
    const lead = (await db.get('leads', { remotejid: '5511987654321' }))!;
    expect(lead).toMatchObject({ transferido: false, handoff_enviado: false, handoff_at: null, respostas: null });
    expect(lead.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Math.abs(Date.parse(lead.created_at as string) - before)).toBeLessThan(5000);
    await db.knex('clinicas_com_atendentes').insert({ nome: 'Sem admins' });
    expect((await db.get('clinicas_com_atendentes', { nome: 'Sem admins' }))!.admin_telefones).toBe('');
  });

  it('009 conversation care: pausado_ate and optout_at read back as ISO timestamps like handoff_at, horario_atendimento as text', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const hours = '{"timezone":"America/Sao_Paulo","seg":"08:00-18:00"}';
    await db.update('clinicas_com_atendentes', { id: clinicaId }, { horario_atendimento: hours });
    expect((await db.get('clinicas_com_atendentes', { id: clinicaId }))!.horario_atendimento).toBe(hours);
    const lead = await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321' });
    expect(lead).toMatchObject({ pausado_ate: null, optout_at: null });
    const pausedUntil = Date.UTC(2025, 2, 14, 15, 30);
    await db.update(
      'leads',
      { id: lead.id },
      { pausado_ate: pausedUntil, optout_at: '2025-03-14T12:00:00-03:00', handoff_at: pausedUntil },
    );
    const row = (await db.get('leads', { id: lead.id }))!;
    expect(row).toMatchObject({
      pausado_ate: '2025-03-14T15:30:00.000Z',
      optout_at: '2025-03-14T15:00:00.000Z',
      handoff_at: '2025-03-14T15:30:00.000Z',
    });
    // Compared as timestamps, not text, on both dialects.
    expect(await db.find('leads', { where: { pausado_ate: { gt: '2025-03-14T15:00:00.000Z' } } })).toHaveLength(1);
    expect(await db.find('leads', { where: { pausado_ate: { gt: '2025-03-14T16:00:00.000Z' } } })).toHaveLength(0);
    await expect(db.update('leads', { id: lead.id }, { optout_at: 'ontem' })).rejects.toThrow(/leads\.optout_at expects a timestamp/);
  });

  it("013 unanswered: leads.sem_resposta_at reads back as an ISO timestamp; a chat row's evento is unique per lead, NULLs never collide", async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const lead = await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654322' });
    expect(lead.sem_resposta_at).toBeNull();
    await db.update('leads', { id: lead.id }, { sem_resposta_at: '2025-03-14T12:00:00-03:00' });
    expect((await db.get('leads', { id: lead.id }))!.sem_resposta_at).toBe('2025-03-14T15:00:00.000Z');
    const row = { session_id: '5511987654322', clinica_id: clinicaId, type: 'lead', content: 'Oi' };
    await db.insert('wf_chat_histories', row);
    await db.insert('wf_chat_histories', row);
    const keyed = { ...row, evento: 'input:3EB0A' };
    const first = await db.upsert('wf_chat_histories', keyed, { conflict: ['clinica_id', 'session_id', 'evento'], on_conflict: 'keep' });
    const again = await db.upsert(
      'wf_chat_histories',
      { ...keyed, content: 'Oi de novo' },
      { conflict: ['clinica_id', 'session_id', 'evento'], on_conflict: 'keep' },
    );
    expect([first.inserted, again.inserted, again.row.id, again.row.content]).toEqual([true, false, first.row.id, 'Oi']);
    await expect(db.insert('wf_chat_histories', keyed)).rejects.toThrow();
    // The same event of another lead is another row.
    expect(
      (
        await db.upsert(
          'wf_chat_histories',
          { ...keyed, session_id: '5511900000000' },
          { conflict: ['clinica_id', 'session_id', 'evento'] },
        )
      ).inserted,
    ).toBe(true);
    expect(await db.find('wf_chat_histories', { where: { clinica_id: clinicaId } })).toHaveLength(4);
  });

  it('011 gateway providers: an instance is uazapi by default; (provider, external_id) is unique, uazapi rows without one never collide', async () => {
    const { db } = t.current;
    const { clinicaId, instanciaId } = await clinicWithInstance(db);
    expect((await db.knex('instancias_whatsapp').where({ id: instanciaId }).first()) as Record<string, unknown>).toMatchObject({
      provider: 'uazapi',
      external_id: null,
      app_secret: null,
      verify_token: null,
      templates: null,
    });
    await db.knex('instancias_whatsapp').insert({ clinica_id: clinicaId, nome: 'segunda', server_url: 'http://x', token: 't2' });
    const evolution = { clinica_id: clinicaId, server_url: 'http://evo', token: 'k', provider: 'evolution', external_id: 'sorriso' };
    await db.knex('instancias_whatsapp').insert({ ...evolution, nome: 'evo' });
    await expect(db.knex('instancias_whatsapp').insert({ ...evolution, nome: 'evo-2' })).rejects.toThrow(/unique/i);
    // The same external_id under another provider is another instance.
    await db.knex('instancias_whatsapp').insert({ ...evolution, nome: 'cloud', provider: 'cloud' });
    expect(await db.find('instancias_whatsapp', { where: { provider: 'evolution', external_id: 'sorriso' } })).toHaveLength(1);
  });

  it('011 gateway providers rolls back (its columns gone, every row kept) and applies again', async () => {
    const { db } = t.current;
    const { clinicaId, instanciaId } = await clinicWithInstance(db);
    await db.insert('leads', { clinica_id: clinicaId, instancia_id: instanciaId, remotejid: '5511987654321' });
    await db.update('instancias_whatsapp', { id: instanciaId }, { provider: 'evolution', external_id: 'x' });
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    await db.knex.migrate.down({ ...config, name: '011_gateway_providers' });
    expect(await columnsOf(db, 'instancias_whatsapp')).toEqual(['id', 'clinica_id', 'nome', 'server_url', 'token']);
    expect((await db.knex('leads').first()) as Record<string, unknown>).toMatchObject({ instancia_id: instanciaId });
    expect(await db.migrate()).toEqual(['011_gateway_providers']);
    expect(await columnsOf(db, 'instancias_whatsapp')).toEqual(CONTRACT_COLUMNS.instancias_whatsapp);
    expect((await db.get('instancias_whatsapp', { id: instanciaId }))!.provider).toBe('uazapi');
  });

  it('013 booking: appointments go with their lead or clinic, lose a deleted protocol, and read back as ISO timestamps', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const protocol = await db.insert('protocolos', { clinica_id: clinicaId, nome: 'Lentes' });
    const lead = await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321' });
    const other = await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654322' });
    const row = await db.insert('agendamentos', {
      clinica_id: clinicaId,
      lead_id: lead.id,
      protocolo_id: protocol.id,
      inicio: '2026-12-02T14:30:00-03:00',
      fim: Date.UTC(2026, 11, 2, 18, 30),
      origem: 'agente',
    });
    expect(row).toMatchObject({
      status: 'marcado',
      provider: 'interno',
      external_id: null,
      inicio: '2026-12-02T17:30:00.000Z',
      fim: '2026-12-02T18:30:00.000Z',
    });
    await db.insert('agendamentos', {
      clinica_id: clinicaId,
      lead_id: other.id,
      inicio: Date.UTC(2026, 11, 3),
      fim: Date.UTC(2026, 11, 3, 1),
      origem: 'console',
    });
    await expect(
      db.knex('agendamentos').insert({ clinica_id: clinicaId, lead_id: 999, inicio: new Date(), fim: new Date(), origem: 'x' }),
    ).rejects.toThrow(/foreign key/i);
    await db.delete('protocolos', { id: protocol.id });
    expect((await db.get('agendamentos', { id: row.id }))!.protocolo_id).toBeNull();
    await db.delete('leads', { id: lead.id });
    expect((await db.find('agendamentos')).map((r) => r.lead_id)).toEqual([other.id]);
    await db.delete('clinicas_com_atendentes', { id: clinicaId });
    expect(await db.find('agendamentos')).toEqual([]);
  });

  it('014 booking rolls back (table and agenda gone, clinics kept) and applies again', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    await db.update('clinicas_com_atendentes', { id: clinicaId }, { agenda: '{"provider":"interno"}' });
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    // 015 adds to its table: rolled back first.
    await db.knex.migrate.down({ ...config, name: '015_reminders' });
    await db.knex.migrate.down({ ...config, name: '014_booking' });
    expect(await tablesOf(db)).not.toContain('agendamentos');
    expect(await columnsOf(db, 'clinicas_com_atendentes')).toEqual(CONTRACT_COLUMNS.clinicas_com_atendentes!.filter((c) => c !== 'agenda'));
    expect(Number((await db.knex('instancias_whatsapp').count({ n: '*' }).first())!.n)).toBe(1);
    expect(await db.migrate()).toEqual(['014_booking', '015_reminders']);
    expect(await columnsOf(db, 'agendamentos')).toEqual(CONTRACT_COLUMNS.agendamentos);
  });

  it('015 reminders rolls back (lembrete_at gone, appointments kept) and applies again; lembrete_at reads back as an ISO timestamp', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const lead = await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321' });
    const inicio = Date.parse('2026-12-02T17:30:00.000Z');
    const row = await db.insert('agendamentos', {
      clinica_id: clinicaId,
      lead_id: lead.id,
      inicio,
      fim: inicio + 3_600_000,
      origem: 'agente',
    });
    expect(row.lembrete_at).toBeNull();
    await db.update('agendamentos', { id: row.id }, { lembrete_at: inicio - 86_400_000 });
    expect((await db.get('agendamentos', { id: row.id }))!.lembrete_at).toBe('2026-12-01T17:30:00.000Z');
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    await db.knex.migrate.down({ ...config, name: '015_reminders' });
    expect(await columnsOf(db, 'agendamentos')).toEqual(CONTRACT_COLUMNS.agendamentos!.filter((c) => c !== 'lembrete_at'));
    expect(Number((await db.knex('agendamentos').count({ n: '*' }).first())!.n)).toBe(1);
    expect(await db.migrate()).toEqual(['015_reminders']);
    expect(await columnsOf(db, 'agendamentos')).toEqual(CONTRACT_COLUMNS.agendamentos);
    expect((await db.get('agendamentos', { id: row.id }))!.lembrete_at).toBeNull();
  });

  it("016 backfills the transcript from memory (a known lead's rows, in order, by their authors), rolls back and applies again", async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const lead = await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321' });
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    await db.knex.migrate.down({ ...config, name: '016_console_people' });
    expect(await tablesOf(db)).not.toContain('mensagens');
    const at = (s: number) => new Date(Date.UTC(2026, 10, 2, 12, 0, s)).toISOString();
    for (const [type, content, s] of [
      ['lead', 'Oi, quero saber das lentes', 1],
      ['agent', 'Olá! Que bom falar com você.', 2],
      ['operator', 'Aqui é a Ana, da recepção.', 3],
    ] as const) {
      await db.knex('wf_chat_histories').insert({ session_id: '5511987654321', clinica_id: clinicaId, type, content, created_at: at(s) });
    }
    // Memory of a number that is no lead: nothing to show it under.
    await db
      .knex('wf_chat_histories')
      .insert({ session_id: '5511900001111', clinica_id: clinicaId, type: 'lead', content: 'x', created_at: at(4) });
    expect(await db.migrate()).toEqual(['016_console_people']);
    const rows = await db.find('mensagens', { order_by: [{ column: 'id', direction: 'asc' }] });
    expect(rows.map((r) => [r.lead_id, r.direcao, r.autor, r.tipo, r.conteudo, r.created_at])).toEqual([
      [lead.id, 'entrada', 'lead', 'texto', 'Oi, quero saber das lentes', at(1)],
      [lead.id, 'saida', 'agente', 'texto', 'Olá! Que bom falar com você.', at(2)],
      [lead.id, 'saida', 'equipe', 'texto', 'Aqui é a Ana, da recepção.', at(3)],
    ]);
    expect(await columnsOf(db, 'wf_chat_histories')).toEqual(CONTRACT_COLUMNS.wf_chat_histories);
    // The transcript goes with its lead.
    await db.delete('leads', { id: lead.id });
    expect(await db.find('mensagens')).toEqual([]);
  });

  it('018: the parent and key indexes of executions hold only rows with a parent or a key, the lookups still use them; rolls back and applies again', async () => {
    const { db } = t.current;
    const sqlite = db.dialect === 'sqlite';
    /** The index's definition as the database keeps it, lower case. */
    const definition = async (name: string) => {
      const rows = sqlite
        ? await db.knex.raw('select sql as def from sqlite_master where name = ?', [name])
        : // This suite's schema only: the other suites' schemas have indexes of the same names.
          (await db.knex.raw('select indexdef as def from pg_indexes where schemaname = current_schema() and indexname = ?', [name])).rows;
      return String((rows as Array<{ def: string }>)[0]?.def ?? '').toLowerCase();
    };
    /** SQLite's plan of `sql`, every line, lower case. */
    const plan = async (sql: string) =>
      ((await db.knex.raw(`explain query plan ${sql}`)) as Array<{ detail: string }>).map((r) => r.detail.toLowerCase()).join('\n');
    const KEY = 'executions_flow_concurrency_key_status_index';
    const PARENT = 'executions_parent_id_index';
    expect(await definition(KEY)).toMatch(/where.*concurrency_key is not null/);
    expect(await definition(PARENT)).toMatch(/where.*parent_id is not null/);
    // SQLite's planner takes a lookup of a value as implying `IS NOT NULL` (PostgreSQL's does too, but
    // picks among its indexes by cost, which an empty table leaves to chance: not asserted there).
    if (sqlite) {
      expect(
        await plan(`select id from executions where flow = 'agent' and concurrency_key = 'k' and status in ('running', 'waiting')`),
      ).toContain(KEY);
      expect(await plan(`select id from executions where parent_id = 'p'`)).toContain(PARENT);
    }

    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    await db.knex.migrate.down({ ...config, name: '018_partial_execution_indexes' });
    expect(await definition(KEY)).not.toContain('where');
    expect(await definition(PARENT)).not.toContain('where');
    expect(await db.migrate()).toEqual(['018_partial_execution_indexes']);
    expect(await definition(KEY)).toMatch(/where.*concurrency_key is not null/);
  });

  it('009 conversation care rolls back (its columns gone, every row kept) and applies again', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    await db.insert('protocolos', { clinica_id: clinicaId, nome: 'Lentes' });
    await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321', pausado_ate: Date.now() });
    const config = { migrationSource, tableName: MIGRATIONS_TABLE };
    await db.knex.migrate.down({ ...config, name: '009_conversation_care' });
    expect(await columnsOf(db, 'leads')).toEqual(CONTRACT_COLUMNS.leads!.filter((c) => c !== 'pausado_ate' && c !== 'optout_at'));
    expect(await columnsOf(db, 'clinicas_com_atendentes')).not.toContain('horario_atendimento');
    expect(Number((await db.knex('leads').count({ n: '*' }).first())!.n)).toBe(1);
    expect(Number((await db.knex('protocolos').count({ n: '*' }).first())!.n)).toBe(1);
    expect(Number((await db.knex('instancias_whatsapp').count({ n: '*' }).first())!.n)).toBe(1);
    expect(await db.migrate()).toEqual(['009_conversation_care']);
    // Applied again after 013 and 014, its columns come last: the same columns, in another order.
    expect((await columnsOf(db, 'leads')).sort()).toEqual([...CONTRACT_COLUMNS.leads!].sort());
    expect((await columnsOf(db, 'clinicas_com_atendentes')).sort()).toEqual([...CONTRACT_COLUMNS.clinicas_com_atendentes!].sort());
    expect((await db.get('leads', { remotejid: '5511987654321' }))!.pausado_ate).toBeNull();
  });
});
