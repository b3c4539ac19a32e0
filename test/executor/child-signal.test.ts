// Each step's signal follows the engine's while the step runs and leaves nothing on it afterwards
// (the SDKs and fetch attach listeners they never remove: on the long-lived engine signal they
// piled up with every call — seen as steady memory growth in bench/memory.ts).
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { childSignal, lazyChildSignal } from '../../engine/run/child-signal.js';
import { Type } from '@sinclair/typebox';
import { NodeRegistry } from '../../engine/registry.js';
import { defineNode, type NodeDefinition } from '../../engine/types.js';
import { coreNodes } from '../../nodes/index.js';
import { makeEngine, shutdownEngines, waitForEnd } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
});

describe('childSignal', () => {
  it('is aborted with the parent, with the same reason', () => {
    const parent = new AbortController();
    const child = childSignal(parent.signal);
    expect(child.signal.aborted).toBe(false);
    const reason = new Error('engine shutting down');
    parent.abort(reason);
    expect(child.signal.aborted).toBe(true);
    expect(child.signal.reason).toBe(reason);
  });

  it('of an already aborted parent is aborted at once', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    expect(childSignal(parent.signal).signal.aborted).toBe(true);
  });

  it('release removes its one listener from the parent; listeners on the child never reach the parent', () => {
    const parent = new AbortController();
    const children = Array.from({ length: 100 }, () => childSignal(parent.signal));
    for (const c of children) for (let i = 0; i < 3; i++) c.signal.addEventListener('abort', () => undefined);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(100);
    for (const c of children) c.release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    parent.abort();
    expect(children.every((c) => !c.signal.aborted)).toBe(true);
  });
});

describe('lazyChildSignal', () => {
  it('touches the parent only once its signal is used, and follows it from then on', () => {
    const parent = new AbortController();
    const unused = lazyChildSignal(parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    unused.release();
    const used = lazyChildSignal(parent.signal);
    const signal = used.signal;
    expect(used.signal).toBe(signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    parent.abort(new Error('stop'));
    expect(signal.aborted).toBe(true);
    used.release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });
});

describe('steps and the engine signal', () => {
  it('after many executions whose steps left listeners on their signal (as the AI SDKs do), none is left on the engine signal', async () => {
    // A node that calls out the way the OpenAI and Anthropic SDKs do: a listener on the signal it is
    // given, never removed.
    const sdkLike = defineNode({
      type: 'test.sdk-like',
      description: 'Adds an abort listener to ctx.signal and leaves it there.',
      params: Type.Object({}),
      output: { description: 'null' },
      examples: [],
      async run(_params, ctx) {
        ctx.signal.addEventListener('abort', () => undefined);
        return null;
      },
    });
    const registry = new NodeRegistry([...coreNodes, sdkLike as unknown as NodeDefinition]);
    const engine = makeEngine(
      `
name: calls
steps:
  - { id: first, type: test.sdk-like }
  - { id: second, type: test.sdk-like }
`,
      { registry },
    );
    await engine.startScheduler();
    for (let i = 0; i < 20; i++) {
      const handle = await engine.start('calls', { body: {} });
      expect((await waitForEnd(engine, handle.id)).status).toBe('success');
    }
    // The engine's own controller (private): every step's listener on it was removed when the step ended.
    const engineSignal = (engine as unknown as { abort: AbortController }).abort.signal;
    expect(getEventListeners(engineSignal, 'abort')).toHaveLength(0);
  });
});
