import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ flowsDir: join(import.meta.dirname, '../fixtures/http-flows') });
});

afterAll(async () => {
  await stack?.close();
});

describe('end-to-end stack', () => {
  it('serves the flows over HTTP on a migrated, seeded database and records executions there', async () => {
    const res = await stack.post('/lead', { nome: 'Ana', telefone: '5511987654321' });
    expect(res.status).toBe(202);
    const { execution_id } = (await res.json()) as { execution_id: string };
    const done = await stack.engine.waitForEnd(execution_id);
    expect(done.status).toBe('success');
    const stored = await stack.runtime.store.get(execution_id);
    expect(stored?.steps.map((s) => s.id)).toEqual(['greet']);
    const instance = await stack.runtime.db.get('instancias_whatsapp', { id: stack.clinic.instanceId });
    expect(instance?.server_url).toBe(stack.gateway.url);
  });
});
