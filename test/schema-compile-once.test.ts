// JSON Schemas are compiled once per process, when flows load (engine/run/param-validator.ts),
// never while a request is handled: counted by schemaCompilations() around requests over the real
// webhook app (uazapi's instance-token mode, instances in SQLite / PostgreSQL), and around reloads.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DbInboundInstances } from '../adapters/gateway/inbound-instances.js';
import { providerAuthMode } from '../adapters/gateway/provider-inbound.js';
import { uazapiInbound } from '../adapters/gateway/uazapi/auth.js';
import { Engine } from '../engine/engine.js';
import { loadFlowFile, loadFlowText } from '../engine/load/loader.js';
import { compileParamSchema, schemaCompilations, schemaProblems } from '../engine/run/param-validator.js';
import { WebhookAuthModes } from '../engine/triggers/auth-modes.js';
import { buildWebhookApp } from '../engine/triggers/webhook-app.js';
import type { LoadedFlow, LoadedStep } from '../engine/types.js';
import { defaultRegistry } from '../nodes/index.js';
import { captureLogger } from './helpers/capture-logger.js';
import { forEachDatabase, useFreshDatabase } from './helpers/databases.js';
import { uazapiFixture } from './gateway/helpers/fixtures.js';

const TOKEN = 'compile-once-token';

/** Several node types, nested steps, a trigger input schema: what a request validates against. */
const FLOW = `name: compile-once
trigger:
  webhook:
    path: /leadagent
    auth: instance-token
    respond: { mode: step, timeout_ms: 5000 }
  input:
    type: object
    required: [message]
    properties:
      message:
        type: object
        required: [messageid]
        properties: { messageid: { type: string, minLength: 1 } }
steps:
  - id: msg
    type: set
    params: { values: { id: "{{ trigger.body.message.messageid }}", text: "{{ trigger.body.message.text }}" } }
  - id: known
    type: if
    params: { condition: "{{ trigger.auth.instance_id }}" }
    then:
      - id: answer
        type: respond
        params: { status: 200, body: { status: queued, id: "{{ steps.msg.id }}" } }
`;

const registry = defaultRegistry();

let running: { engine: Engine; server: Server } | undefined;
afterEach(async () => {
  if (!running) return;
  await running.engine.shutdown();
  await new Promise((resolve) => running!.server.close(resolve));
  running = undefined;
});

forEachDatabase('schemas on the request path', (open) => {
  const t = useFreshDatabase(open);

  it('two requests compile no schema: the node types, the flow input and the event schema were compiled at load', async () => {
    const { db } = t.current;
    const clinic = await db.insert('clinicas_com_atendentes', { nome: 'Clínica', hunter_telefone: '5511900000001' });
    await db.insert('instancias_whatsapp', { clinica_id: clinic.id, nome: 'main', server_url: 'http://127.0.0.1:9', token: TOKEN });
    const { flow, problems } = loadFlowText('compile-once.yaml', FLOW, registry);
    expect(problems).toEqual([]);
    const engine = new Engine({ registry, flows: new Map<string, LoadedFlow>([[flow!.name, flow!]]) });
    await engine.startScheduler();
    const app = buildWebhookApp({
      engine,
      logger: captureLogger().logger,
      authModes: new WebhookAuthModes([providerAuthMode(uazapiInbound, new DbInboundInstances(db))]),
    });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    running = { engine, server };
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/leadagent`;

    const before = schemaCompilations();
    for (const messageid of ['m-1', 'm-2']) {
      const event = uazapiFixture('text-conversation');
      event.token = TOKEN;
      event.message.messageid = messageid;
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
      expect([res.status, await res.json()]).toEqual([200, { status: 'queued', id: messageid }]);
    }
    expect(schemaCompilations() - before).toBe(0);
  });
});

describe('schemas compiled once per process', () => {
  function usedTypes(steps: LoadedStep[], out = new Set<string>()): Set<string> {
    for (const step of steps) {
      out.add(step.type);
      for (const children of Object.values(step.children)) usedTypes(children, out);
    }
    return out;
  }

  it('loading the shipped flows compiles the params schema of every node type they use', () => {
    const flows = ['agent.yaml', 'intake.yaml', 'handoff.yaml', 'followup.yaml', 'lead-action.yaml', 'reminders.yaml'].map((name) => {
      const { flow, problems } = loadFlowFile(join(import.meta.dirname, '..', 'flows', name), registry);
      expect(problems).toEqual([]);
      return flow!;
    });
    const before = schemaCompilations();
    for (const flow of flows) for (const type of usedTypes(flow.steps)) compileParamSchema(registry.get(type)!);
    expect(schemaCompilations() - before).toBe(0);
  });

  it('reloading a flow compiles nothing; an edited input schema compiles once; two versions of one $id both load', () => {
    const withId = (required: string) =>
      FLOW.replace('    required: [message]\n', `    $id: https://leadflow.test/event.json\n    required: [${required}]\n`);
    expect(loadFlowText('a.yaml', withId('message'), registry).problems).toEqual([]);
    const afterFirst = schemaCompilations();
    expect(loadFlowText('a.yaml', withId('message'), registry).problems).toEqual([]);
    expect(schemaCompilations()).toBe(afterFirst);
    const edited = loadFlowText('a.yaml', withId('message, token'), registry);
    expect(edited.problems).toEqual([]);
    expect(schemaCompilations()).toBe(afterFirst + 1);
    // Each version validates with its own schema.
    expect(schemaProblems(edited.flow!.trigger.input!, { message: { messageid: 'x' } })).toEqual([
      { path: 'token', message: 'is required' },
    ]);
  });

  it('a schema equal to one compiled before (another object, same JSON) reuses its validator', () => {
    const schema = () => ({ type: 'object', required: ['only-here-7d2f'], properties: { n: { type: 'number' } } });
    const before = schemaCompilations();
    expect(schemaProblems(schema(), { n: 'x' })).toEqual([
      { path: 'only-here-7d2f', message: 'is required' },
      { path: 'n', message: 'must be number' },
    ]);
    expect(schemaProblems(schema(), { 'only-here-7d2f': 1, n: 2 })).toEqual([]);
    expect(schemaCompilations()).toBe(before + 1);
  });
});
