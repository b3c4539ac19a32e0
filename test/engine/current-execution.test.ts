// engine/run/current-execution.ts: a node's code (and what it calls, after awaits and timers) sees
// the execution its step runs in, a child started by call-flow sees the child, a dry run is marked,
// and nothing is current outside a step. engine/observer.ts composeObservers: every part is told,
// even after one throws, and the error still reaches the engine's log.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { type CurrentExecution, currentExecution } from '../../engine/run/current-execution.js';
import { composeObservers, type EngineObserver } from '../../engine/observer.js';
import { defineNode } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';
import { makeEngine, shutdownEngines, sleep, waitForEnd } from '../helpers/run-flow.js';

afterEach(() => shutdownEngines());

describe('the current execution', () => {
  it('is the one whose step runs, through awaits and timers, and the child under call-flow', async () => {
    const seen: Array<{ label: string; execution: CurrentExecution | undefined }> = [];
    const probe = defineNode({
      type: 'test.probe',
      description: 'Records the current execution, before and after a timer.',
      params: Type.Object({ label: Type.String() }),
      output: { description: '`{}`' },
      examples: [],
      async run(params) {
        seen.push({ label: `${params.label}:before`, execution: currentExecution() });
        await sleep(5);
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push({ label: `${params.label}:after`, execution: currentExecution() });
        return {};
      },
    });
    const engine = makeEngine(
      [
        `
name: parent
steps:
  - { id: mine, type: test.probe, params: { label: parent } }
  - { id: child, type: call-flow, params: { flow: child, input: {} } }
  - { id: again, type: test.probe, params: { label: parent-again } }
`,
        `
name: child
steps:
  - { id: mine, type: test.probe, params: { label: child } }
`,
      ],
      { registry: defaultRegistry().register(probe as never) },
    );
    await engine.startScheduler();
    const handle = await engine.start('parent', { body: {} });
    expect((await waitForEnd(engine, handle.id)).status).toBe('success');
    const child = (await engine.store.list({ flow: 'child', limit: 10 }))[0]!;
    const ids = Object.fromEntries(seen.map((s) => [s.label, s.execution?.id]));
    expect(ids).toEqual({
      'parent:before': handle.id,
      'parent:after': handle.id,
      'child:before': child.id,
      'child:after': child.id,
      'parent-again:before': handle.id,
      'parent-again:after': handle.id,
    });
    expect(seen[0]!.execution).toEqual({ id: handle.id, flow: 'parent', dryRun: false });

    seen.length = 0;
    const dry = await engine.start('parent', { body: {} }, { dryRun: true });
    await waitForEnd(engine, dry.id);
    expect(seen.every((s) => s.execution?.dryRun === true)).toBe(true);
    expect(currentExecution()).toBeUndefined();
  });
});

describe('composeObservers', () => {
  it('tells every part, passes the first error on, and only has the hooks some part has', async () => {
    const told: string[] = [];
    const failing: EngineObserver = {
      stepEnded: () => {
        told.push('a');
        throw new Error('a broke');
      },
    };
    const async: EngineObserver = {
      stepEnded: async () => void told.push('b'),
      waitResumed: async () => {
        throw new Error('b broke');
      },
    };
    const composed = composeObservers(failing, undefined, async);
    expect(Object.keys(composed).sort()).toEqual(['stepEnded', 'waitResumed']);
    const event = { flow: 'f', execution: 'e', step: 's', node_type: 'set', status: 'success' as const, ms: 1, attempt: 1 };
    expect(() => composed.stepEnded!(event)).toThrow('a broke');
    expect(told).toEqual(['a', 'b']);
    await expect(composed.waitResumed!(0, {} as never)).rejects.toThrow('b broke');
  });
});
