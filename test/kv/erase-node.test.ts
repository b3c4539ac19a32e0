import { afterEach, describe, expect, it } from 'vitest';
import { NodeRegistry } from '../../engine/registry.js';
import { kvNodes } from '../../nodes/data/index.js';
import { coreNodes } from '../../nodes/index.js';
import { forEachKeyValue, useFreshKeyValue } from '../helpers/key-values.js';
import { runFlow, shutdownEngines } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const registry = new NodeRegistry([...coreNodes, ...kvNodes]);

const flow = `
name: forget
steps:
  - id: forget
    type: kv.erase
    params: { key: "{{ trigger.body.key }}" }
`;

forEachKeyValue('kv.erase', (open) => {
  const store = useFreshKeyValue(open);

  it("erases the lead's buffer, dedupe and lock keys, and nothing of another lead", async () => {
    const { kv } = store.current;
    const now = Date.now();
    await kv.bufferPush('7:5511987654321', 'm1', { text: 'oi' }, now);
    await kv.dedupe('7:5511987654321:m1', 60_000);
    await kv.acquireLock('7:5511987654321', 60_000);
    await kv.bufferPush('7:5511900000000', 'm9', { text: 'other' }, now);
    await kv.dedupe('7:5511900000000:m9', 60_000);

    const { record } = await runFlow(flow, { body: { key: '7:5511987654321' }, engine: { registry, services: { kv } } });
    expect(record.status).toBe('success');
    expect((record.output as { erased: number }).erased).toBe(3);

    expect(await kv.bufferPeek('7:5511987654321')).toBeNull();
    expect(await kv.dedupe('7:5511987654321:m1', 60_000)).toBe(true);
    expect(await kv.acquireLock('7:5511987654321', 1_000)).not.toBeNull();
    expect((await kv.bufferPeek('7:5511900000000'))?.entries.length).toBe(1);
    expect(await kv.dedupe('7:5511900000000:m9', 60_000)).toBe(false);
  });
});

describe('kv.erase without a store', () => {
  it('fails the step with a clear error', async () => {
    const { record } = await runFlow(flow, { body: { key: 'x' }, engine: { registry } });
    expect(record.status).toBe('failed');
    expect(record.error?.message).toMatch(/kv/);
  });
});
