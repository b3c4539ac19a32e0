// engine/observer.ts composeObservers: every part is told, even after one throws, and the error still
// reaches the engine's log.
import { describe, expect, it } from 'vitest';
import { composeObservers, type EngineObserver } from '../../engine/observer.js';

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
