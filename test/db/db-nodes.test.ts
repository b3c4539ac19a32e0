// The db.* node types inside real flows, against both databases; their definitions honour the node
// contract (described parameters with defaults and examples, examples that load).
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeRegistry } from '../../engine/registry.js';
import { loadFlowText } from '../../engine/load/loader.js';
import { formatProblem } from '../../engine/load/yaml-source.js';
import { dbNodes } from '../../nodes/data/index.js';
import { coreNodes } from '../../nodes/index.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { runFlow, shutdownEngines, stepOutput, stepRecord } from '../helpers/run-flow.js';
import { clinicWithInstance } from './support.js';

const registry = new NodeRegistry([...coreNodes, ...dbNodes]);

afterEach(shutdownEngines);

const LEAD_FLOW = `
name: lead-upsert
steps:
  - id: save
    type: db.upsert
    params:
      table: leads
      values:
        clinica_id: "{{ trigger.body.clinica_id }}"
        remotejid: "{{ $replace(trigger.body.telefone, /\\\\D/, '') }}"
        nome: "{{ trigger.body.nome }}"
        respostas: "{{ trigger.body.respostas }}"
      conflict: [clinica_id, remotejid]
      on_conflict: keep
  - id: remember
    type: db.insert
    params:
      table: wf_chat_histories
      values: { session_id: "{{ steps.save.row.remotejid }}", clinica_id: "{{ steps.save.row.clinica_id }}", type: agent, content: "Olá, {{ steps.save.row.nome }}!" }
  - id: history
    type: db.find
    params:
      table: wf_chat_histories
      where: { session_id: "{{ steps.save.row.remotejid }}" }
      order_by: [{ column: id, direction: desc }]
      limit: 10
  - id: transfer
    type: db.update
    params:
      table: leads
      where: { id: "{{ steps.save.row.id }}", transferido: false }
      values: { transferido: true, handoff_at: "{{ now }}" }
  - id: lead
    type: db.get
    params: { table: leads, where: { id: "{{ steps.save.row.id }}" } }
  - id: forget
    type: db.delete
    params: { table: wf_chat_histories, where: { session_id: "{{ steps.lead.remotejid }}", type: { in: [agent] } } }
`;

forEachDatabase('db.* nodes in flows', (open) => {
  const t = useFreshDatabase(open);

  it('upsert, insert, find, update, get and delete through ctx.services.db', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const body = { clinica_id: String(clinicaId), telefone: '+55 (11) 98765-4321', nome: 'Maria', respostas: { procedimento: 'Lentes' } };
    const { record } = await runFlow(LEAD_FLOW, { body, engine: { registry, services: { db } } });
    expect(record.status, JSON.stringify(record.error)).toBe('success');
    expect(stepOutput(record, 'save')).toMatchObject({
      inserted: true,
      row: { clinica_id: clinicaId, remotejid: '5511987654321', nome: 'Maria', respostas: { procedimento: 'Lentes' }, transferido: false },
    });
    expect(stepOutput(record, 'history')).toEqual({
      count: 1,
      rows: [expect.objectContaining({ type: 'agent', content: 'Olá, Maria!', clinica_id: clinicaId })],
    });
    expect(stepOutput(record, 'transfer')).toMatchObject({ count: 1, rows: [{ transferido: true }] });
    expect(stepOutput(record, 'lead')).toMatchObject({ transferido: true, handoff_at: expect.stringMatching(/Z$/) });
    expect(stepOutput(record, 'forget')).toEqual({ count: 1 });

    // A returning lead keeps its row; the update finds nothing left to transfer.
    const again = await runFlow(LEAD_FLOW, { body: { ...body, nome: 'Outro nome' }, engine: { registry, services: { db } } });
    expect(stepOutput(again.record, 'save')).toMatchObject({ inserted: false, row: { nome: 'Maria' } });
    expect(stepOutput(again.record, 'transfer')).toEqual({ count: 0, rows: [] });
    expect(await db.find('leads')).toHaveLength(1);
  });

  it("never output an instance's credentials (token, app_secret, verify_token): the record holds none of them", async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db, 'Clínica Credenciais');
    const flow = `
name: instances
steps:
  - id: add
    type: db.insert
    params:
      table: instancias_whatsapp
      values:
        clinica_id: "{{ trigger.body.clinica_id }}"
        nome: oficial
        provider: cloud
        server_url: https://graph.facebook.com/v23.0
        token: access-token-7788
        external_id: "1065"
        app_secret: app-secret-8899
        verify_token: verify-token-9900
  - id: one
    type: db.get
    params: { table: instancias_whatsapp, where: { provider: cloud, external_id: "1065" } }
  - id: all
    type: db.find
    params: { table: instancias_whatsapp, where: { clinica_id: "{{ trigger.body.clinica_id }}" } }
  - id: rename
    type: db.update
    params: { table: instancias_whatsapp, where: { id: "{{ steps.one.id }}" }, values: { nome: principal-oficial } }
  - id: again
    type: db.upsert
    params:
      table: instancias_whatsapp
      values: { clinica_id: "{{ trigger.body.clinica_id }}", nome: principal-oficial, server_url: https://graph.facebook.com/v23.0, token: access-token-7788 }
      conflict: [clinica_id, nome]
      on_conflict: keep
`;
    const { record } = await runFlow(flow, { body: { clinica_id: clinicaId }, engine: { registry, services: { db } } });
    expect(record.status, JSON.stringify(record.error)).toBe('success');
    expect(stepOutput(record, 'one')).toMatchObject({ provider: 'cloud', external_id: '1065', nome: 'oficial' });
    expect(stepOutput(record, 'all').rows.map((r: Record<string, unknown>) => r.nome)).toEqual(['principal', 'oficial']);
    for (const id of ['add', 'one', 'rename', 'again']) {
      const output = JSON.stringify(stepOutput(record, id));
      for (const column of ['"token"', '"app_secret"', '"verify_token"']) expect(output, `${id} ${column}`).not.toContain(column);
    }
    expect(stepOutput(record, 'all').rows.every((r: Record<string, unknown>) => !('token' in r))).toBe(true);
    // Neither in the outputs nor in the recorded params (the insert's values: masked by name).
    const steps = JSON.stringify(record.steps);
    for (const secret of ['access-token-7788', 'app-secret-8899', 'verify-token-9900', 'tok-Clínica Credenciais'])
      expect(steps).not.toContain(secret);
    expect(stepRecord(record, 'add').params).toMatchObject({
      values: { token: '***', app_secret: '***', verify_token: '***', external_id: '1065' },
    });
    // The adapters still read them.
    expect(await db.instanceById(stepOutput(record, 'one').id)).toMatchObject({
      token: 'access-token-7788',
      app_secret: 'app-secret-8899',
    });
  });

  it('db.update and db.get take the conversation-care columns: pause and opt-out instants, clinic hours as text', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321' });
    const hours = '{"timezone":"America/Sao_Paulo","seg":"08:00-18:00"}';
    const { record } = await runFlow(
      `
name: care
steps:
  - id: pause
    type: db.update
    params:
      table: leads
      where: { clinica_id: "{{ trigger.body.clinica_id }}", remotejid: "5511987654321" }
      values: { pausado_ate: "{{ $fromMillis(1741964400000 + 7200000) }}", optout_at: 1741964400000 }
  - id: hours
    type: db.update
    params: { table: clinicas_com_atendentes, where: { id: "{{ trigger.body.clinica_id }}" }, values: { horario_atendimento: "{{ trigger.body.hours }}" } }
  - id: paused
    type: db.get
    params: { table: leads, where: { remotejid: "5511987654321", pausado_ate: { gt: "{{ $fromMillis(1741964400000) }}" } } }
  - id: clinic
    type: db.get
    params: { table: clinicas_com_atendentes, where: { id: "{{ trigger.body.clinica_id }}" } }
`,
      { body: { clinica_id: clinicaId, hours }, engine: { registry, services: { db } } },
    );
    expect(record.status, JSON.stringify(record.error)).toBe('success');
    expect(stepOutput(record, 'paused')).toMatchObject({ pausado_ate: '2025-03-14T17:00:00.000Z', optout_at: '2025-03-14T15:00:00.000Z' });
    expect(stepOutput(record, 'clinic')).toMatchObject({ horario_atendimento: hours });
  });

  it('a dry run against a rollback scope leaves the database as it was', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const scope = await db.rollbackScope();
    const { record } = await runFlow(LEAD_FLOW, {
      body: { clinica_id: clinicaId, telefone: '5511987654321', nome: 'Ana', respostas: {} },
      engine: { registry, services: { db: scope.db } },
      start: { dryRun: true },
    });
    await scope.rollback();
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'save').inserted).toBe(true);
    expect(await db.find('leads')).toEqual([]);
    expect(await db.find('wf_chat_histories')).toEqual([]);
  });

  it('a bad column or value fails the step with a DbQueryError (code bad-query)', async () => {
    const { db } = t.current;
    const { record } = await runFlow(
      `
name: bad-query
steps:
  - id: column
    type: db.find
    params: { table: leads, where: { "nome; drop table leads": 1 } }
    on_error: continue
  - id: value
    type: db.find
    params: { table: leads, where: { clinica_id: "{{ trigger.body.clinica }}" } }
`,
      { body: { clinica: '1 or 1=1' }, engine: { registry, services: { db } } },
    );
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'column').error).toMatchObject({
      name: 'DbQueryError',
      code: 'bad-query',
      message:
        'unknown column "nome; drop table leads" in leads (columns: id, remotejid, clinica_id, instancia_id, nome, telefone, orcamento, respostas, transferido, handoff_enviado, handoff_at, ultima_mensagem, ultima_mensagem_at, created_at, updated_at, pausado_ate, optout_at, sem_resposta_at)',
    });
    expect(stepRecord(record, 'value').error).toMatchObject({
      name: 'DbQueryError',
      code: 'bad-query',
      message: 'leads.clinica_id expects an integer, got "1 or 1=1"',
    });
    expect(await db.find('leads')).toEqual([]);
  });
});

describe('db.* node definitions', () => {
  it('fail clearly when the host gives no database', async () => {
    const { record } = await runFlow(`name: no-db\nsteps:\n  - id: q\n    type: db.get\n    params: { table: leads, where: { id: 1 } }\n`, {
      engine: { registry },
    });
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'q').error?.message).toMatch(/step "q" needs a database, but none is configured/);
  });

  it('refuse tables outside the allow-list and missing where on update/delete when the flow loads', () => {
    const load = (step: object) =>
      loadFlowText('x.yaml', stringify({ name: 'x', steps: [{ id: 's', ...step }] }), registry).problems.map(formatProblem);
    expect(load({ type: 'db.find', params: { table: 'executions' } })).toEqual([
      'x.yaml:6:14 steps.0.params.table must be one of: clinicas_com_atendentes, protocolos, instancias_whatsapp, leads, wf_chat_histories, agendamentos, mensagens [invalid-value]',
    ]);
    expect(load({ type: 'db.delete', params: { table: 'leads' } })).toEqual([
      'x.yaml:5:5 missing required field "where" in steps.0.params [missing-field]',
    ]);
    expect(load({ type: 'db.delete', params: { table: 'leads', where: {} } })).toEqual([
      'x.yaml:7:14 steps.0.params.where must NOT have fewer than 1 properties [invalid-value]',
    ]);
    expect(load({ type: 'db.upsert', params: { table: 'leads', values: { nome: 'x' } } })).toEqual([
      'x.yaml:5:5 missing required field "conflict" in steps.0.params [missing-field]',
    ]);
    expect(load({ type: 'db.get', params: { table: 'leads' } })).toEqual([]);
  });

  for (const def of dbNodes) {
    it(`${def.type}: every parameter described with examples, optional ones defaulted; examples load`, () => {
      const params = JSON.parse(JSON.stringify(def.params)) as {
        properties: Record<string, { description?: string; examples?: unknown[]; default?: unknown }>;
        required?: string[];
        additionalProperties?: boolean;
      };
      expect(params.additionalProperties).toBe(false);
      for (const [name, prop] of Object.entries(params.properties)) {
        expect(prop.description?.trim(), `${def.type}.${name}`).toBeTruthy();
        expect(prop.examples?.length, `${def.type}.${name}`).toBeGreaterThan(0);
        if (!params.required?.includes(name)) expect('default' in prop, `${def.type}.${name} needs a default`).toBe(true);
      }
      expect(def.examples.length).toBeGreaterThan(0);
      for (const example of def.examples) {
        const { problems } = loadFlowText(
          `${def.type}.yaml`,
          stringify({ name: 'x', steps: [{ id: 'example', ...example.step }] }),
          registry,
        );
        expect(problems.map(formatProblem), example.title).toEqual([]);
      }
    });
  }
});
