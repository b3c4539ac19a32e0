// Services handed to node types: declared by each node type, checked when the host builds its
// engine (naming node type and service), and read typed in `run`.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import type { TableOperations } from '../../adapters/db/table-ops.js';
import { createEngine } from '../../cli/host.js';
import { MissingServiceError } from '../../engine/errors/missing-service-error.js';
import { NodeRegistry } from '../../engine/registry.js';
import type { NodeContext } from '../../engine/types.js';
import { coreNodes } from '../../nodes/index.js';
import { defineServiceNode, type NodeServices } from '../../nodes/services.js';
import { runFlow, shutdownEngines, stepOutput, stepRecord } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const silent = { debug() {}, info() {}, warn() {}, error() {} } as never;

/** A node type reading one row through `services.db`, and the optional `mediaOptions`. */
const readsDb = defineServiceNode({
  type: 'test.reads-db',
  services: ['db'],
  description: 'Reads the lead with id 1 through the database service (test node).',
  params: Type.Object({}, { additionalProperties: false }),
  output: { description: '`{row, options}`' },
  examples: [{ title: 'Read', step: { type: 'test.reads-db', params: {} } }],
  async run(_params, ctx) {
    const row = await ctx.services.db.get('leads', { id: 1 });
    return { row, options: ctx.services.mediaOptions ?? null };
  },
});

const registry = new NodeRegistry([...coreNodes, readsDb]);
const FLOW = `
name: reads
steps:
  - id: read
    type: test.reads-db
    params: {}
`;

describe('node services', () => {
  it('a node type declares its services on its definition', () => {
    expect(readsDb.services).toEqual(['db']);
  });

  it('a node declaring its services gets them in ctx.services', async () => {
    const calls: unknown[] = [];
    const db = {
      get: async (table: string, where: unknown) => {
        calls.push([table, where]);
        return { id: 1, nome: 'Ana' };
      },
    } as unknown as TableOperations;
    const { record } = await runFlow(FLOW, { engine: { registry, services: { db, mediaOptions: { language: 'pt' } } } });
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'read')).toEqual({ row: { id: 1, nome: 'Ana' }, options: { language: 'pt' } });
    expect(calls).toEqual([['leads', { id: 1 }]]);
  });

  it('an engine built without the check: the step that reads a missing service names it', async () => {
    const { record } = await runFlow(FLOW, { engine: { registry, services: {} } });
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'read').error?.message).toBe('step "read" needs a database, but none is configured (services.db is missing)');
  });

  it('a context made by hand whose services object serves several executions: the AI service named by each', async () => {
    const ai = { forExecution: (execution: unknown) => ({ execution }) };
    const readsAi = defineServiceNode({
      type: 'test.reads-ai',
      services: ['ai', 'db'],
      description: 'Reads the AI service, and the database when asked to (test node).',
      params: Type.Object({ db: Type.Boolean() }),
      output: { description: 'the execution the AI service names' },
      examples: [],
      async run(params, ctx) {
        if (params.db) await ctx.services.db.get('leads', {});
        return (ctx.services.ai as unknown as { execution: unknown }).execution;
      },
    });
    const services = { ai, db: {} };
    const ctxOf = (executionId: string, of = services) =>
      ({ executionId, flow: 'by-hand', dryRun: false, stepId: 'ask', services: of }) as unknown as NodeContext;
    expect(await readsAi.run({ db: false }, ctxOf('e1'))).toEqual({ id: 'e1', flow: 'by-hand', dryRun: false });
    expect(await readsAi.run({ db: false }, ctxOf('e2'))).toEqual({ id: 'e2', flow: 'by-hand', dryRun: false });
    expect(await readsAi.run({ db: false }, ctxOf('e1'))).toEqual({ id: 'e1', flow: 'by-hand', dryRun: false });
    // Without the database: the AI service is still there, bound; reading the database names the step.
    const withoutDb = ctxOf('e3', { ai } as never);
    expect(await readsAi.run({ db: false }, withoutDb)).toEqual({ id: 'e3', flow: 'by-hand', dryRun: false });
    await expect(readsAi.run({ db: true }, withoutDb)).rejects.toThrow(
      'step "ask" needs a database, but none is configured (services.db is missing)',
    );
  });

  it('the registry check names every node type and service missing', () => {
    expect(() => registry.requireServices({ db: {} })).not.toThrow();
    let error: unknown;
    try {
      registry.requireServices({ db: null, kv: {} });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MissingServiceError);
    expect((error as MissingServiceError).missing).toEqual([{ type: 'test.reads-db', service: 'db' }]);
    expect((error as Error).message).toContain('node type "test.reads-db" needs service "db"');
  });

  it('the host fails when it builds its engine without a service a node type declares', () => {
    const all: Record<keyof NodeServices, unknown> = {
      db: {},
      kv: {},
      ai: {},
      gateway: () => ({}),
      gatewayProviders: {},
      instances: {},
      media: {},
      executions: {},
      mediaOptions: undefined,
      clock: undefined,
      sendRecoveries: undefined,
      booking: {},
    };
    const { ai: _ai, ...withoutAi } = all;
    expect(() => createEngine(new Map(), silent, { services: withoutAi as NodeServices })).toThrow(
      /node type "ai\.agent" needs service "ai".*node type "ai\.generate" needs service "ai"/,
    );
    const engine = createEngine(new Map(), silent, { services: all as NodeServices });
    return engine.shutdown();
  });
});
