// UazapiClient against the fake uazapi server: request shapes, retries (429 with Retry-After, 5xx,
// connection reset / refused), no retry on other 4xx, timeouts, unusable answers, and the token kept
// out of every error.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayHttpError } from '../../adapters/gateway/errors/gateway-http-error.js';
import { GatewayNetworkError } from '../../adapters/gateway/errors/gateway-network-error.js';
import { GatewayResponseError } from '../../adapters/gateway/errors/gateway-response-error.js';
import { GatewayTimeoutError } from '../../adapters/gateway/errors/gateway-timeout-error.js';
import { UazapiClient, uazapiClientFactory, type UazapiClientOptions } from '../../adapters/gateway/uazapi/client.js';
import { type FakeGateway, startFakeGateway } from '../fakes/fake-gateway.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { errorText, rejection } from './helpers/errors.js';

const TOKEN = 'tok-S3CRET-7f9a2c';
let fake: FakeGateway;
/** Every error a test saw; afterEach checks none of them carries the token. */
let seen: unknown[] = [];

beforeEach(async () => {
  fake = await startFakeGateway({ tokens: { [TOKEN]: '5511912345678' } });
  seen = [];
});

afterEach(async () => {
  for (const err of seen) expect(errorText(err)).not.toContain(TOKEN);
  await fake.close();
  await closeServers();
});

function client(options: Partial<UazapiClientOptions> = {}): UazapiClient {
  return new UazapiClient({ serverUrl: fake.url, token: TOKEN, retries: 2, baseDelayMs: 5, maxDelayMs: 20, ...options });
}

async function failure(promise: Promise<unknown>): Promise<any> {
  const err = await rejection(promise);
  seen.push(err);
  return err;
}

describe('sendText', () => {
  it('POSTs {number, text, delay} to /send/text with the token header and returns the message id', async () => {
    const result = await client().sendText({ number: '5543999806366', text: 'Olá, Maria!', delay: 1200 });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/send/text');
    expect(req.headers.token).toBe(TOKEN);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ number: '5543999806366', text: 'Olá, Maria!', delay: 1200 });
    expect(result.messageid).toMatch(/^3EB0[0-9A-F]{16}$/);
    expect(result.answer).toMatchObject({
      messageid: result.messageid,
      chatid: '5543999806366@s.whatsapp.net',
      response: { status: 'success' },
    });
  });

  it('sends delay 0 when none is given, and drops a trailing slash of server_url', async () => {
    await new UazapiClient({ serverUrl: `${fake.url}/`, token: TOKEN }).sendText({ number: '5511987654321', text: 'oi' });
    expect(fake.requests[0]!.path).toBe('/send/text');
    expect(fake.requests[0]!.body.delay).toBe(0);
  });

  it('takes the id after "owner:" of `id` when the answer has no messageid', async () => {
    const server = await startServer(() => ({ json: { id: '5511912345678:3EB0ABCDEF', response: { status: 'success' } } }));
    const result = await new UazapiClient({ serverUrl: server.url, token: TOKEN }).sendText({ number: '5511987654321', text: 'oi' });
    expect(result.messageid).toBe('3EB0ABCDEF');
  });

  it('refuses a number that is not digits before any request', async () => {
    await expect(client().sendText({ number: '5511987654321@s.whatsapp.net', text: 'oi' })).rejects.toThrow(TypeError);
    expect(fake.requests).toHaveLength(0);
  });

  it('the time limit of a send is timeoutMs plus its delay (the gateway may hold the answer while "typing")', async () => {
    const holding = await startFakeGateway({ tokens: { [TOKEN]: '5511912345678' }, holdForDelay: true });
    try {
      const c = new UazapiClient({ serverUrl: holding.url, token: TOKEN, timeoutMs: 200, retries: 0 });
      await expect(c.sendText({ number: '5511987654321', text: 'oi', delay: 400 })).resolves.toMatchObject({
        messageid: expect.any(String),
      });
    } finally {
      await holding.close();
    }
  });
});

describe('downloadMedia', () => {
  const audio = Buffer.from('OggS\x00\x02fake-opus-bytes\xff\xfe', 'latin1');

  it('POSTs {id, return_base64: true, return_link: false} and decodes base64Data to bytes', async () => {
    fake.setMedia('3EB0AUD1', { mimetype: 'audio/ogg; codecs=opus', bytes: audio });
    const media = await client().downloadMedia('3EB0AUD1');
    expect(fake.requests[0]!.path).toBe('/message/download');
    expect(fake.requests[0]!.headers.token).toBe(TOKEN);
    expect(fake.requests[0]!.body).toEqual({ id: '3EB0AUD1', return_base64: true, return_link: false });
    expect(media.mimetype).toBe('audio/ogg; codecs=opus');
    expect(media.bytes.equals(audio)).toBe(true);
    expect(media.transcription).toBeUndefined();
  });

  it('returns the transcription when the gateway sends one, and accepts a data: URL prefix', async () => {
    fake.setMedia('3EB0AUD2', { mimetype: 'audio/mpeg', bytes: audio, transcription: 'quero agendar', dataUrl: true });
    const media = await client().downloadMedia('3EB0AUD2');
    expect(media.bytes.equals(audio)).toBe(true);
    expect(media.transcription).toBe('quero agendar');
  });

  it('an answer without base64Data, or with text that is not base64, is a GatewayResponseError', async () => {
    const server = await startServer((req) => ({
      json: (req.json as { id: string }).id === 'none' ? { mimetype: 'image/jpeg' } : { mimetype: 'image/jpeg', base64Data: 'not base64!' },
    }));
    const c = new UazapiClient({ serverUrl: server.url, token: TOKEN, retries: 2 });
    expect(await failure(c.downloadMedia('none'))).toBeInstanceOf(GatewayResponseError);
    expect(await failure(c.downloadMedia('bad'))).toBeInstanceOf(GatewayResponseError);
    expect(server.requests).toHaveLength(2);
  });

  it('an answer larger than maxDownloadBytes is refused', async () => {
    fake.setMedia('big', { mimetype: 'video/mp4', bytes: Buffer.alloc(10_000) });
    const err = await failure(client({ maxDownloadBytes: 5_000 }).downloadMedia('big'));
    expect(err).toBeInstanceOf(GatewayResponseError);
    expect(err.message).toMatch(/larger than 5000 bytes/);
  });
});

describe('retries', () => {
  it('429 with Retry-After: waits that long (not the short backoff), then succeeds', async () => {
    fake.failNext('429', 1, { retryAfter: '1' });
    const result = await client({ baseDelayMs: 1 }).sendText({ number: '5511987654321', text: 'oi' });
    expect(result.messageid).toEqual(expect.any(String));
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(950);
    expect(fake.sent).toEqual([{ number: '5511987654321', text: 'oi', delay: 0 }]);
  });

  it('429 asking for more than maxRetryAfterMs fails at once, carrying retryAfterMs', async () => {
    fake.failNext('429', 1, { retryAfter: '120' });
    const err = await failure(client({ maxRetryAfterMs: 30_000 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(120_000);
    expect(err.body).toEqual({ error: 'Rate limit exceeded' });
    expect(fake.requests).toHaveLength(1);
  });

  it('429 without Retry-After: backoff retries, then the 429 error after retries + 1 attempts', async () => {
    fake.failNext('429', 5, { retryAfter: null });
    const err = await failure(client({ retries: 2 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err.status).toBe(429);
    expect(fake.requests).toHaveLength(3);
  });

  it('500: retried until it succeeds', async () => {
    fake.failNext('500', 2);
    const result = await client({ retries: 2 }).sendText({ number: '5511987654321', text: 'oi' });
    expect(result.messageid).toEqual(expect.any(String));
    expect(fake.requests).toHaveLength(3);
    expect(fake.sent).toHaveLength(1);
  });

  it('500 past the retries: GatewayHttpError with status and body', async () => {
    fake.failNext('500', 10);
    const err = await failure(client({ retries: 3 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ status: 500, body: { error: 'Failed to send message' }, url: `${fake.url}/send/text` });
    expect(err.message).toContain('Failed to send message');
    expect(fake.requests).toHaveLength(4);
  });

  it('backoff delays grow between attempts', async () => {
    fake.failNext('500', 3);
    await client({ retries: 3, baseDelayMs: 40, maxDelayMs: 1000, random: () => 0 }).sendText({ number: '5511987654321', text: 'oi' });
    const gaps = fake.requests.slice(1).map((r, i) => r.at - fake.requests[i]!.at);
    // Equal jitter with random 0: 20, 40, 80 ms.
    expect(gaps[0]).toBeGreaterThanOrEqual(18);
    expect(gaps[1]).toBeGreaterThanOrEqual(38);
    expect(gaps[2]).toBeGreaterThanOrEqual(78);
  });

  it('connection reset: retried', async () => {
    fake.failNext('reset', 1);
    fake.setMedia('m1', { mimetype: 'image/jpeg', bytes: Buffer.from([1, 2, 3]) });
    const media = await client().downloadMedia('m1');
    expect([...media.bytes]).toEqual([1, 2, 3]);
    expect(fake.requests).toHaveLength(2);
  });

  it('connection reset on every attempt: GatewayNetworkError', async () => {
    fake.failNext('reset', 5);
    const err = await failure(client({ retries: 2 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect(err.cause).toBeDefined();
    expect(fake.requests).toHaveLength(3);
  });

  it('connection refused: retried, then GatewayNetworkError with the system code', async () => {
    const url = fake.url;
    await fake.close();
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const err = await failure(
      new UazapiClient({ serverUrl: url, token: TOKEN, retries: 2, baseDelayMs: 1, fetch: counting }).sendText({
        number: '5511987654321',
        text: 'oi',
      }),
    );
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect(err.code).toBe('ECONNREFUSED');
    expect(calls).toBe(3);
  });

  it('reports each retry to the logger, without the token', async () => {
    const lines: Array<{ fields: object; message: string }> = [];
    fake.failNext('500', 1);
    await client({ logger: { warn: (fields, message) => lines.push({ fields, message }) } }).sendText({
      number: '5511987654321',
      text: 'oi',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.fields).toMatchObject({ gateway: `${fake.url}/send/text`, attempt: 1 });
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
});

describe('no retry on other 4xx', () => {
  it('400 (missing text): one request, status and body', async () => {
    const err = await failure(client().sendText({ number: '5511987654321', text: '' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ status: 400, body: { error: 'Missing number or text' } });
    expect(fake.requests).toHaveLength(1);
  });

  it('401 (wrong token): one request; neither token in the error', async () => {
    const c = new UazapiClient({ serverUrl: fake.url, token: 'wrong-token-xyz', retries: 3, baseDelayMs: 1 });
    const err = await rejection(c.sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ status: 401, body: { error: 'Invalid token' } });
    expect(errorText(err)).not.toContain('wrong-token-xyz');
    expect(fake.requests).toHaveLength(1);
  });

  it('404 (unknown message): one request', async () => {
    const err = await failure(client().downloadMedia('3EB0MISSING'));
    expect(err).toMatchObject({ name: 'GatewayHttpError', status: 404, body: { error: 'Message not found' } });
    expect(fake.requests).toHaveLength(1);
  });
});

describe('timeouts and unusable answers', () => {
  it('a send that hangs: GatewayTimeoutError, not retried (it may have been delivered)', async () => {
    fake.failNext('hang', 5);
    const started = Date.now();
    const err = await failure(client({ timeoutMs: 150, retries: 3 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect(err).toMatchObject({ code: 'timeout', timeoutMs: 150 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.requests).toHaveLength(1);
  });

  it('a download that hangs is retried (it changes nothing), then times out for good', async () => {
    fake.failNext('hang', 5);
    fake.setMedia('m1', { mimetype: 'image/jpeg', bytes: Buffer.from([1]) });
    const err = await failure(client({ timeoutMs: 100, retries: 2 }).downloadMedia('m1'));
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect(fake.requests).toHaveLength(3);
  });

  it('a slow first answer then a fast one: the download succeeds on retry', async () => {
    fake.failNext('hang', 1, { ms: 1000 });
    fake.setMedia('m1', { mimetype: 'image/jpeg', bytes: Buffer.from([7]) });
    const media = await client({ timeoutMs: 150, retries: 1 }).downloadMedia('m1');
    expect([...media.bytes]).toEqual([7]);
    expect(fake.requests).toHaveLength(2);
  });

  it('malformed JSON with 200: GatewayResponseError, not retried', async () => {
    fake.failNext('malformed', 1);
    const err = await failure(client({ retries: 3 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayResponseError);
    expect(err.message).toMatch(/not JSON/);
    expect(fake.requests).toHaveLength(1);
  });

  it("the caller's abort ends the call with its reason, without retries", async () => {
    fake.failNext('hang', 5);
    const controller = new AbortController();
    const reason = new Error('shutting down');
    setTimeout(() => controller.abort(reason), 50);
    const err = await failure(client({ timeoutMs: 5000, retries: 3 }).downloadMedia('m1', { signal: controller.signal }));
    expect(err).toBe(reason);
    expect(fake.requests).toHaveLength(1);
  });

  it("the caller's abort also ends a retry wait", async () => {
    fake.failNext('429', 1, { retryAfter: '10' });
    const controller = new AbortController();
    const reason = new Error('cancelled');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    const err = await failure(client().sendText({ number: '5511987654321', text: 'oi' }, { signal: controller.signal }));
    expect(err).toBe(reason);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('the token', () => {
  it('is removed from an error body that echoes it', async () => {
    const server = await startServer((req) => ({
      status: 401,
      json: { error: `Invalid token ${String(req.headers.token)}`, token: req.headers.token },
    }));
    const err = await failure(new UazapiClient({ serverUrl: server.url, token: TOKEN }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err.body).toEqual({ error: 'Invalid token ***', token: '***' });
  });

  it('is removed from a malformed answer quoted in the error', async () => {
    const server = await startServer((req) => ({
      text: `oops ${String(req.headers.token)}`,
      headers: { 'content-type': 'application/json' },
    }));
    const err = await failure(new UazapiClient({ serverUrl: server.url, token: TOKEN }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayResponseError);
    expect(err.message).toContain('oops ***');
  });

  it('does not show when the client is serialised or inspected', async () => {
    const c = client();
    expect(JSON.stringify(c)).not.toContain(TOKEN);
    expect(JSON.stringify({ ...c })).not.toContain(TOKEN);
    const { inspect } = await import('node:util');
    expect(inspect(c, { depth: 5 })).not.toContain(TOKEN);
  });

  it('the factory builds a client per instance row', async () => {
    const factory = uazapiClientFactory({ retries: 0 });
    const c = factory({ provider: 'uazapi', server_url: fake.url, token: TOKEN, external_id: null, templates: null });
    expect(c.serverUrl).toBe(fake.url);
    expect(c.provider).toBe('uazapi');
    await c.sendText({ number: '5511987654321', text: 'oi' });
    expect(fake.requests[0]!.headers.token).toBe(TOKEN);
  });

  it('bad construction input is refused without echoing the token', () => {
    expect(() => new UazapiClient({ serverUrl: 'ftp://x', token: TOKEN })).toThrow(/http\(s\)/);
    expect(() => new UazapiClient({ serverUrl: 'not a url', token: TOKEN })).toThrow(/not a valid URL/);
    expect(() => new UazapiClient({ serverUrl: fake.url, token: '' })).toThrow(/token is empty/);
  });
});
