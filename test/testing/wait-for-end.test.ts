// The flow-test runner waits on Engine.waitForEnd; it must resolve whenever it is called after the
// execution's final record was written, including the few microtasks while the drive unwinds.
import { describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { loadFlowText } from '../../engine/load/loader.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { defaultRegistry } from '../../nodes/index.js';

const registry = defaultRegistry();
const flow = loadFlowText('f.yaml', 'name: f\nsteps:\n  - { id: a, type: set, params: { values: { x: 1 } } }\n', registry).flow!;

describe('Engine.waitForEnd', () => {
  it('resolves when called at any microtask after the final save', async () => {
    for (let delay = 0; delay <= 12; delay++) {
      const store = new MemoryExecutionStore();
      const engine = new Engine({ registry, flows: new Map([['f', flow]]), store });
      let saved: () => void = () => undefined;
      const finalSaved = new Promise<void>((resolve) => (saved = resolve));
      const update = store.update.bind(store);
      store.update = async (record) => {
        await update(record);
        if (record.status === 'success') saved();
      };
      const handle = await engine.start('f', { body: {} });
      await finalSaved;
      for (let i = 0; i < delay; i++) await Promise.resolve();
      const outcome = await Promise.race([
        engine.waitForEnd(handle.id).then((r) => r.status),
        new Promise((resolve) => setTimeout(() => resolve('never resolved'), 500)),
      ]);
      expect(outcome, `waitForEnd called ${delay} microtask(s) after the final save`).toBe('success');
      await engine.shutdown();
    }
  });
});
