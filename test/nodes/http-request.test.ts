import { afterEach, describe, expect, it } from 'vitest';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { runFlow, shutdownEngines, stepRecord, stepOutput as output } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

const postFlow = `
name: post
steps:
  - id: send
    type: http.request
    params:
      method: POST
      url: "{{ trigger.body.url }}/send/text"
      headers: { x-custom: "abc", token: "instance-token-1", Authorization: "Bearer sk-123" }
      query: { page: 2, q: "a b&c", flag: true }
      body: { number: "{{ trigger.body.phone }}", text: "Olá!", list: [1, 2] }
`;

describe('http.request', () => {
  it('sends method, url, headers, query and a JSON body; parses a JSON answer', async () => {
    const server = await startServer((req) => ({ status: 201, headers: { 'x-answer': 'yes' }, json: { received: req.json } }));
    const { record } = await runFlow(postFlow, { body: { url: server.url, phone: '5511987654321' } });
    expect(record.status).toBe('success');
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/send/text');
    expect(req.query).toEqual({ page: '2', q: 'a b&c', flag: 'true' });
    expect(req.headers['x-custom']).toBe('abc');
    expect(req.headers.token).toBe('instance-token-1');
    expect(req.headers.authorization).toBe('Bearer sk-123');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({ number: '5511987654321', text: 'Olá!', list: [1, 2] });

    const out = output(record, 'send');
    expect(out.status).toBe(201);
    expect(out.headers['x-answer']).toBe('yes');
    expect(out.body).toEqual({ received: { number: '5511987654321', text: 'Olá!', list: [1, 2] } });
    // Performed calls are recorded too, with secrets masked.
    expect(record.outbound).toEqual([
      expect.objectContaining({
        step: 'send',
        kind: 'http',
        performed: true,
        headers: { 'x-custom': 'abc', token: '***', Authorization: '***', 'content-type': 'application/json' },
      }),
    ]);
    expect(JSON.stringify(record.outbound)).not.toContain('sk-123');
  });

  it('keeps an explicit content-type and sends no body on GET', async () => {
    const server = await startServer();
    const { record } = await runFlow(
      `
name: get
steps:
  - id: get
    type: http.request
    params: { url: "{{ trigger.body.url }}/x", body: { ignored: true } }
  - id: put
    type: http.request
    params: { url: "{{ trigger.body.url }}/y", method: PUT, headers: { Content-Type: "application/vnd.api+json" }, body: { a: 1 } }
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('success');
    expect(server.requests[0]).toMatchObject({ method: 'GET', text: '' });
    expect(server.requests[0]!.headers['content-type']).toBeUndefined();
    expect(server.requests[1]).toMatchObject({ method: 'PUT', json: { a: 1 } });
    expect(server.requests[1]!.headers['content-type']).toBe('application/vnd.api+json');
  });

  it('returns a text answer as text', async () => {
    const server = await startServer(() => ({ text: 'plain ok' }));
    const { record } = await runFlow(
      `
name: text
steps:
  - id: get
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
`,
      { body: { url: server.url } },
    );
    expect(output(record, 'get').body).toBe('plain ok');
    expect(output(record, 'get').headers['content-type']).toMatch(/^text\/plain/);
  });

  it('turns a non-2xx answer into an error with status and body (JSON or text)', async () => {
    const server = await startServer((req) =>
      req.path === '/json' ? { status: 422, json: { error: 'invalid number' } } : { status: 503, text: 'try later' },
    );
    const flow = `
name: errors
steps:
  - id: json
    type: http.request
    params: { url: "{{ trigger.body.url }}/json", method: POST, body: {} }
    on_error: continue
  - id: text
    type: http.request
    params: { url: "{{ trigger.body.url }}/text?x=1" }
    on_error: continue
`;
    const { record } = await runFlow(flow, { body: { url: server.url } });
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'json').error).toEqual({
      name: 'HttpStatusError',
      message: `HTTP 422 from ${server.url}/json`,
      status: 422,
      body: { error: 'invalid number' },
    });
    expect(stepRecord(record, 'text').error).toEqual({
      name: 'HttpStatusError',
      message: `HTTP 503 from ${server.url}/text`,
      status: 503,
      body: 'try later',
    });
  });

  it('gives up after timeout_ms', async () => {
    const server = await startServer(() => ({ json: {}, delayMs: 2000 }));
    const { record } = await runFlow(
      `
name: slow
steps:
  - id: slow
    type: http.request
    params: { url: "{{ trigger.body.url }}/slow", timeout_ms: 150 }
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ name: 'TimeoutError', code: 'timeout', step: 'slow' });
    expect(record.error?.message).toContain(`timed out after 150 ms: GET ${server.url}/slow`);
    const ms = stepRecord(record, 'slow').ms;
    expect(ms).toBeGreaterThanOrEqual(140);
    expect(ms).toBeLessThan(1500);
  });

  it('fails when nothing listens', async () => {
    const server = await startServer();
    const url = server.url;
    await server.close();
    const { record } = await runFlow(
      `
name: refused
steps:
  - id: call
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
`,
      { body: { url } },
    );
    expect(record.status).toBe('failed');
    expect(record.error?.step).toBe('call');
  });

  it('in dry-run records the call (secret headers masked) and makes no request', async () => {
    const server = await startServer();
    const { record } = await runFlow(postFlow, { body: { url: server.url, phone: '123' }, start: { dryRun: true } });
    expect(record.status).toBe('success');
    expect(record.dry_run).toBe(true);
    expect(server.requests).toHaveLength(0);
    expect(record.outbound).toEqual([
      {
        step: 'send',
        kind: 'http',
        method: 'POST',
        url: `${server.url}/send/text?page=2&q=a+b%26c&flag=true`,
        headers: { 'x-custom': 'abc', token: '***', Authorization: '***', 'content-type': 'application/json' },
        body: { number: '123', text: 'Olá!', list: [1, 2] },
        performed: false,
      },
    ]);
    expect(output(record, 'send')).toEqual({ status: 0, dry_run: true, headers: {}, body: null });
    const text = JSON.stringify(record.outbound);
    expect(text).not.toContain('instance-token-1');
    expect(text).not.toContain('sk-123');
  });
});
