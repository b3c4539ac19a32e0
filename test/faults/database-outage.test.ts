// The database briefly unreachable (a TCP proxy in front of PostgreSQL drops every connection and
// refuses new ones for a few seconds), with the service in queue mode on Redis as `serve` runs with
// REDIS_URL: a webhook arriving during the outage is refused with 503 and records nothing, and a
// lead whose grouping window ends during the outage is still answered, once, when the database is
// back. Skipped by name, with the reason, without PostgreSQL or Redis.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, dropTestSchema, withSearchPath } from '../helpers/databases.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { CLINIC_PHONE, INSTANCE_TOKEN, insertLead, postgresRedisProblem, startStack, type Stack } from '../e2e/stack.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

const ROOT = join(import.meta.dirname, '../..');
const PG_PORT = Number(new URL(process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres').port || 5432);
if (postgresRedisProblem) console.warn(`skipping "database outage": ${postgresRedisProblem}`);
const suite = postgresRedisProblem ? describe.skip : describe;

let proxy: TcpProxy;
let schema: string;
let stack: Stack;

const event = (phone: string, text: string) => leadTextEvent({ phone, text, token: INSTANCE_TOKEN, owner: CLINIC_PHONE });

const repliesTo = (phone: string) => stack.gateway.sent.filter((s) => s.number === phone).map((s) => s.text);

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

suite('database outage (PostgreSQL behind a proxy, queue mode on Redis)', () => {
  beforeAll(async () => {
    proxy = await startTcpProxy(PG_PORT);
    schema = await createTestSchema();
    stack = await startStack({
      backend: 'postgres+redis',
      databaseUrl: withSearchPath(`postgres://postgres@127.0.0.1:${proxy.port}/postgres`, schema),
      env: { LEADFLOW_DEBOUNCE_MS: '1500', LEADFLOW_DEBOUNCE_MAX_MS: '10000', LEADFLOW_FLOWS_DIR: join(ROOT, 'flows') },
    });
  });

  afterAll(async () => {
    proxy?.up();
    await stack?.close();
    if (schema) await dropTestSchema(schema);
    await proxy?.close();
  });

  it('a webhook during the outage gets 503 and records nothing', async () => {
    const phone = '5511944440001';
    await insertLead(stack, phone);
    const before = (await stack.executions()).length;
    proxy.down();
    try {
      const res = await stack.post('/leadagent', event(phone, 'Oi'));
      // The token check reads the instances table: unreachable -> refused before any execution.
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const body = await res.json();
      expect(JSON.stringify(body)).not.toMatch(/ECONN|postgres|127\.0\.0\.1|stack/i);
    } finally {
      proxy.up();
    }
    await new Promise((r) => setTimeout(r, 300));
    expect((await stack.executions()).length).toBe(before);
    expect(repliesTo(phone)).toEqual([]);
  }, 60_000);

  it('a grouping window that ends while the database is away: answered once when it is back', async () => {
    const phone = '5511944440002';
    await insertLead(stack, phone);
    const res = await stack.post('/leadagent', event(phone, 'Oi, tudo bem?'));
    expect(await res.json()).toEqual({ status: 'queued' });
    proxy.down();
    await new Promise((r) => setTimeout(r, 4000));
    expect(repliesTo(phone)).toEqual([]);
    proxy.up();
    await until('the lead to be answered after the outage', () => repliesTo(phone).length >= 1, 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
    const rows = await stack.runtime.db.find('wf_chat_histories', {
      where: { session_id: phone },
      order_by: [{ column: 'id', direction: 'asc' }],
    });
    expect(rows.map((r) => [r.type, r.content])).toEqual([
      ['lead', 'Oi, tudo bem?'],
      ['agent', 'Olá! Como posso ajudar?'],
    ]);
  }, 90_000);
});
