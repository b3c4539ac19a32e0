// CloudClient against the fake Graph API: request shapes (text, template, typing indicator, media in
// two steps), Meta's error codes mapped onto the typed gateway errors (131047 -> OutsideWindowError
// never retried; rate-limit and temporary codes retried with backoff whatever the HTTP status; 131048
// and other 4xx not retried), timeouts, limits, and the token kept out of every error.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudClient, cloudClientFactory, type CloudClientOptions } from '../../adapters/gateway/cloud/client.js';
import { GatewayHttpError } from '../../adapters/gateway/errors/gateway-http-error.js';
import { GatewayNetworkError } from '../../adapters/gateway/errors/gateway-network-error.js';
import { GatewayResponseError } from '../../adapters/gateway/errors/gateway-response-error.js';
import { GatewayTimeoutError } from '../../adapters/gateway/errors/gateway-timeout-error.js';
import { GraphApiError } from '../../adapters/gateway/cloud/errors.js';
import { OutsideWindowError } from '../../adapters/gateway/cloud/errors.js';
import { type FakeCloudApi, GRAPH_ERRORS, startFakeCloudApi } from '../fakes/cloud-api-server.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { errorText, rejection } from './helpers/errors.js';

const TOKEN = 'EAAG-cloud-S3CRET-token-7f9a2c';
const PNID = '106540352242922';
const LEAD = '5543999806366';
let fake: FakeCloudApi;
let seen: unknown[] = [];

beforeEach(async () => {
  fake = await startFakeCloudApi({ tokens: { [TOKEN]: [PNID] }, templates: ['lead_boas_vindas'] });
  seen = [];
});

afterEach(async () => {
  for (const err of seen) expect(errorText(err)).not.toContain(TOKEN);
  await fake.close();
  await closeServers();
});

function client(options: Partial<CloudClientOptions> = {}): CloudClient {
  return new CloudClient({
    serverUrl: fake.graphUrl,
    token: TOKEN,
    phoneNumberId: PNID,
    retries: 2,
    baseDelayMs: 5,
    maxDelayMs: 20,
    pairRateDelayMs: 30,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<any> {
  const err = await rejection(promise);
  seen.push(err);
  return err;
}

describe('sendText', () => {
  it('POSTs the text message to /{phone number id}/messages with the bearer token and returns messages[0].id', async () => {
    const c = client();
    expect(c.provider).toBe('cloud');
    const result = await c.sendText({ number: LEAD, text: 'Olá, Maria!' });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/v23.0/${PNID}/messages`);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: LEAD,
      type: 'text',
      text: { body: 'Olá, Maria!', preview_url: false },
    });
    expect(result.messageid).toMatch(/^wamid\./);
    expect(result.answer).toMatchObject({ messaging_product: 'whatsapp', contacts: [{ input: LEAD, wa_id: LEAD }] });
  });

  it('refuses a number that is not digits, an empty text and a text over 4096 characters, before any request', async () => {
    await expect(client().sendText({ number: '+5543999806366', text: 'oi' })).rejects.toThrow(TypeError);
    await expect(client().sendText({ number: `${LEAD}@s.whatsapp.net`, text: 'oi' })).rejects.toThrow(TypeError);
    await expect(client().sendText({ number: LEAD, text: '  ' })).rejects.toThrow(TypeError);
    await expect(client().sendText({ number: LEAD, text: 'x'.repeat(4097) })).rejects.toThrow(RangeError);
    expect(fake.requests).toHaveLength(0);
  });

  it('waits the typing delay locally before sending (the Cloud API has no delay parameter)', async () => {
    const started = Date.now();
    await client().sendText({ number: LEAD, text: 'oi', delay: 300 });
    expect(fake.requests[0]!.at - started).toBeGreaterThanOrEqual(290);
    expect(fake.requests[0]!.body).not.toHaveProperty('delay');
  });

  it('with the inbound message id: marks it read with the typing indicator, waits, then sends', async () => {
    const started = Date.now();
    await client().sendText({ number: LEAD, text: 'oi', delay: 200, typing_message_id: 'wamid.IN1' });
    expect(fake.requests.map((r) => r.body.status ?? r.body.type)).toEqual(['read', 'text']);
    expect(fake.typing).toEqual([
      { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.IN1', typing_indicator: { type: 'text' } },
    ]);
    expect(fake.requests[1]!.at - started).toBeGreaterThanOrEqual(190);
  });

  it('a failed typing indicator is logged (without the token) and the text still goes', async () => {
    const lines: Array<{ fields: object; message: string }> = [];
    fake.fail(1, 500);
    const result = await client({ logger: { warn: (fields, message) => lines.push({ fields, message }) } }).sendText({
      number: LEAD,
      text: 'oi',
      typing_message_id: 'wamid.IN1',
    });
    expect(result.messageid).toMatch(/^wamid\./);
    expect(fake.sent).toHaveLength(1);
    expect(lines.map((l) => l.message)).toEqual(['typing indicator failed']);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  it("the caller's abort ends the typing wait with its reason, and nothing is sent", async () => {
    const controller = new AbortController();
    const reason = new Error('lead erased');
    setTimeout(() => controller.abort(reason), 50);
    const err = await failure(client().sendText({ number: LEAD, text: 'oi', delay: 5000 }, { signal: controller.signal }));
    expect(err).toBe(reason);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('sendTemplate', () => {
  it('sends type template with language code and positional body parameters (reference §2.9)', async () => {
    const result = await client().sendTemplate({
      number: LEAD,
      template: { name: 'lead_boas_vindas', language: 'pt_BR' },
      parameters: ['Maria', 'Clínica Aurora'],
    });
    expect(fake.requests[0]!.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: LEAD,
      type: 'template',
      template: {
        name: 'lead_boas_vindas',
        language: { code: 'pt_BR' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Maria' },
              { type: 'text', text: 'Clínica Aurora' },
            ],
          },
        ],
      },
    });
    expect(result.messageid).toMatch(/^wamid\./);
    expect(result.answer).toMatchObject({ messages: [{ message_status: 'accepted' }] });
  });

  it('named parameters carry parameter_name; no parameters: no components', async () => {
    await client().sendTemplate({
      number: LEAD,
      template: { name: 'lead_boas_vindas', language: 'pt_BR', parameter_names: ['first_name', 'clinic'] },
      parameters: ['Maria', 'Clínica Aurora'],
    });
    expect(fake.requests[0]!.body.template.components[0].parameters).toEqual([
      { type: 'text', parameter_name: 'first_name', text: 'Maria' },
      { type: 'text', parameter_name: 'clinic', text: 'Clínica Aurora' },
    ]);
    await client().sendTemplate({ number: LEAD, template: { name: 'lead_boas_vindas', language: 'pt_BR' }, parameters: [] });
    expect(fake.requests[1]!.body.template).toEqual({ name: 'lead_boas_vindas', language: { code: 'pt_BR' } });
  });

  it('goes out to a number outside the 24-hour window, where free text is refused', async () => {
    fake.outsideWindow(LEAD);
    await client().sendTemplate({ number: LEAD, template: { name: 'lead_boas_vindas', language: 'pt_BR' }, parameters: ['Maria'] });
    expect(fake.sent).toHaveLength(1);
  });

  it('a template Meta does not know (132001) is a GraphApiError, not retried', async () => {
    const err = await failure(client().sendTemplate({ number: LEAD, template: { name: 'nao_existe', language: 'pt_BR' }, parameters: [] }));
    expect(err).toBeInstanceOf(GraphApiError);
    expect(err).toMatchObject({ status: 400, graphCode: 132001, rateLimited: false });
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses a parameter count that does not match parameter_names', async () => {
    await expect(
      client().sendTemplate({
        number: LEAD,
        template: { name: 'lead_boas_vindas', language: 'pt_BR', parameter_names: ['first_name'] },
        parameters: ['Maria', 'extra'],
      }),
    ).rejects.toThrow(/names 1 parameters, 2 given/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('outside the 24-hour window', () => {
  it('131047 is an OutsideWindowError (a GraphApiError / GatewayHttpError), never retried', async () => {
    fake.outsideWindow(LEAD);
    const err = await failure(client({ retries: 3 }).sendText({ number: LEAD, text: 'oi' }));
    expect(err).toBeInstanceOf(OutsideWindowError);
    expect(err).toBeInstanceOf(GraphApiError);
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ name: 'OutsideWindowError', status: 400, graphCode: 131047, outsideWindow: true, rateLimited: false });
    expect(err.details).toMatch(/More than 24 hours/);
    expect(err.message).toMatch(/^Graph API answered HTTP 400 to POST .*\/messages: \(#131047\) Re-engagement message: More than 24 hours/);
    expect(fake.requests).toHaveLength(1);
  });

  it('even with a 5xx status, 131047 is not retried (the code decides, not the status)', async () => {
    fake.fail(3, { ...GRAPH_ERRORS.outsideWindow, status: 500 });
    const err = await failure(client({ retries: 3 }).sendText({ number: LEAD, text: 'oi' }));
    expect(err).toBeInstanceOf(OutsideWindowError);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('rate limits and temporary errors: retried with backoff', () => {
  for (const [label, spec] of [
    ['130429 throughput', GRAPH_ERRORS.throughput],
    ['4 app call limit', GRAPH_ERRORS.appRate],
    ['80007 WABA limit', GRAPH_ERRORS.wabaRate],
    ['131000 temporary', GRAPH_ERRORS.temporary],
  ] as const) {
    it(`${label} (HTTP ${('status' in spec ? spec.status : undefined) ?? 400}): retried until it succeeds`, async () => {
      fake.fail(2, spec);
      const result = await client({ retries: 2 }).sendText({ number: LEAD, text: 'oi' });
      expect(result.messageid).toMatch(/^wamid\./);
      expect(fake.requests).toHaveLength(3);
      expect(fake.sent).toHaveLength(1);
    });
  }

  it('past the retries: GraphApiError with graphCode, rateLimited and the Graph body', async () => {
    fake.fail(5, GRAPH_ERRORS.throughput);
    const err = await failure(client({ retries: 2 }).sendText({ number: LEAD, text: 'oi' }));
    expect(err).toBeInstanceOf(GraphApiError);
    expect(err).toMatchObject({ status: 400, graphCode: 130429, graphSubcode: 2494055, rateLimited: true });
    expect(err.body).toMatchObject({ error: { code: 130429, type: 'OAuthException' } });
    expect(err.fbtraceId).toEqual(expect.any(String));
    expect(fake.requests).toHaveLength(3);
  });

  it('HTTP 429 without a Graph code is a rate limit too', async () => {
    fake.fail(1, 429);
    await client().sendText({ number: LEAD, text: 'oi' });
    expect(fake.requests).toHaveLength(2);
  });

  it('Retry-After is honoured when sent; one above maxRetryAfterMs fails at once carrying retryAfterMs', async () => {
    fake.fail(1, { ...GRAPH_ERRORS.throughput, retryAfter: '1' });
    await client({ baseDelayMs: 1 }).sendText({ number: LEAD, text: 'oi' });
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(950);

    fake.fail(1, { ...GRAPH_ERRORS.throughput, retryAfter: '120' });
    const err = await failure(client({ maxRetryAfterMs: 30_000 }).sendText({ number: LEAD, text: 'oi' }));
    expect(err).toMatchObject({ graphCode: 130429, retryAfterMs: 120_000 });
    expect(fake.requests).toHaveLength(3);
  });

  it('131056 (pair rate limit, 1 message / 6 s to one user): the first retry waits at least pairRateDelayMs', async () => {
    fake.fail(1, GRAPH_ERRORS.pairRate);
    await client({ baseDelayMs: 1, maxDelayMs: 2, pairRateDelayMs: 400 }).sendText({ number: LEAD, text: 'oi' });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(390);
  });

  it('131048 (spam-rate restriction) is a rate limit that is not retried: resending would make it worse', async () => {
    fake.fail(3, GRAPH_ERRORS.spamRate);
    const err = await failure(client({ retries: 3 }).sendText({ number: LEAD, text: 'oi' }));
    expect(err).toMatchObject({ graphCode: 131048, rateLimited: true });
    expect(fake.requests).toHaveLength(1);
  });

  it('HTTP 500 without a code: retried; connection reset: retried', async () => {
    fake.fail(1, 500);
    fake.fail(1, 'reset');
    await client({ retries: 2 }).sendText({ number: LEAD, text: 'oi' });
    expect(fake.requests).toHaveLength(3);
  });

  it('connection reset every time: GatewayNetworkError after retries + 1 attempts', async () => {
    fake.fail(5, 'reset');
    const err = await failure(client({ retries: 2 }).sendText({ number: LEAD, text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayNetworkError);
    expect(fake.requests).toHaveLength(3);
  });

  it('reports each retry and the end of the call to onCall, and each retry to the logger without the token', async () => {
    const events: unknown[] = [];
    const lines: object[] = [];
    fake.fail(2, GRAPH_ERRORS.throughput);
    await client({ onCall: (e) => events.push(e), logger: { warn: (fields) => lines.push(fields) } }).sendText({
      number: LEAD,
      text: 'oi',
    });
    expect(events).toEqual([
      { provider: 'cloud', op: 'send', outcome: 'retried' },
      { provider: 'cloud', op: 'send', outcome: 'retried' },
      { provider: 'cloud', op: 'send', outcome: 'ok' },
    ]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ gateway: `${fake.graphUrl}/${PNID}/messages`, attempt: 1 });
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
});

describe('no retry on other 4xx', () => {
  it('131026 (undeliverable), 100 (invalid parameter): one request each', async () => {
    fake.fail(1, GRAPH_ERRORS.undeliverable);
    expect(await failure(client().sendText({ number: LEAD, text: 'oi' }))).toMatchObject({ graphCode: 131026, rateLimited: false });
    fake.fail(1, GRAPH_ERRORS.invalidParameter);
    expect(await failure(client().sendText({ number: LEAD, text: 'oi' }))).toMatchObject({ graphCode: 100 });
    expect(fake.requests).toHaveLength(2);
  });

  it('a wrong token (190, HTTP 401): one request; neither token in the error', async () => {
    const c = new CloudClient({ serverUrl: fake.graphUrl, token: 'EAAG-wrong-token-xyz', phoneNumberId: PNID, retries: 3, baseDelayMs: 1 });
    const err = await rejection(c.sendText({ number: LEAD, text: 'oi' }));
    expect(err).toBeInstanceOf(GraphApiError);
    expect(err).toMatchObject({ status: 401, graphCode: 190 });
    expect(errorText(err)).not.toContain('EAAG-wrong-token-xyz');
    expect(fake.requests).toHaveLength(1);
  });

  it('a phone number id the token does not serve: Graph error 100/33, one request', async () => {
    const err = await failure(client({ phoneNumberId: '999999999999999' }).sendText({ number: LEAD, text: 'oi' }));
    expect(err).toMatchObject({ status: 400, graphCode: 100, graphSubcode: 33 });
    expect(fake.requests).toHaveLength(1);
  });
});

describe('downloadMedia', () => {
  const audio = Buffer.from('OggS\x00\x02fake-opus-bytes\xff\xfe', 'latin1');

  it('GETs the media URL (bearer, restricted to this phone number id), then the bytes with the same bearer', async () => {
    fake.setMedia('1908647269898587', { mime_type: 'audio/ogg; codecs=opus', bytes: audio });
    const media = await client().downloadMedia('1908647269898587');
    expect(media).toEqual({ mimetype: 'audio/ogg; codecs=opus', bytes: audio });
    expect(fake.requests.map((r) => [r.method, r.path])).toEqual([
      ['GET', '/v23.0/1908647269898587'],
      ['GET', '/media-download/1908647269898587'],
    ]);
    expect(fake.requests[0]!.query).toEqual({ phone_number_id: PNID });
    for (const r of fake.requests) expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('file_size as a string is read too; a media larger than maxDownloadBytes is refused before its bytes are fetched', async () => {
    fake.setMedia('big', { mime_type: 'video/mp4', bytes: Buffer.alloc(10_000), sizeAsString: true });
    const err = await failure(client({ maxDownloadBytes: 5_000 }).downloadMedia('big'));
    expect(err).toBeInstanceOf(GatewayResponseError);
    expect(err.message).toMatch(/^unusable answer from GET .*: media of 10000 bytes is larger than 5000 bytes/);
    expect(fake.requests).toHaveLength(1);
  });

  it('bytes beyond the limit while reading (no file_size) are refused', async () => {
    const server = await startServer((req) =>
      req.path.startsWith('/bytes')
        ? { text: 'x'.repeat(10_000), headers: { 'content-type': 'image/jpeg' } }
        : { json: { url: `http://${req.headers.host}/bytes`, mime_type: 'image/jpeg', id: 'm1' } },
    );
    const err = await failure(
      new CloudClient({ serverUrl: `${server.url}/v23.0`, token: TOKEN, phoneNumberId: PNID, maxDownloadBytes: 5_000 }).downloadMedia('m1'),
    );
    expect(err).toBeInstanceOf(GatewayResponseError);
    expect(err.message).toMatch(/larger than 5000 bytes/);
  });

  it('the token is sent only to https media URLs or to the Graph origin: any other URL is refused unfetched', async () => {
    const elsewhere = await startServer(() => ({ text: 'secret-stealer' }));
    const graph = await startServer(() => ({ json: { url: `${elsewhere.url}/steal`, mime_type: 'image/jpeg', id: 'm1' } }));
    const err = await failure(new CloudClient({ serverUrl: `${graph.url}/v23.0`, token: TOKEN, phoneNumberId: PNID }).downloadMedia('m1'));
    expect(err).toBeInstanceOf(GatewayResponseError);
    expect(err.message).toMatch(/neither https nor on the Graph API origin/);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('an unknown media id (Graph 100/33) is not retried; a media of another phone number is not served', async () => {
    fake.setMedia('other', { mime_type: 'image/jpeg', bytes: Buffer.from([1]), phoneNumberId: '111111111111111' });
    expect(await failure(client().downloadMedia('nope'))).toMatchObject({ graphCode: 100, graphSubcode: 33 });
    expect(await failure(client().downloadMedia('other'))).toMatchObject({ graphCode: 100 });
    expect(fake.requests).toHaveLength(2);
  });

  it('downloads are retried after a timeout (they change nothing); the error names GET', async () => {
    fake.fail(5, 'hang');
    fake.setMedia('m1', { mime_type: 'image/jpeg', bytes: Buffer.from([1]) });
    const err = await failure(client({ timeoutMs: 100, retries: 2 }).downloadMedia('m1'));
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect(err.message).toMatch(/^gateway did not answer GET /);
    expect(fake.requests).toHaveLength(3);
  });

  it('a send that hangs: GatewayTimeoutError, not retried (it may have been delivered)', async () => {
    fake.fail(5, 'hang');
    const err = await failure(client({ timeoutMs: 150, retries: 3 }).sendText({ number: LEAD, text: 'oi' }));
    expect(err).toBeInstanceOf(GatewayTimeoutError);
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses something that is not a media id before any request', async () => {
    await expect(client().downloadMedia('../me?x=1')).rejects.toThrow(TypeError);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the token', () => {
  it('is removed from an error body that echoes it', async () => {
    const server = await startServer((req) => ({
      status: 400,
      json: { error: { message: `bad token ${String(req.headers.authorization)}`, code: 190, type: 'OAuthException' } },
    }));
    const err = await failure(
      new CloudClient({ serverUrl: server.url, token: TOKEN, phoneNumberId: PNID }).sendText({ number: LEAD, text: 'oi' }),
    );
    expect(err.body).toEqual({ error: { message: 'bad token Bearer ***', code: 190, type: 'OAuthException' } });
    expect(err.message).toContain('bad token Bearer ***');
  });

  it('is removed from a malformed answer quoted in the error', async () => {
    const server = await startServer((req) => ({
      text: `oops ${String(req.headers.authorization)}`,
      headers: { 'content-type': 'application/json' },
    }));
    const err = await failure(
      new CloudClient({ serverUrl: server.url, token: TOKEN, phoneNumberId: PNID }).sendText({ number: LEAD, text: 'oi' }),
    );
    expect(err).toBeInstanceOf(GatewayResponseError);
    expect(err.message).toContain('oops Bearer ***');
  });

  it('does not show when the client is serialised or inspected', async () => {
    const c = client();
    expect(JSON.stringify(c)).not.toContain(TOKEN);
    expect(JSON.parse(JSON.stringify(c))).toEqual({ provider: 'cloud', serverUrl: fake.graphUrl, phoneNumberId: PNID });
    const { inspect } = await import('node:util');
    expect(inspect(c, { depth: 5 })).not.toContain(TOKEN);
  });

  it('the factory builds a client per instance row {server_url, token, external_id}', async () => {
    const factory = cloudClientFactory({ retries: 0 });
    const c = factory({ server_url: `${fake.graphUrl}/`, token: TOKEN, external_id: PNID });
    expect(c.serverUrl).toBe(fake.graphUrl);
    await c.sendText({ number: LEAD, text: 'oi' });
    expect(fake.requests[0]!.path).toBe(`/v23.0/${PNID}/messages`);
    expect(() => factory({ server_url: fake.graphUrl, token: TOKEN, external_id: '' })).toThrow(/external_id/);
  });

  it('bad construction input is refused without echoing the token', () => {
    expect(() => new CloudClient({ serverUrl: 'ftp://x', token: TOKEN, phoneNumberId: PNID })).toThrow(/http\(s\)/);
    expect(() => new CloudClient({ serverUrl: 'not a url', token: TOKEN, phoneNumberId: PNID })).toThrow(/not a valid URL/);
    expect(() => new CloudClient({ serverUrl: fake.graphUrl, token: '', phoneNumberId: PNID })).toThrow(/token is empty/);
    expect(() => new CloudClient({ serverUrl: fake.graphUrl, token: TOKEN, phoneNumberId: '12/../x' })).toThrow(/must be digits/);
  });
});
