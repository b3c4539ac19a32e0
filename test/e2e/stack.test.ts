import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyValue } from '../../adapters/kv/key-value.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import { RedisKeyValue } from '../../adapters/kv/redis-key-value.js';
import { TEST_DATABASE_URL } from '../helpers/databases.js';
import { TEST_REDIS_URL } from '../helpers/key-values.js';
import { forEachBackend, startStack, type Stack } from './stack.js';

const HTTP_FLOWS = join(import.meta.dirname, '../fixtures/http-flows');

let stack: Stack;

forEachBackend('end-to-end stack', (backend) => {
  beforeAll(async () => {
    stack = await startStack({ backend, flowsDir: HTTP_FLOWS });
  });

  afterAll(async () => {
    await stack?.close();
  });

  describe('serving', () => {
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

  describe('backend', () => {
    it('runs on the database and key-value store of its backend, and close() leaves no data behind', async () => {
      const other = await startStack({ backend, flowsDir: HTTP_FLOWS });
      let closed = false;
      try {
        expect(other.backend).toBe(backend);
        const kv = other.runtime.services.kv as KeyValue;
        expect(await kv.dedupe('probe', 60_000)).toBe(true);
        if (backend === 'embedded') {
          expect(other.runtime.db.dialect).toBe('sqlite');
          expect(kv).toBeInstanceOf(MemoryKeyValue);
          const file = other.runtime.db.location;
          expect(existsSync(file)).toBe(true);
          await other.close();
          closed = true;
          expect(existsSync(file)).toBe(false);
        } else {
          expect(other.runtime.db.dialect).toBe('postgres');
          expect(kv).toBeInstanceOf(RedisKeyValue);
          // Its own schema and key namespace, never the stack's next door.
          const schema = String(
            ((await other.runtime.db.knex.raw('select current_schema() as s')) as { rows: Array<{ s: string }> }).rows[0]!.s,
          );
          expect(schema).toMatch(/^lf_test_[0-9a-f]+$/);
          expect(kv.prefix).toMatch(/^lf_test_[0-9a-f]+:$/);
          expect(kv.prefix).not.toBe((stack.runtime.services.kv as KeyValue).prefix);
          await other.close();
          closed = true;
          const admin = knexFactory({ client: 'pg', connection: TEST_DATABASE_URL, pool: { min: 0, max: 1 } });
          const redis = new Redis(TEST_REDIS_URL);
          try {
            const found = (await admin.raw('select 1 from pg_namespace where nspname = ?', [schema])) as { rows: unknown[] };
            expect(found.rows).toEqual([]);
            expect((await redis.scan('0', 'MATCH', `${kv.prefix}*`, 'COUNT', 1000))[1]).toEqual([]);
          } finally {
            await admin.destroy();
            redis.disconnect();
          }
        }
      } finally {
        if (!closed) await other.close();
      }
    });
  });
});
