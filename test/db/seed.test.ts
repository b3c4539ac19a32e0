// Seeding clinics, protocols and instances: validated first, applied in one transaction, matched by
// name so a re-seed updates instead of duplicating; a bad file changes nothing and names every problem.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSeedFile, seedDatabase } from '../../adapters/db/seed.js';
import { formatSeedProblem, SeedValidationError } from '../../adapters/db/seed-validation-error.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';

const EXAMPLE = join(import.meta.dirname, '../../seed/example.yaml');
const tmp = mkdtempSync(join(tmpdir(), 'leadflow-seed-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
function file(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

interface SeedInput {
  clinicas: Array<{
    nome: string;
    endereco?: string;
    posicionamento?: string;
    hunter_nome?: string;
    hunter_telefone: string | number;
    admin_telefones?: string | Array<string | number>;
    horario_atendimento?: Record<string, string> | string | null;
    protocolos: Array<{ nome: string; descricao?: string; preco?: string | number }>;
    instancias?: Array<{
      nome: string;
      server_url: string;
      token: string;
      provider?: string;
      external_id?: string | null;
      app_secret?: string | null;
      verify_token?: string | null;
      templates?: Record<string, unknown> | string | null;
    }>;
  }>;
}

const SEED: SeedInput = {
  clinicas: [
    {
      nome: 'Clínica Sorriso',
      endereco: 'Rua A, 1',
      posicionamento: 'Implantes',
      hunter_nome: 'Mariana',
      hunter_telefone: '5511987654321',
      admin_telefones: ['5511912345678', 5511912345679],
      protocolos: [{ nome: 'Lentes', descricao: 'Lentes de porcelana', preco: 'R$ 1.200' }],
      instancias: [{ nome: 'Recepção', server_url: 'http://127.0.0.1:8081', token: 'tok-1' }],
    },
    {
      nome: 'Clínica Dois',
      hunter_telefone: 5521999998888,
      admin_telefones: ' 5521911112222 , 5521933334444 ',
      protocolos: [{ nome: 'Botox', preco: 900 }],
    },
  ],
};

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof SeedValidationError) return err.problems.map(formatSeedProblem);
    throw err;
  }
  throw new Error('expected a SeedValidationError');
}

describe('seed validation', () => {
  it('lists every problem of a YAML file with FILE:LINE:COL, path and message', () => {
    const path = file(
      'bad.yaml',
      `clinicas:
  - nome: Clínica A
    hunter_telefone: "+55 11 98765-4321"
    admin_telefones: "5511912345678, 12ab"
    cor: azul
    protocolos:
      - descricao: sem nome
      - nome: Lentes
        preco: [1]
      - nome: Lentes
    instancias:
      - nome: principal
        server_url: ftp://gateway
  - nome: Clínica A
    hunter_telefone: "5511987654321"
`,
    );
    expect(problemsOf(() => readSeedFile(path))).toEqual([
      `${path}:5:5 clinicas[0].cor: is not a known field`,
      `${path}:7:9 clinicas[0].protocolos[0].nome: is required`,
      `${path}:9:16 clinicas[0].protocolos[1].preco: must be string or number or null`,
      `${path}:12:9 clinicas[0].instancias[0].token: is required`,
      `${path}:13:21 clinicas[0].instancias[0].server_url: must be an http:// or https:// URL`,
      `${path}:3:22 clinicas[0].hunter_telefone: must be digits only, country code first (10 to 15 digits, e.g. 5511987654321), got "+55 11 98765-4321"`,
      `${path}:4:22 clinicas[0].admin_telefones: phones must be digits only, country code first (10 to 15 digits); not: 12ab`,
      `${path}:10:15 clinicas[0].protocolos[2].nome: protocol name "Lentes" appears twice (also clinicas[0].protocolos[1])`,
      `${path}:14:11 clinicas[1].nome: clinic name "Clínica A" appears twice (also clinicas[0])`,
    ]);
  });

  it('reports YAML syntax errors and a missing clinicas list with positions; JSON files are read too', () => {
    const syntax = file('syntax.yaml', 'clinicas:\n  - nome: "aberto\n');
    expect(problemsOf(() => readSeedFile(syntax))[0]).toMatch(
      new RegExp(`^${syntax.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+ \\(file\\): `),
    );
    expect(problemsOf(() => readSeedFile(file('empty.yaml', 'clinics: []\n')))).toEqual([
      expect.stringMatching(/empty\.yaml:1:1 clinicas: is required$/),
      expect.stringMatching(/empty\.yaml:1:1 clinics: is not a known field$/),
    ]);
    const json = file('seed.json', JSON.stringify({ clinicas: [{ nome: 'X', hunter_telefone: 'abc' }] }, null, 2));
    expect(problemsOf(() => readSeedFile(json))).toEqual([
      expect.stringMatching(/seed\.json:5:26 clinicas\[0\]\.hunter_telefone: must be digits only/),
    ]);
    expect(readSeedFile(file('ok.json', JSON.stringify(SEED)))).toEqual(SEED);
  });

  it('checks business hours with the hours parser, naming the clinic, at the day or time zone at fault', () => {
    const path = file(
      'hours.yaml',
      `clinicas:
  - nome: Clínica Horas
    hunter_telefone: "5511987654321"
    horario_atendimento:
      timezone: Mars/Olympus
      seg: "25:00-26:00"
      ter: "18:00-08:00"
      quarta: "08:00-12:00"
      sab: "08:00-12:00"
  - nome: Clínica Texto
    hunter_telefone: "5511987654322"
    horario_atendimento: '{"seg": "08:00-12:00,11:00-13:00"}'
  - nome: Clínica Lista
    hunter_telefone: "5511987654323"
    horario_atendimento: ["08:00-12:00"]
`,
    );
    expect(problemsOf(() => readSeedFile(path))).toEqual([
      `${path}:15:26 clinicas[2].horario_atendimento: must be object or string or null`,
      `${path}:8:15 clinicas[0].horario_atendimento.quarta: is not a day key (seg, ter, qua, qui, sex, sab, dom) nor timezone (clinic "Clínica Horas")`,
      `${path}:5:17 clinicas[0].horario_atendimento.timezone: "Mars/Olympus" is not an IANA time zone (e.g. "America/Sao_Paulo") (clinic "Clínica Horas")`,
      `${path}:6:12 clinicas[0].horario_atendimento.seg: "25:00-26:00": 25:00 is not a time between 00:00 and 24:00 (clinic "Clínica Horas")`,
      `${path}:7:12 clinicas[0].horario_atendimento.ter: "18:00-08:00": the end must be after the start (to open past midnight, end the day at 24:00 and start the next at 00:00) (clinic "Clínica Horas")`,
      `${path}:12:26 clinicas[1].horario_atendimento: seg: intervals "08:00-12:00" and "11:00-13:00" overlap (clinic "Clínica Texto")`,
    ]);
  });

  it('checks each agenda with the agenda parser, naming the clinic and the field, never printing a credential', () => {
    const path = file(
      'agenda.yaml',
      `clinicas:
  - nome: Clínica Google
    hunter_telefone: "5511987654321"
    agenda:
      provider: google
      duracao_min: 0
      google:
        service_account:
          client_email: agenda@x.iam.gserviceaccount.com
          private_key: "-----BEGIN PRIVATE KEY-----\\nTOPSECRETKEYMATERIAL\\n-----END PRIVATE KEY-----"
  - nome: Clínica Cal
    hunter_telefone: "5511987654322"
    agenda: '{"provider": "calcom", "calcom": {"api_key": "cal_live_TOPSECRET", "event_type_id": "abc"}}'
  - nome: Clínica Quebrada
    hunter_telefone: "5511987654323"
    agenda: '{"provider": "calcom", "calcom": {"api_key": "cal_live_TOPSECRET",'
  - nome: Clínica Lista
    hunter_telefone: "5511987654324"
    agenda: [interno]
`,
    );
    const problems = problemsOf(() => readSeedFile(path));
    expect(problems).toEqual([
      `${path}:19:13 clinicas[3].agenda: must be object or string or null`,
      `${path}:6:20 clinicas[0].agenda.duracao_min: must be an integer from 5 to 1440, got 0 (clinic "Clínica Google")`,
      `${path}:8:9 clinicas[0].agenda.google.calendar_id: is required (clinic "Clínica Google")`,
      `${path}:10:24 clinicas[0].agenda.google.service_account.private_key: is not a PEM private key (copy it from the key file as it is) (clinic "Clínica Google")`,
      `${path}:13:13 clinicas[1].agenda: calcom.event_type_id: must be a positive integer, got "abc" (clinic "Clínica Cal")`,
      `${path}:16:13 clinicas[2].agenda: is not JSON (like {"provider": "interno", "duracao_min": 60}) (clinic "Clínica Quebrada")`,
    ]);
    expect(problems.join('\n')).not.toContain('TOPSECRET');
  });

  it('checks each instance against its provider, naming the clinic and the instance', () => {
    const path = file(
      'providers.yaml',
      `clinicas:
  - nome: Clínica Gateways
    hunter_telefone: "5511987654321"
    instancias:
      - { nome: A, provider: waha, server_url: "http://a", token: t }
      - { nome: B, provider: evolution, server_url: "http://b", token: t }
      - { nome: C, provider: cloud, server_url: "https://graph.facebook.com/v23.0", token: t, external_id: "1065" }
      - nome: D
        provider: cloud
        server_url: https://graph.facebook.com/v23.0
        token: t
        external_id: "1066"
        app_secret: s
        templates:
          primeiro_contato: { name: Primeiro Contato, language: pt_BR }
          alerta_hunter: { name: alerta_hunter }
          handoff: { name: handoff, language: pt_BR }
          follow_up: { name: follow_up, language: portuguese, header: x }
      - { nome: E, server_url: "http://e", token: t, templates: { follow_up: { name: f, language: pt_BR } } }
      - { nome: F, provider: cloud, server_url: "https://g", token: t, external_id: "1066", app_secret: s, templates: "{nope" }
      - { nome: G, provider: [cloud], server_url: "http://g", token: t }
`,
    );
    expect(problemsOf(() => readSeedFile(path))).toEqual([
      `${path}:21:30 clinicas[0].instancias[6].provider: must be string`,
      `${path}:5:30 clinicas[0].instancias[0].provider: "waha" is not a provider (uazapi, evolution, cloud) (clinic "Clínica Gateways", instance "A")`,
      `${path}:6:9 clinicas[0].instancias[1].external_id: is required for evolution (Evolution's instance name) (clinic "Clínica Gateways", instance "B")`,
      `${path}:7:9 clinicas[0].instancias[2].app_secret: is required for cloud (the app secret that signs its webhooks) (clinic "Clínica Gateways", instance "C")`,
      `${path}:15:37 clinicas[0].instancias[3].templates.primeiro_contato.name: "Primeiro Contato" is not a template name (lower case letters, digits and _) (clinic "Clínica Gateways", instance "D")`,
      `${path}:16:26 clinicas[0].instancias[3].templates.alerta_hunter.language: is required (e.g. pt_BR) (clinic "Clínica Gateways", instance "D")`,
      `${path}:17:20 clinicas[0].instancias[3].templates.handoff: is not a template purpose (primeiro_contato, alerta_hunter, follow_up, lembrete_consulta) (clinic "Clínica Gateways", instance "D")`,
      `${path}:18:51 clinicas[0].instancias[3].templates.follow_up.language: "portuguese" is not a language code (e.g. pt_BR, en_US, es) (clinic "Clínica Gateways", instance "D")`,
      `${path}:18:71 clinicas[0].instancias[3].templates.follow_up.header: is not a known field (name, language, body, parameter_names) (clinic "Clínica Gateways", instance "D")`,
      `${path}:19:65 clinicas[0].instancias[4].templates: only cloud instances send templates (this one is uazapi) (clinic "Clínica Gateways", instance "E")`,
      `${path}:20:119 clinicas[0].instancias[5].templates: is not JSON (clinic "Clínica Gateways", instance "F")`,
      `${path}:20:85 clinicas[0].instancias[5].external_id: cloud external_id "1066" appears twice (also clinicas[0].instancias[3]) (clinic "Clínica Gateways", instance "F")`,
    ]);
  });

  it('the example seed file is valid, shows one instance of each provider and gives its clinic business hours', () => {
    const data = readSeedFile(EXAMPLE) as SeedInput;
    expect(data.clinicas[0]!.instancias![0]!.server_url).toBe('http://127.0.0.1:8081');
    expect(data.clinicas[0]!.instancias!.map((n) => n.provider)).toEqual(['uazapi', 'evolution', 'cloud']);
    expect(data.clinicas[0]!.horario_atendimento).toMatchObject({ timezone: 'America/Sao_Paulo', seg: '08:00-12:00,13:00-18:00', dom: '' });
  });
});

forEachDatabase('seedDatabase', (open) => {
  const t = useFreshDatabase(open);

  it('inserts clinics, protocols and instances, normalising phones and admin phones', async () => {
    const { db } = t.current;
    const report = await seedDatabase(db, SEED);
    expect(report.items.map((i) => [i.kind, i.nome, i.action])).toEqual([
      ['clinic', 'Clínica Sorriso', 'inserted'],
      ['protocol', 'Lentes', 'inserted'],
      ['instance', 'Recepção', 'inserted'],
      ['clinic', 'Clínica Dois', 'inserted'],
      ['protocol', 'Botox', 'inserted'],
    ]);
    expect(report).toMatchObject({ inserted: 5, updated: 0, unchanged: 0 });
    const clinics = await db.find('clinicas_com_atendentes');
    expect(clinics).toEqual([
      {
        id: report.items[0]!.id,
        nome: 'Clínica Sorriso',
        endereco: 'Rua A, 1',
        posicionamento: 'Implantes',
        hunter_nome: 'Mariana',
        hunter_telefone: '5511987654321',
        admin_telefones: '5511912345678,5511912345679',
        horario_atendimento: null,
        agenda: null,
      },
      {
        id: report.items[3]!.id,
        nome: 'Clínica Dois',
        endereco: null,
        posicionamento: null,
        hunter_nome: null,
        hunter_telefone: '5521999998888',
        admin_telefones: '5521911112222,5521933334444',
        horario_atendimento: null,
        agenda: null,
      },
    ]);
    expect(await db.find('protocolos')).toEqual([
      { id: expect.any(Number), clinica_id: clinics[0]!.id, nome: 'Lentes', descricao: 'Lentes de porcelana', preco: 'R$ 1.200' },
      { id: expect.any(Number), clinica_id: clinics[1]!.id, nome: 'Botox', descricao: null, preco: '900' },
    ]);
    expect(await db.find('instancias_whatsapp')).toEqual([
      {
        id: expect.any(Number),
        clinica_id: clinics[0]!.id,
        nome: 'Recepção',
        server_url: 'http://127.0.0.1:8081',
        token: 'tok-1',
        provider: 'uazapi',
        external_id: null,
        app_secret: null,
        verify_token: null,
        templates: null,
      },
    ]);
  });

  it('re-seeding updates changed rows by name, leaves the rest, adds new ones and never duplicates', async () => {
    const { db } = t.current;
    const first = await seedDatabase(db, SEED);
    const again = await seedDatabase(db, SEED);
    expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: 5 });
    expect(again.items.map((i) => i.id)).toEqual(first.items.map((i) => i.id));
    const changed = structuredClone(SEED);
    changed.clinicas[0]!.hunter_nome = 'Paula';
    changed.clinicas[0]!.protocolos[0]!.preco = 'R$ 1.500';
    changed.clinicas[0]!.protocolos.push({ nome: 'Clareamento', descricao: 'Caseiro', preco: 'R$ 600' });
    changed.clinicas[0]!.instancias![0]!.token = 'tok-2';
    const third = await seedDatabase(db, changed);
    expect(third.items.map((i) => [i.nome, i.action])).toEqual([
      ['Clínica Sorriso', 'updated'],
      ['Lentes', 'updated'],
      ['Clareamento', 'inserted'],
      ['Recepção', 'updated'],
      ['Clínica Dois', 'unchanged'],
      ['Botox', 'unchanged'],
    ]);
    expect(await db.find('clinicas_com_atendentes')).toHaveLength(2);
    expect(await db.find('protocolos')).toHaveLength(3);
    expect((await db.get('clinicas_com_atendentes', { nome: 'Clínica Sorriso' }))!.hunter_nome).toBe('Paula');
    expect((await db.get('instancias_whatsapp', { nome: 'Recepção' }))!.token).toBe('tok-2');
  });

  it('invalid data changes nothing and its error names each problem', async () => {
    const { db } = t.current;
    await seedDatabase(db, SEED);
    const bad = structuredClone(SEED) as unknown as { clinicas: Array<Record<string, unknown>> };
    bad.clinicas[0]!.hunter_nome = 'Mudou';
    bad.clinicas[1]!.hunter_telefone = '123';
    bad.clinicas.push({ nome: '  ' });
    const err = await seedDatabase(db, bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SeedValidationError);
    expect((err as SeedValidationError).problems.map(formatSeedProblem)).toEqual([
      'clinicas[2].hunter_telefone: is required',
      'clinicas[2].nome: must not be empty',
      'clinicas[1].hunter_telefone: must be digits only, country code first (10 to 15 digits, e.g. 5511987654321), got "123"',
    ]);
    expect((err as Error).message).toMatch(/invalid seed data \(3 problems\)/);
    expect((await db.get('clinicas_com_atendentes', { nome: 'Clínica Sorriso' }))!.hunter_nome).toBe('Mariana');
  });

  it('a database error midway rolls the whole seed back', async () => {
    const { db } = t.current;
    // The 4th write of the transaction fails (the second clinic, after the first one's rows).
    let writes = 0;
    const failing = Object.create(db) as typeof db;
    failing.transaction = (fn) =>
      db.transaction((tx) => {
        const wrapped = Object.create(tx) as typeof tx;
        wrapped.upsert = async (...args) => {
          if (++writes === 4) throw new Error('disk full');
          return tx.upsert(...args);
        };
        return fn(wrapped);
      });
    await expect(seedDatabase(failing, SEED)).rejects.toThrow('disk full');
    expect(writes).toBe(4);
    expect(await db.find('clinicas_com_atendentes')).toEqual([]);
    expect(await db.find('protocolos')).toEqual([]);
    expect(await db.find('instancias_whatsapp')).toEqual([]);
  });

  it('stores business hours as JSON text in their normal form; re-seeding the same hours changes nothing; null clears them', async () => {
    const { db } = t.current;
    const withHours = structuredClone(SEED);
    withHours.clinicas[0]!.horario_atendimento = {
      seg: '8:00-12:00, 12:00-18:00',
      sab: '08:00-12:00',
      dom: '',
      timezone: 'america/sao_paulo',
    };
    withHours.clinicas[1]!.horario_atendimento = '{"timezone": "America/New_York", "sex": "09:00-17:00"}';
    await seedDatabase(db, withHours);
    const stored = async (nome: string) => (await db.get('clinicas_com_atendentes', { nome }))!.horario_atendimento;
    expect(await stored('Clínica Sorriso')).toBe(
      '{"timezone":"America/Sao_Paulo","seg":"08:00-18:00","ter":"","qua":"","qui":"","sex":"","sab":"08:00-12:00","dom":""}',
    );
    expect(JSON.parse((await stored('Clínica Dois')) as string)).toMatchObject({
      timezone: 'America/New_York',
      sex: '09:00-17:00',
      seg: '',
    });

    const again = await seedDatabase(db, withHours);
    expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: 5 });
    // Absent: left as stored.
    expect((await seedDatabase(db, SEED)).updated).toBe(0);
    expect(await stored('Clínica Sorriso')).toMatch(/^\{"timezone":"America\/Sao_Paulo"/);
    // null: no hours (always open).
    const cleared = structuredClone(SEED);
    cleared.clinicas[0]!.horario_atendimento = null;
    const report = await seedDatabase(db, cleared);
    expect(report.items.find((i) => i.nome === 'Clínica Sorriso')!.action).toBe('updated');
    expect(await stored('Clínica Sorriso')).toBeNull();
  });

  it('stores the agenda as JSON text in its normal form; re-seeding the same is unchanged; absent keeps it, null clears it', async () => {
    const { db } = t.current;
    const withAgenda = structuredClone(SEED) as SeedInput & { clinicas: Array<{ agenda?: unknown }> };
    withAgenda.clinicas[0]!.agenda = { vagas: 2, horario: { seg: '08:00-12:00' } };
    withAgenda.clinicas[1]!.agenda = '{"provider": "calcom", "calcom": {"api_key": "cal_live_k", "event_type_id": "42"}}';
    await seedDatabase(db, withAgenda);
    const stored = async (nome: string) => (await db.get('clinicas_com_atendentes', { nome }))!.agenda;
    expect(JSON.parse((await stored('Clínica Sorriso')) as string)).toEqual({
      provider: 'interno',
      duracao_min: 60,
      intervalo_min: 30,
      antecedencia_min: 120,
      dias: 14,
      vagas: 2,
      horario: { timezone: 'America/Sao_Paulo', seg: '08:00-12:00', ter: '', qua: '', qui: '', sex: '', sab: '', dom: '' },
    });
    expect(JSON.parse((await stored('Clínica Dois')) as string)).toMatchObject({
      provider: 'calcom',
      calcom: { api_key: 'cal_live_k', event_type_id: 42, base_url: 'https://api.cal.com/v2' },
    });
    expect(await seedDatabase(db, withAgenda)).toMatchObject({ inserted: 0, updated: 0, unchanged: 5 });
    expect((await seedDatabase(db, SEED)).updated).toBe(0);
    expect(await stored('Clínica Dois')).toMatch(/calcom/);
    withAgenda.clinicas[1]!.agenda = null;
    const report = await seedDatabase(db, withAgenda);
    expect(report.items.find((i) => i.nome === 'Clínica Dois')!.action).toBe('updated');
    expect(await stored('Clínica Dois')).toBeNull();
  });

  it('bad business hours change nothing and name the clinic and the problem', async () => {
    const { db } = t.current;
    await seedDatabase(db, SEED);
    const bad = structuredClone(SEED);
    bad.clinicas[0]!.hunter_nome = 'Mudou';
    bad.clinicas[1]!.horario_atendimento = { seg: '08:00-12:00', sab: '25:00-26:00' };
    const err = await seedDatabase(db, bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SeedValidationError);
    expect((err as SeedValidationError).problems.map(formatSeedProblem)).toEqual([
      'clinicas[1].horario_atendimento.sab: "25:00-26:00": 25:00 is not a time between 00:00 and 24:00 (clinic "Clínica Dois")',
    ]);
    expect((await db.get('clinicas_com_atendentes', { nome: 'Clínica Sorriso' }))!.hunter_nome).toBe('Mariana');
    expect((await db.get('clinicas_com_atendentes', { nome: 'Clínica Dois' }))!.horario_atendimento).toBeNull();
  });

  it('stores every provider column; templates as JSON text in their normal form; re-seeding the same is unchanged', async () => {
    const { db } = t.current;
    const withProviders = structuredClone(SEED);
    withProviders.clinicas[1]!.instancias = [
      {
        nome: 'Comercial',
        provider: 'evolution',
        server_url: 'http://127.0.0.1:8082',
        token: 'evo-key',
        external_id: ' clinica-dois ',
        app_secret: 'jwt-key',
      },
      {
        nome: 'Oficial',
        provider: 'cloud',
        server_url: 'https://graph.facebook.com/v23.0',
        token: 'EAAG-token',
        external_id: '106540352242922',
        app_secret: 'app-secret',
        verify_token: 'verify-me',
        templates: {
          lembrete_consulta: { name: 'lembrete_consulta', language: 'pt_BR' },
          follow_up: { language: 'pt_BR', name: 'lembrete' },
          primeiro_contato: { name: 'boas_vindas', language: 'pt_BR' },
        },
      },
    ];
    await seedDatabase(db, withProviders);
    const row = async (nome: string) => (await db.get('instancias_whatsapp', { nome }))!;
    expect(await row('Recepção')).toMatchObject({
      provider: 'uazapi',
      external_id: null,
      app_secret: null,
      verify_token: null,
      templates: null,
    });
    expect(await row('Comercial')).toMatchObject({
      provider: 'evolution',
      external_id: 'clinica-dois',
      app_secret: 'jwt-key',
      verify_token: null,
      templates: null,
    });
    expect(await row('Oficial')).toMatchObject({
      provider: 'cloud',
      external_id: '106540352242922',
      app_secret: 'app-secret',
      verify_token: 'verify-me',
      templates:
        '{"primeiro_contato":{"name":"boas_vindas","language":"pt_BR"},"follow_up":{"name":"lembrete","language":"pt_BR"},"lembrete_consulta":{"name":"lembrete_consulta","language":"pt_BR"}}',
    });
    expect(await db.instanceById((await row('Oficial')).id as number)).toMatchObject({
      templates: {
        primeiro_contato: { name: 'boas_vindas', language: 'pt_BR' },
        follow_up: { name: 'lembrete', language: 'pt_BR' },
        lembrete_consulta: { name: 'lembrete_consulta', language: 'pt_BR' },
      },
    });
    expect(await seedDatabase(db, withProviders)).toMatchObject({ inserted: 0, updated: 0, unchanged: 7 });
    // Absent in the file: null (and uazapi) — the instance is what the file says.
    const plain = structuredClone(withProviders);
    plain.clinicas[1]!.instancias![0] = { nome: 'Comercial', server_url: 'http://127.0.0.1:8082', token: 'evo-key' };
    const report = await seedDatabase(db, plain);
    expect(report.items.find((i) => i.nome === 'Comercial')!.action).toBe('updated');
    expect(await row('Comercial')).toMatchObject({ provider: 'uazapi', external_id: null, app_secret: null });
  });

  it("an external_id another clinic's instance already has changes nothing and names both instances", async () => {
    const { db } = t.current;
    const first = structuredClone(SEED);
    first.clinicas[0]!.instancias![0] = { ...first.clinicas[0]!.instancias![0]!, provider: 'evolution', external_id: 'sorriso' };
    await seedDatabase(db, first);
    const second = structuredClone(SEED);
    second.clinicas[0]!.hunter_nome = 'Mudou';
    second.clinicas[1]!.instancias = [{ nome: 'Outra', provider: 'evolution', server_url: 'http://x', token: 't', external_id: 'sorriso' }];
    const err = await seedDatabase(db, second).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SeedValidationError);
    expect((err as SeedValidationError).problems.map(formatSeedProblem)).toEqual([
      'clinicas[1].instancias[0].external_id: evolution external_id "sorriso" is already the instance "Recepção" of clinic "Clínica Sorriso" (clinic "Clínica Dois", instance "Outra")',
    ]);
    expect((await db.get('clinicas_com_atendentes', { nome: 'Clínica Sorriso' }))!.hunter_nome).toBe('Mariana');
    expect(await db.find('instancias_whatsapp')).toHaveLength(1);
    // The same instance keeping its own external_id is no conflict.
    expect((await seedDatabase(db, first)).unchanged).toBe(5);
  });

  it('seeds the example file', async () => {
    const report = await seedDatabase(t.current.db, readSeedFile(EXAMPLE));
    expect(report.items.map((i) => i.kind)).toEqual(['clinic', 'protocol', 'instance', 'instance', 'instance']);
    expect((await t.current.db.find('instancias_whatsapp')).map((n) => [n.provider, n.external_id])).toEqual([
      ['uazapi', null],
      ['evolution', 'clinica-sorriso-comercial'],
      ['cloud', '106540352242922'],
    ]);
    const clinic = (await t.current.db.find('clinicas_com_atendentes'))[0]!;
    expect(clinic.hunter_telefone).toMatch(/^\d+$/);
    expect(String(clinic.admin_telefones)).toMatch(/^\d+(,\d+)*$/);
    expect(JSON.parse(String(clinic.horario_atendimento))).toEqual({
      timezone: 'America/Sao_Paulo',
      seg: '08:00-12:00,13:00-18:00',
      ter: '08:00-12:00,13:00-18:00',
      qua: '08:00-12:00,13:00-18:00',
      qui: '08:00-12:00,13:00-18:00',
      sex: '08:00-12:00,13:00-18:00',
      sab: '08:00-12:00',
      dom: '',
    });
  });
});
