// EvolutionClient against the fake Evolution server: request shapes (path with the instance name,
// `apikey` header, bodies), answers mapped (key.id, base64), retries (429 with Retry-After, 5xx,
// Evolution's 400-wrapped rate limit and dropped connection, connection reset / refused), no retry on
// other 4xx, timeouts, unusable answers, and the API key kept out of every error.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayHttpError } from '../../../adapters/gateway/errors/gateway-http-error.js';
import { GatewayNetworkError } from '../../../adapters/gateway/errors/gateway-network-error.js';
import { GatewayResponseError } from '../../../adapters/gateway/errors/gateway-response-error.js';
import { GatewayTimeoutError } from '../../../adapters/gateway/errors/gateway-timeout-error.js';
import { EvolutionClient, evolutionClientFactory, type EvolutionClientOptions } from '../../../adapters/gateway/evolution/client.js';
import { isIgnoredEvolutionEvent, parseEvolutionEvent } from '../../../adapters/gateway/evolution/events.js';
import { evolutionErrorStatus } from '../../../adapters/gateway/evolution/error-answers.js';
import type { GatewayCallEvent } from '../../../adapters/gateway/uazapi/client.js';
import { evolutionEvent, type FakeEvolution, startFakeEvolution } from '../../fakes/evolution-server.js';
import { closeServers, startServer } from '../../helpers/http-echo-server.js';
import { errorText, rejection } from '../helpers/errors.js';

const KEY = 'evo-K3Y-5ecr3t-91b2';
const GLOBAL = 'evo-GL0BAL-77aa';
const INSTANCE = 'clinica-aurora';
let fake: FakeEvolution;
/** Every error a test saw; afterEach checks none of them carries a key. */
let seen: unknown[] = [];

beforeEach(async () => {
  fake = await startFakeEvolution({ instances: { [INSTANCE]: KEY, 'clínica centro/2': KEY }, globalApiKey: GLOBAL });
  seen = [];
});

afterEach(async () => {
  for (const err of seen) {
    expect(errorText(err)).not.toContain(KEY);
    expect(errorText(err)).not.toContain(GLOBAL);
  }
  await fake.close();
  await closeServers();
});

function client(options: Partial<EvolutionClientOptions> = {}): EvolutionClient {
  return new EvolutionClient({
    serverUrl: fake.url,
    token: KEY,
    instanceName: INSTANCE,
    retries: 2,
    baseDelayMs: 5,
    maxDelayMs: 20,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<any> {
  const err = await rejection(promise);
  seen.push(err);
  return err;
}

describe('sendText', () => {
  it('POSTs {number, text, delay} to /message/sendText/{instance} with the apikey header; messageid is key.id', async () => {
    const result = await client().sendText({ number: '5543999806366', text: 'Olá, Maria!', delay: 1200 });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/message/sendText/${INSTANCE}`);
    expect(req.headers.apikey).toBe(KEY);
    expect(req.headers.token).toBeUndefined();
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({ number: '5543999806366', text: 'Olá, Maria!', delay: 1200 });
    expect(req.status).toBe(201);
    expect(result.messageid).toMatch(/^3EB0[0-9A-F]{18}$/);
    expect(result.answer).toMatchObject({
      key: { remoteJid: '5543999806366@s.whatsapp.net', fromMe: true, id: result.messageid },
      status: 'PENDING',
      message: { conversation: 'Olá, Maria!' },
    });
  });

  it('the client says which provider it is, and shows no key when serialised', () => {
    const c = client();
    expect(c.provider).toBe('evolution');
    expect(c.instanceName).toBe(INSTANCE);
    expect(JSON.parse(JSON.stringify(c))).toEqual({ provider: 'evolution', serverUrl: fake.url, instanceName: INSTANCE });
  });

  it('URL-encodes the instance name, sends delay 0 when none is given, drops a trailing slash of server_url', async () => {
    await new EvolutionClient({ serverUrl: `${fake.url}/`, token: KEY, instanceName: 'clínica centro/2' }).sendText({
      number: '5511987654321',
      text: 'oi',
    });
    const req = fake.requests[0]!;
    expect(req.path).toBe('/message/sendText/cl%C3%ADnica%20centro%2F2');
    expect(req.instance).toBe('clínica centro/2');
    expect(req.status).toBe(201);
    expect(req.body.delay).toBe(0);
  });

  it("the server's global API key works as the token too", async () => {
    await expect(client({ token: GLOBAL }).sendText({ number: '5511987654321', text: 'oi' })).resolves.toMatchObject({
      messageid: expect.any(String),
    });
  });

  it('messageid is null when the answer has no key.id', async () => {
    const server = await startServer(() => ({ status: 201, json: { status: 'PENDING' } }));
    const result = await new EvolutionClient({ serverUrl: server.url, token: KEY, instanceName: INSTANCE }).sendText({
      number: '5511987654321',
      text: 'oi',
    });
    expect(result).toEqual({ messageid: null, answer: { status: 'PENDING' } });
  });

  it('refuses a number that is not digits before any request', async () => {
    await expect(client().sendText({ number: '5511987654321@s.whatsapp.net', text: 'oi' })).rejects.toThrow(TypeError);
    expect(fake.requests).toHaveLength(0);
  });

  it('the time limit of a send is timeoutMs plus its delay (Evolution shows "typing…" inside the request)', async () => {
    const holding = await startFakeEvolution({ instances: { [INSTANCE]: KEY }, holdForDelay: true });
    try {
      const c = new EvolutionClient({ serverUrl: holding.url, token: KEY, instanceName: INSTANCE, timeoutMs: 200, retries: 0 });
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

  it('POSTs {message: {key: {id}}, convertToMp4: false} to /chat/getBase64FromMediaMessage/{instance} and decodes base64', async () => {
    fake.setMedia('3A7C3D4E5F6071829304', { mimetype: 'audio/ogg; codecs=opus', bytes: audio });
    const media = await client().downloadMedia('3A7C3D4E5F6071829304');
    const req = fake.requests[0]!;
    expect(req.path).toBe(`/chat/getBase64FromMediaMessage/${INSTANCE}`);
    expect(req.headers.apikey).toBe(KEY);
    expect(req.body).toEqual({ message: { key: { id: '3A7C3D4E5F6071829304' } }, convertToMp4: false });
    expect(req.status).toBe(201);
    expect(media.mimetype).toBe('audio/ogg; codecs=opus');
    expect(media.bytes.equals(audio)).toBe(true);
    expect(media.transcription).toBeUndefined();
  });

  it('an unknown message: 400 Message not found, one request, Evolution body kept', async () => {
    const err = await failure(client().downloadMedia('3AMISSING'));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ status: 400, body: { status: 400, error: 'Bad Request', response: { message: ['Message not found'] } } });
    expect(fake.requests).toHaveLength(1);
  });

  it('an answer of null, without base64, or with text that is not base64 is a GatewayResponseError, not retried', async () => {
    const server = await startServer((req) => {
      const id = (req.json as any).message.key.id as string;
      if (id === 'null') return { status: 201, json: null };
      if (id === 'none') return { status: 201, json: { mediaType: 'imageMessage', mimetype: 'image/jpeg' } };
      return { status: 201, json: { mimetype: 'image/jpeg', base64: 'not base64!' } };
    });
    const c = new EvolutionClient({ serverUrl: server.url, token: KEY, instanceName: INSTANCE, retries: 2 });
    expect(await failure(c.downloadMedia('null'))).toBeInstanceOf(GatewayResponseError);
    expect((await failure(c.downloadMedia('none'))).message).toMatch(/no base64/);
    expect((await failure(c.downloadMedia('bad'))).message).toMatch(/not base64/);
    expect(server.requests).toHaveLength(3);
  });

  it('an answer larger than maxDownloadBytes is refused', async () => {
    fake.setMedia('big', { mimetype: 'video/mp4', bytes: Buffer.alloc(10_000) });
    const err = await failure(client({ maxDownloadBytes: 5_000 }).downloadMedia('big'));
    expect(err).toBeInstanceOf(GatewayResponseError);
    expect(err.message).toMatch(/larger than 5000 bytes/);
  });

  it("downloads by the parsed webhook's media_ref", async () => {
    const event = parseEvolutionEvent(evolutionEvent('audio'));
    if (isIgnoredEvolutionEvent(event) || !event.media_ref) throw new Error('expected an audio message with media_ref');
    fake.setMedia(event.media_ref, { mimetype: event.mimetype!, bytes: audio });
    const media = await client().downloadMedia(event.media_ref);
    expect(media).toEqual({ mimetype: 'audio/ogg; codecs=opus', bytes: audio });
  });

  it('refuses an empty message id before any request', async () => {
    await expect(client().downloadMedia(' ')).rejects.toThrow(TypeError);
    expect(fake.requests).toHaveLength(0);
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
    expect(err).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(fake.requests).toHaveLength(1);
  });

  it('500 Connection Closed: retried until it succeeds; one message sent', async () => {
    fake.failNext('500', 2);
    const result = await client({ retries: 2 }).sendText({ number: '5511987654321', text: 'oi' });
    expect(result.messageid).toEqual(expect.any(String));
    expect(fake.requests).toHaveLength(3);
    expect(fake.sent).toHaveLength(1);
  });

  it('500 past the retries: GatewayHttpError with status, Evolution body and url', async () => {
    fake.failNext('500', 10);
    const err = await failure(client({ retries: 3 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({
      status: 500,
      body: { status: 500, error: 'Internal Server Error', response: { message: 'Connection Closed' } },
      url: `${fake.url}/message/sendText/${INSTANCE}`,
    });
    expect(fake.requests).toHaveLength(4);
  });

  it("400 'Error: rate-overlimit' (WhatsApp's rate limit) is retried as a 429; past the retries it is reported as 429", async () => {
    fake.failNext('rate-overlimit', 1);
    await expect(client().sendText({ number: '5511987654321', text: 'oi' })).resolves.toMatchObject({ messageid: expect.any(String) });
    expect(fake.requests).toHaveLength(2);

    fake.requests.length = 0;
    fake.failNext('rate-overlimit', 5);
    const err = await failure(client({ retries: 2 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err.status).toBe(429);
    // Evolution's own body is kept as sent: its status field still says 400.
    expect(err.body).toEqual({ status: 400, error: 'Bad Request', response: { message: ['Error: rate-overlimit'] } });
    expect(fake.requests).toHaveLength(3);
  });

  it("400 'Error: Connection Closed' (the WhatsApp socket dropped before sending) is retried as a 503", async () => {
    fake.failNext('connection-closed', 2);
    fake.setMedia('m1', { mimetype: 'image/jpeg', bytes: Buffer.from([1, 2, 3]) });
    const media = await client().downloadMedia('m1');
    expect([...media.bytes]).toEqual([1, 2, 3]);
    expect(fake.requests).toHaveLength(3);
  });

  it('503 LICENSE_REQUIRED (2.4.0): retried like any 5xx, then reported with its body', async () => {
    fake.failNext('license-required', 5);
    const err = await failure(client({ retries: 1 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toMatchObject({ name: 'GatewayHttpError', status: 503, body: { code: 'LICENSE_REQUIRED' } });
    expect(err.message).toContain('service not activated');
    expect(fake.requests).toHaveLength(2);
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

  it('connection reset: retried; on every attempt: GatewayNetworkError', async () => {
    fake.failNext('reset', 1);
    fake.setMedia('m1', { mimetype: 'image/jpeg', bytes: Buffer.from([4]) });
    expect([...(await client().downloadMedia('m1')).bytes]).toEqual([4]);
    expect(fake.requests).toHaveLength(2);

    fake.requests.length = 0;
    fake.failNext('reset', 5);
    const err = await failure(client({ retries: 2 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayNetworkError);
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
      new EvolutionClient({ serverUrl: url, token: KEY, instanceName: INSTANCE, retries: 2, baseDelayMs: 1, fetch: counting }).sendText({
        number: '5511987654321',
        text: 'oi',
      }),
    );
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect(err.code).toBe('ECONNREFUSED');
    expect(calls).toBe(3);
  });

  it('reports retries to the logger and to onCall, without the key', async () => {
    const lines: Array<{ fields: object; message: string }> = [];
    const events: GatewayCallEvent[] = [];
    fake.failNext('500', 1);
    await client({ logger: { warn: (fields, message) => lines.push({ fields, message }) }, onCall: (e) => events.push(e) }).sendText({
      number: '5511987654321',
      text: 'oi',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.fields).toMatchObject({ gateway: `${fake.url}/message/sendText/${INSTANCE}`, attempt: 1 });
    expect(JSON.stringify(lines)).not.toContain(KEY);
    expect(events).toEqual([
      { provider: 'evolution', op: 'send', outcome: 'retried' },
      { provider: 'evolution', op: 'send', outcome: 'ok' },
    ]);
    await failure(client({ onCall: (e) => events.push(e) }).downloadMedia('3AMISSING'));
    expect(events.at(-1)).toEqual({ provider: 'evolution', op: 'download', outcome: 'error' });
  });
});

describe('no retry on other 4xx', () => {
  it("400 'Text is required': one request, Evolution's body", async () => {
    const err = await failure(client().sendText({ number: '5511987654321', text: ' ' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ status: 400, body: { response: { message: ['Text is required'] } } });
    expect(fake.requests).toHaveLength(1);
  });

  it('400 number not on WhatsApp (exists: false): one request', async () => {
    fake.setNotOnWhatsApp('5543999806366');
    const err = await failure(client().sendText({ number: '5543999806366', text: 'oi' }));
    expect(err).toMatchObject({
      status: 400,
      body: { response: { message: [{ jid: '5543999806366@s.whatsapp.net', exists: false, number: '5543999806366' }] } },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('401 (wrong key): one request; neither key in the error', async () => {
    const c = new EvolutionClient({ serverUrl: fake.url, token: 'wrong-key-xyz', instanceName: INSTANCE, retries: 3, baseDelayMs: 1 });
    const err = await rejection(c.sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ status: 401, body: { status: 401, error: 'Unauthorized', response: { message: 'Unauthorized' } } });
    expect(errorText(err)).not.toContain('wrong-key-xyz');
    expect(errorText(err)).not.toContain(KEY);
    expect(fake.requests).toHaveLength(1);
  });

  it('404 (unknown instance): one request', async () => {
    const err = await failure(client({ instanceName: 'nope' }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toMatchObject({ status: 404, body: { response: { message: ['The "nope" instance does not exist'] } } });
    expect(fake.requests).toHaveLength(1);
  });
});

describe('timeouts and unusable answers', () => {
  it('a send that hangs: GatewayTimeoutError, not retried (it may have been delivered)', async () => {
    fake.failNext('hang', 5);
    const err = await failure(client({ timeoutMs: 150, retries: 3 }).sendText({ number: '5511987654321', text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect(err).toMatchObject({ code: 'timeout', timeoutMs: 150 });
    expect(fake.requests).toHaveLength(1);
  });

  it('a download that hangs is retried (it changes nothing), then times out for good', async () => {
    fake.failNext('hang', 5);
    const err = await failure(client({ timeoutMs: 100, retries: 2 }).downloadMedia('m1'));
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect(fake.requests).toHaveLength(3);
  });

  it('malformed JSON with 201: GatewayResponseError, not retried', async () => {
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
});

describe('the key', () => {
  it('is removed from an error body that echoes it (also when the status is re-mapped)', async () => {
    const server = await startServer((req) => ({
      status: 400,
      json: { status: 400, error: 'Bad Request', response: { message: [`Error: rate-overlimit for ${String(req.headers.apikey)}`] } },
    }));
    const err = await failure(
      new EvolutionClient({ serverUrl: server.url, token: KEY, instanceName: INSTANCE, retries: 0 }).sendText({
        number: '5511987654321',
        text: 'oi',
      }),
    );
    expect(err.status).toBe(429);
    expect(err.body).toEqual({ status: 400, error: 'Bad Request', response: { message: ['Error: rate-overlimit for ***'] } });
  });

  it('does not show when the client is serialised or inspected', async () => {
    const c = client();
    expect(JSON.stringify(c)).not.toContain(KEY);
    expect(JSON.stringify({ ...c })).not.toContain(KEY);
    const { inspect } = await import('node:util');
    expect(inspect(c, { depth: 5 })).not.toContain(KEY);
  });

  it('the factory builds a client per instance row (external_id is the instance name)', async () => {
    const factory = evolutionClientFactory({ retries: 0 });
    const c = factory({ server_url: fake.url, token: KEY, external_id: INSTANCE });
    expect(c.serverUrl).toBe(fake.url);
    expect(c.provider).toBe('evolution');
    await c.sendText({ number: '5511987654321', text: 'oi' });
    expect(fake.requests[0]!.path).toBe(`/message/sendText/${INSTANCE}`);
    expect(fake.requests[0]!.headers.apikey).toBe(KEY);
  });

  it('bad construction input is refused without echoing the key', () => {
    const make = (o: Partial<EvolutionClientOptions>) => () =>
      new EvolutionClient({ serverUrl: fake.url, token: KEY, instanceName: INSTANCE, ...o });
    expect(make({ serverUrl: 'ftp://x' })).toThrow(/http\(s\)/);
    expect(make({ serverUrl: 'not a url' })).toThrow(/not a valid URL/);
    expect(make({ token: '' })).toThrow(/token \(instance API key\) is empty/);
    expect(make({ instanceName: '' })).toThrow(/instance name\) is empty/);
    expect(() => evolutionClientFactory()({ server_url: fake.url, token: KEY } as any)).toThrow(/instance name/);
  });
});

describe('evolutionErrorStatus', () => {
  it('maps the rate limit to 429 and a 400 Connection Closed to 503; leaves everything else', () => {
    const body = (message: unknown) => ({ status: 400, error: 'Bad Request', response: { message } });
    expect(evolutionErrorStatus(400, body(['Error: rate-overlimit']))).toBe(429);
    expect(evolutionErrorStatus(500, { status: 500, error: 'Internal Server Error', response: { message: 'rate-overlimit' } })).toBe(429);
    expect(evolutionErrorStatus(400, body(['Error: Connection Closed']))).toBe(503);
    expect(evolutionErrorStatus(500, body('Connection Closed'))).toBeUndefined();
    expect(evolutionErrorStatus(400, body(['Text is required']))).toBeUndefined();
    expect(evolutionErrorStatus(400, body([{ jid: '1@s.whatsapp.net', exists: false, number: '1' }]))).toBeUndefined();
    expect(evolutionErrorStatus(401, body('Unauthorized'))).toBeUndefined();
    expect(evolutionErrorStatus(503, { error: 'service not activated', code: 'LICENSE_REQUIRED' })).toBeUndefined();
    expect(evolutionErrorStatus(201, body(['Error: rate-overlimit']))).toBeUndefined();
    expect(evolutionErrorStatus(400, 'rate-overlimit')).toBeUndefined();
  });
});
