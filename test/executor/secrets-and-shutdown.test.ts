import { afterEach, describe, expect, it } from 'vitest';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { makeEngine, shutdownEngines, waitForEnd } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

const callFlow = (url: string) => `
name: call
steps:
  - id: call
    type: http.request
    params:
      method: POST
      url: "${url}/x"
      headers: { Authorization: "Bearer live-credential", token: "{{ trigger.body.t }}" }
      body: { nested: { api_key: "k-123", keep: "visible", app_secret: "as-1", verify_token: "vt-2", jwt_key: "jk-3", max_tokens: 300 } }
`;

describe('credentials in execution records', () => {
  it('records resolved params with credential-named members masked, while the call gets the real values', async () => {
    const server = await startServer(() => ({ json: { accepted: true } }));
    const engine = makeEngine(callFlow(server.url));
    await engine.startScheduler();
    const handle = await engine.start('call', { body: { t: 'tok-999' } });
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer live-credential');
    expect(server.requests[0]!.headers.token).toBe('tok-999');
    const params = record.steps[0]!.params as { headers: Record<string, string>; body: { nested: Record<string, unknown> } };
    expect(params.headers).toEqual({ Authorization: '***', token: '***' });
    const masked = { api_key: '***', keep: 'visible', app_secret: '***', verify_token: '***', jwt_key: '***', max_tokens: 300 };
    expect(params.body.nested).toEqual(masked);
    const stored = JSON.stringify(await engine.store.get(handle.id));
    for (const secret of ['live-credential', 'k-123', 'as-1', 'vt-2', 'jk-3']) expect(stored).not.toContain(secret);
    expect(record.outbound[0]!.body).toEqual({ nested: masked });
  });
});

describe('shutdown during a step', () => {
  it('hands the execution back as due, and a new engine on the same store finishes it', async () => {
    const server = await startServer((_req, index) => (index === 0 ? { delayMs: 2_000, json: { slow: true } } : { json: { ok: true } }));
    const store = new MemoryExecutionStore();
    const first = makeEngine(callFlow(server.url), { store });
    await first.startScheduler();
    const handle = await first.start('call', { body: { t: 'tok' } });
    await new Promise((r) => setTimeout(r, 200));
    await first.shutdown();
    const parked = await store.get(handle.id);
    expect(parked?.status).toBe('waiting');
    expect(parked?.wake_at).toBeLessThanOrEqual(Date.now());

    const second = makeEngine(callFlow(server.url), { store });
    await second.startScheduler();
    const done = await waitForEnd(second, handle.id);
    expect(done.status).toBe('success');
    expect(done.steps.find((s) => s.id === 'call')?.output).toMatchObject({ body: { ok: true } });
    // The resumed step re-resolved its params (the stored ones are masked) and sent the real token.
    expect(server.requests[1]!.headers.token).toBe('tok');
  });
});
