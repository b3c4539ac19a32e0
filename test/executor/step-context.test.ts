// A step's run context (engine/run/step-context.ts) and what is built once per drive rather than
// once per step: every NodeContext member as a node sees it, directly and through a service node's
// context (nodes/services.ts); the services view made once per drive; the per-step debug line built
// only when the logger writes debug; the params a node gets are its own copy.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeRegistry } from '../../engine/registry.js';
import type { Logger } from '../../engine/logger.js';
import { defineNode, type JsonObject, type NodeContext, type NodeDefinition } from '../../engine/types.js';
import { coreNodes } from '../../nodes/index.js';
import { defineServiceNode } from '../../nodes/services.js';
import { runFlow, shutdownEngines, stepOutput, stepRecord } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

/** What a node sees of its context, read through every member (each method called on ctx). */
async function probe(ctx: NodeContext): Promise<JsonObject> {
  ctx.log('info', 'probing', { extra: 1 });
  const performed = ctx.recordOutbound({ kind: 'http', method: 'POST', url: 'http://x.test', headers: { authorization: 'Bearer s' } });
  ctx.setVars({ probed: true });
  await ctx.checkpoint?.({ at: 'middle' });
  const children = await ctx.runChildren('then');
  return {
    executionId: typeof ctx.executionId === 'string' && ctx.executionId.length > 0,
    flow: ctx.flow,
    stepId: ctx.stepId,
    attempt: ctx.attempt,
    dryRun: ctx.dryRun,
    state: ctx.state ?? null,
    signal: ctx.signal instanceof AbortSignal && !ctx.signal.aborted,
    // The step's signal is made once, on first use.
    sameSignal: [ctx.signal, ctx.signal].every((s, _, all) => s === all[0]),
    performed,
    childSlots: ctx.childSlots(),
    children: children as JsonObject,
    startFlow: typeof ctx.startFlow,
    cancelFlow: typeof ctx.cancelFlow,
    interruptedPeersUntil: typeof ctx.interruptedPeersUntil,
    checkpoint: typeof ctx.checkpoint,
    callFlow: typeof ctx.callFlow,
    suspend: typeof ctx.suspend,
    stop: typeof ctx.stop,
    respond: typeof ctx.respond,
  };
}

const children = { then: { description: 'steps run by the probe', shape: 'list' as const } };

const plainProbe = defineNode({
  type: 'test.probe',
  description: 'Reads every member of its context (test node).',
  params: Type.Object({}),
  output: { description: 'what it saw' },
  examples: [],
  children,
  run: (_params, ctx) => probe(ctx),
});

const serviceProbe = defineServiceNode({
  type: 'test.service-probe',
  services: ['kv'],
  description: 'Reads every member of its context, as a service node (test node).',
  params: Type.Object({}),
  output: { description: 'what it saw' },
  examples: [],
  children,
  run: async (_params, ctx) => ({ ...(await probe(ctx)), kv: ctx.services.kv === undefined ? null : 'present' }),
});

const registry = new NodeRegistry([...coreNodes, plainProbe, serviceProbe as NodeDefinition]);

function probeFlow(type: string): string {
  return `
name: probed
steps:
  - id: probe
    type: ${type}
    then:
      - id: inner
        type: set
        params: { values: { seen: "{{ vars.probed }}" } }
`;
}

/** A logger keeping what it is told, optionally saying debug is off. */
function keptLogger(
  debugEnabled?: boolean,
): Logger & { lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> } {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const keep = (level: string) => (fields: object, message: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  return {
    lines,
    debug: keep('debug'),
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    ...(debugEnabled === undefined ? {} : { isLevelEnabled: (level: string) => level !== 'debug' || debugEnabled }),
  };
}

describe('step context', () => {
  for (const type of ['test.probe', 'test.service-probe']) {
    it(`${type}: every member reads and acts as the node expects`, async () => {
      const logger = keptLogger();
      const { record } = await runFlow(probeFlow(type), { engine: { registry, logger, services: { kv: {} } } });
      expect(record.status).toBe('success');
      const seen = stepOutput(record, 'probe');
      expect(seen).toMatchObject({
        executionId: true,
        flow: 'probed',
        stepId: 'probe',
        attempt: 1,
        dryRun: false,
        state: null,
        signal: true,
        sameSignal: true,
        performed: true,
        childSlots: ['then'],
        children: { inner: { seen: true } },
        startFlow: 'function',
        cancelFlow: 'function',
        checkpoint: 'function',
        callFlow: 'function',
        suspend: 'function',
        stop: 'function',
        respond: 'function',
      });
      // The memory store has leases: interrupted peers can be asked about.
      expect(seen.interruptedPeersUntil).toBe('function');
      expect(record.vars).toEqual({ probed: true });
      expect(record.outbound).toEqual([
        { step: 'probe', kind: 'http', method: 'POST', url: 'http://x.test', headers: { authorization: '***' }, performed: true },
      ]);
      expect(logger.lines.find((l) => l.message === 'probing')?.fields).toEqual({
        execution: record.id,
        flow: 'probed',
        step: 'probe',
        extra: 1,
      });
    });
  }

  it('suspend and stop from a service node reach the engine as from any node', async () => {
    const stopper = defineServiceNode({
      type: 'test.stopper',
      services: ['kv'],
      description: 'Stops the execution (test node).',
      params: Type.Object({}),
      output: { description: 'never' },
      examples: [],
      run: async (_params, ctx) => ctx.stop('enough'),
    });
    const { record } = await runFlow('name: stops\nsteps:\n  - id: halt\n    type: test.stopper\n', {
      engine: { registry: new NodeRegistry([...coreNodes, stopper as NodeDefinition]), services: { kv: {} } },
    });
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('enough');
    expect(stepRecord(record, 'halt')).toMatchObject({ status: 'stopped', output: { reason: 'enough' } });
  });
});

describe('built once per drive', () => {
  it('the AI service is bound to the execution once per drive, however many steps read it', async () => {
    const bound: unknown[] = [];
    const ai = {
      forExecution: (execution: unknown) => {
        bound.push(execution);
        return { bound: true };
      },
    };
    const readsAi = defineServiceNode({
      type: 'test.reads-ai',
      services: ['ai'],
      description: 'Reads the AI service (test node).',
      params: Type.Object({}),
      output: { description: 'whether it was bound' },
      examples: [],
      run: async (_params, ctx) => ({ bound: (ctx.services.ai as unknown as { bound?: boolean }).bound === true }),
    });
    const flow = `
name: three-reads
steps:
  - { id: one, type: test.reads-ai, params: {} }
  - { id: two, type: test.reads-ai, params: {} }
  - { id: three, type: test.reads-ai, params: {} }
`;
    const { record } = await runFlow(flow, {
      engine: { registry: new NodeRegistry([...coreNodes, readsAi as NodeDefinition]), services: { ai } },
    });
    expect(record.status).toBe('success');
    expect(['one', 'two', 'three'].map((id) => stepOutput(record, id))).toEqual([{ bound: true }, { bound: true }, { bound: true }]);
    expect(bound).toEqual([{ id: record.id, flow: 'three-reads', dryRun: false }]);
  });

  it('the per-step debug line is built only when the logger writes debug', async () => {
    const flow =
      'name: quiet\nsteps:\n  - { id: a, type: set, params: { values: { n: 1 } } }\n  - { id: b, type: set, params: { values: { n: 2 } } }\n';
    for (const [enabled, expected] of [
      [false, []],
      [true, ['a', 'b']],
      [undefined, ['a', 'b']],
    ] as const) {
      const logger = keptLogger(enabled);
      const { record } = await runFlow(flow, { engine: { logger } });
      expect(record.status).toBe('success');
      const steps = logger.lines.filter((l) => l.level === 'debug' && l.message === 'step');
      expect(steps.map((l) => l.fields.step)).toEqual(expected);
      if (expected.length > 0)
        expect(steps[0]!.fields).toEqual({
          execution: record.id,
          flow: 'quiet',
          step: 'a',
          type: 'set',
          status: 'success',
          attempt: 1,
          ms: expect.any(Number),
        });
    }
  });
});

describe('params', () => {
  it('a node changing its params changes neither the recorded params nor what a retry resolves', async () => {
    let calls = 0;
    const mutates = defineNode({
      type: 'test.mutates',
      description: 'Changes its params, fails the first time (test node).',
      params: Type.Object({ list: Type.Array(Type.Number()), nested: Type.Object({ n: Type.Number() }) }),
      output: { description: 'its params as changed' },
      examples: [],
      async run(params) {
        params.list.push(99);
        params.nested.n = -1;
        if (++calls === 1) throw new Error('first try fails');
        return params;
      },
    });
    const { record } = await runFlow(
      `
name: mutating
steps:
  - id: m
    type: test.mutates
    retry: { attempts: 2, delay_ms: 1 }
    params: { list: [1, 2], nested: { n: "{{ 1 + 1 }}" } }
`,
      { engine: { registry: new NodeRegistry([...coreNodes, mutates]) } },
    );
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'm').params).toEqual({ list: [1, 2], nested: { n: 2 } });
    expect(stepOutput(record, 'm')).toEqual({ list: [1, 2, 99], nested: { n: -1 } });
  });
});
