// The recorder's depth guard (engine/errors/value-too-deep-error.ts): copying, masking, converting
// and serialising a value nested deeper than MAX_RECORDED_DEPTH throws ValueTooDeepError (never a
// stack overflow), and a step whose output nests that deep fails with that error while the
// execution is still recorded.
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_RECORDED_DEPTH,
  ValueTooDeepError,
  assertRecordableDepth,
  stringifyRecorded,
} from '../../engine/errors/value-too-deep-error.js';
import { toPlainJson } from '../../engine/plain-json.js';
import { cloneJson } from '../../engine/run/clone-json.js';
import { containsMasked, maskSecrets } from '../../engine/run/mask-secrets.js';
import type { JsonValue } from '../../engine/types.js';
import { makeEngine, shutdownEngines } from '../helpers/run-flow.js';

/** `levels` objects inside one another: `{a: {a: … {}}}` (levels 1: `{}`). */
function nested(levels: number): JsonValue {
  let value: JsonValue = {};
  for (let i = 1; i < levels; i++) value = i % 2 ? { a: value } : [value];
  return value;
}

const TOO_DEEP = `value nested deeper than ${MAX_RECORDED_DEPTH} levels`;

describe('recorded values: depth guard', () => {
  afterEach(() => shutdownEngines());

  const walks: Array<[string, (v: JsonValue) => unknown]> = [
    ['cloneJson', cloneJson],
    ['maskSecrets', maskSecrets],
    ['containsMasked', containsMasked],
    ['toPlainJson', toPlainJson],
    ['assertRecordableDepth', assertRecordableDepth],
  ];

  for (const [name, walk] of walks) {
    it(`${name}: ${MAX_RECORDED_DEPTH} levels pass, one more throws ValueTooDeepError, 100,000 levels too (no stack overflow)`, () => {
      expect(() => walk(nested(MAX_RECORDED_DEPTH))).not.toThrow();
      expect(() => walk(nested(MAX_RECORDED_DEPTH + 1))).toThrow(new ValueTooDeepError());
      expect(() => walk(nested(100_000))).toThrow(TOO_DEEP);
    });
  }

  it('cloneJson and maskSecrets still copy and mask within the limit', () => {
    const value = { token: 'x', deep: nested(MAX_RECORDED_DEPTH - 1) } as JsonValue;
    expect(cloneJson(value)).toEqual(value);
    expect(maskSecrets(value)).toEqual({ token: '***', deep: nested(MAX_RECORDED_DEPTH - 1) });
  });

  it('stringifyRecorded: a value too deep for JSON.stringify throws ValueTooDeepError, not RangeError', () => {
    expect(() => JSON.stringify(nested(1_000_000))).toThrow(RangeError);
    expect(() => stringifyRecorded(nested(1_000_000))).toThrow(ValueTooDeepError);
    expect(stringifyRecorded({ a: [1] })).toBe('{"a":[1]}');
  });

  it('a step whose output nests too deep fails with "value nested deeper than …", the execution recorded as failed', async () => {
    const engine = makeEngine(`
name: deep-output
steps:
  - id: make
    type: set
    params: { values: { x: 1 } }
  - id: after
    type: set
    params: { values: { x: 2 } }
`);
    const handle = await engine.start('deep-output', { body: {} }, { mocks: { make: { output: nested(10_000) } } });
    const record = await handle.settled;
    expect(record.status).toBe('failed');
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([['make', 'error']]);
    expect(record.steps[0]!.error).toMatchObject({ name: 'ValueTooDeepError', message: TOO_DEEP });
    expect((await engine.store.get(handle.id))?.status).toBe('failed');
  });

  it('a start whose body nests too deep is refused with ValueTooDeepError, nothing recorded', async () => {
    const engine = makeEngine(`
name: deep-start
steps:
  - id: only
    type: set
    params: { values: { x: 1 } }
`);
    await expect(engine.start('deep-start', { body: { x: nested(5_000) } })).rejects.toThrow('trigger body nested deeper than');
    expect(await engine.store.list({ limit: 10 })).toEqual([]);
  });
});
