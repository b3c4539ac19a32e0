// A fake Evolution API v2 server on 127.0.0.1 (random port) for tests, with the API of the fake uazapi
// server (fake-gateway.ts): start/close, recorded requests, failNext. Shapes from
// evolution-foundation/evolution-api tag 2.3.7 (reference whatsapp-providers.md §1.9-1.11):
//   POST /message/sendText/:instance                201 the sent message (`send.message` data:
//        `{key: {remoteJid, fromMe: true, id: "3EB0…"}, pushName, status: "PENDING", message:
//        {conversation}, messageType: "conversation", messageTimestamp (s), instanceId, source}`)
//   POST /chat/getBase64FromMediaMessage/:instance 201 `{mediaType, fileName, caption?, size, mimetype, base64, buffer: null}`
// Guards in Evolution's order (src/api/routes/index.router.ts: instanceExistsGuard, then
// authGuard.apikey): unknown instance 404, then header `apikey` equal to the instance's key or the
// global key, else 401. Errors in Evolution's shape `{status, error, response: {message}}` (src/main.ts):
//   missing number/text  400 message [["instance requires property \"text\""]]  (issue #2570)
//   blank text           400 message ["Text is required"]                      (textMessage)
//   number not on WA     400 message [{jid, exists: false, number}]           (sendMessageWithTyping)
//   unknown media id     400 message ["Message not found"]                     (getBase64FromMediaMessage)
// Every request is recorded (method, path, headers, parsed body, arrival time, answer status and
// body).
// Echoes (Evolution issue #1340: some servers post an API send back as a `messages.upsert` with
// `key.fromMe: true`, as if typed on another device): setWebhook(instance, {url, jwtKey?}) is the
// instance's webhook as Evolution configures it (`url`, `headers.jwt_key`: each post then carries
// `Authorization: Bearer <HS256 JWT>`; the body's `apikey` is the instance's key); echo(id) posts the
// echo of the sendText answered with that id (default the last) to it, on demand, and resolves to
// the webhook's answer. The echo is built like any upsert (fixture `api-echo`): the send's key,
// number and text.
// Failures are queued with failNext(kind, n, {skip}): after `skip` normal requests, the next n
// requests (any path) answer
//   '429'               429 (from a proxy: Evolution 2.3.7 has no limiter) with Retry-After (default "1")
//   '500'               500 {"status":500,"error":"Internal Server Error","response":{"message":"Connection Closed"}} (issues #1286, #1799)
//   'connection-closed' 400 {…"response":{"message":["Error: Connection Closed"]}}  (issue #2229)
//   'rate-overlimit'    400 {…"response":{"message":["Error: rate-overlimit"]}}    (Baileys' WhatsApp rate limit, issue #1089)
//   'license-required'  503 {"error":"service not activated","code":"LICENSE_REQUIRED",…} (2.4.0-rc, src/licensing/runtime.ts)
//   'answer'            options.status with options.body as JSON
//   'hang'              no answer: until close(), or for `ms` and then the normal answer
//   'malformed'         201 with content-type application/json and a cut-off JSON body
//   'reset'             the connection is destroyed without an answer
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { evolutionEvent } from './evolution-fixtures/events.js';
import { signEvolutionJwt } from './evolution-fixtures/jwt.js';

export { evolutionEvent, type EvolutionFixtureKind, type EvolutionEventOptions } from './evolution-fixtures/events.js';
export { signEvolutionJwt, type EvolutionJwtOptions } from './evolution-fixtures/jwt.js';

export type EvolutionFailureKind =
  | '429'
  | '500'
  | 'connection-closed'
  | 'rate-overlimit'
  | 'license-required'
  | 'answer'
  | 'hang'
  | 'malformed'
  | 'reset';

export interface EvolutionFailureOptions {
  /** Retry-After header value of a 429 (seconds or HTTP date); null sends none. Default "1". */
  retryAfter?: string | null;
  /** For 'hang': answer normally after this many ms instead of never. */
  ms?: number;
  /** Let this many requests through normally before the failures start. Default 0. */
  skip?: number;
  /** For 'answer': the status and JSON body. */
  status?: number;
  body?: unknown;
}

export interface EvolutionFakeMedia {
  mimetype: string;
  bytes: Buffer;
  /** `mediaType` of the answer (Baileys content type). Default from the mimetype. */
  mediaType?: string;
  fileName?: string;
  caption?: string;
}

export interface EvolutionRecordedRequest {
  method: string;
  path: string;
  /** The `:instance` path segment, decoded; '' for other paths. */
  instance: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when not JSON). */
  body: any;
  text: string;
  /** Date.now() at arrival. */
  at: number;
  /** Status answered (undefined while pending, for hangs and resets). */
  status?: number;
  answeredAt?: number;
  /** The JSON answered (undefined while pending, for hangs, resets and malformed answers). */
  answer?: any;
}

/** An instance's webhook, as Evolution configures it (`webhook.url`, `webhook.headers.jwt_key`). */
export interface EvolutionWebhook {
  /** Where events are posted, e.g. `http://127.0.0.1:3000/leadagent/evolution`. */
  url: string;
  /** The webhook's jwt_key: each post carries `Authorization: Bearer <JWT signed with it>`. */
  jwtKey?: string;
}

/** A webhook's answer to one post. */
export interface WebhookAnswer {
  status: number;
  /** The answer's JSON (its text when it is not JSON). */
  json: any;
}

export interface FakeEvolutionOptions {
  /** Instance name -> its API key. Default { 'clinica-aurora': 'evo-instance-key' }. */
  instances?: Record<string, string>;
  /** The server's AUTHENTICATION_API_KEY (accepted for every instance). Default 'evo-global-key'. */
  globalApiKey?: string;
  /** Hold each sendText answer for the body's `delay` ms (Evolution shows "typing…" inside the request). Default false. */
  holdForDelay?: boolean;
}

interface QueuedFailure {
  kind: EvolutionFailureKind | 'pass';
  options: EvolutionFailureOptions;
}

const ROUTES = ['/message/sendText/', '/chat/getBase64FromMediaMessage/'] as const;

const EXTENSIONS: Record<string, string> = {
  'audio/ogg; codecs=opus': 'oga',
  'audio/ogg': 'oga',
  'audio/mpeg': 'mpga',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'application/pdf': 'pdf',
};

function mediaTypeOf(mimetype: string): string {
  if (mimetype === 'image/webp') return 'stickerMessage';
  if (mimetype.startsWith('audio/')) return 'audioMessage';
  if (mimetype.startsWith('image/')) return 'imageMessage';
  if (mimetype.startsWith('video/')) return 'videoMessage';
  return 'documentMessage';
}

/** Evolution's error body (src/main.ts). */
function evolutionError(status: number, error: string, message: unknown): object {
  return { status, error, response: { message } };
}

export class FakeEvolution {
  readonly requests: EvolutionRecordedRequest[] = [];
  private readonly instances: Map<string, string>;
  private readonly globalApiKey: string;
  private readonly holdForDelay: boolean;
  private readonly media = new Map<string, EvolutionFakeMedia>();
  private readonly notOnWhatsApp = new Set<string>();
  private readonly failures: QueuedFailure[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly webhooks = new Map<string, EvolutionWebhook>();
  private server: Server | undefined;
  private baseUrl = '';
  private inFlight = 0;
  private peak = 0;

  constructor(options: FakeEvolutionOptions = {}) {
    this.instances = new Map(Object.entries(options.instances ?? { 'clinica-aurora': 'evo-instance-key' }));
    this.globalApiKey = options.globalApiKey ?? 'evo-global-key';
    this.holdForDelay = options.holdForDelay ?? false;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** `http://127.0.0.1:<port>`, the instance's server_url. */
  get url(): string {
    if (!this.baseUrl) throw new Error('fake Evolution server not started');
    return this.baseUrl;
  }

  get maxInFlight(): number {
    return this.peak;
  }

  /** Bodies of the sendText requests answered 201, in arrival order. */
  get sent(): Array<{ number: string; text: string; delay?: number }> {
    return this.requests.filter((r) => r.path.startsWith('/message/sendText/') && r.status === 201).map((r) => r.body);
  }

  /** Requests whose path starts with `prefix` (e.g. '/message/sendText/'). */
  requestsTo(prefix: string): EvolutionRecordedRequest[] {
    return this.requests.filter((r) => r.path.startsWith(prefix));
  }

  failNext(kind: EvolutionFailureKind, n = 1, options: EvolutionFailureOptions = {}): this {
    for (let i = 0; i < (options.skip ?? 0); i++) this.failures.push({ kind: 'pass', options: {} });
    for (let i = 0; i < n; i++) this.failures.push({ kind, options });
    return this;
  }

  /** Media answered by getBase64FromMediaMessage for this message id (`message.key.id`). */
  setMedia(id: string, media: EvolutionFakeMedia): this {
    this.media.set(id, media);
    return this;
  }

  /** sendText to this number answers 400 `exists: false`. */
  setNotOnWhatsApp(number: string): this {
    this.notOnWhatsApp.add(number);
    return this;
  }

  /** The webhook `instance`'s events (echoes) are posted to. */
  setWebhook(instance: string, webhook: EvolutionWebhook): this {
    this.webhooks.set(instance, webhook);
    return this;
  }

  /**
   * Posts to the instance's webhook the `messages.upsert` echo (fromMe) of the sendText answered with
   * `messageId` (default: the last one answered), as servers of issue #1340 do; resolves to the
   * webhook's answer. Throws when no such send was answered or its instance has no webhook.
   */
  async echo(messageId?: string): Promise<WebhookAnswer> {
    const sends = this.requestsTo('/message/sendText/').filter((r) => r.status === 201 && r.answer?.key?.id);
    const send = messageId === undefined ? sends.at(-1) : sends.find((r) => r.answer.key.id === messageId);
    if (!send) throw new Error(`fake Evolution: no answered send ${messageId ?? ''} to echo`);
    const webhook = this.webhooks.get(send.instance);
    if (!webhook) throw new Error(`fake Evolution: instance "${send.instance}" has no webhook`);
    const body = evolutionEvent('api-echo', {
      instance: send.instance,
      apikey: this.instances.get(send.instance) ?? null,
      id: send.answer.key.id,
      phone: String(send.body.number).replace(/\D/g, ''),
      text: send.body.text,
      timestamp: send.answer.messageTimestamp,
      serverUrl: this.baseUrl,
    });
    const res = await fetch(webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(webhook.jwtKey ? { authorization: `Bearer ${signEvolutionJwt(webhook.jwtKey)}` } : {}),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: the text as it came
    }
    return { status: res.status, json };
  }

  addInstance(name: string, apikey: string): this {
    this.instances.set(name, apikey);
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    res.on('close', () => this.inFlight--);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const route = ROUTES.find((r) => path.startsWith(r));
    let instance = '';
    try {
      instance = route ? decodeURIComponent(path.slice(route.length)) : '';
    } catch {
      instance = '';
    }
    const record: EvolutionRecordedRequest = { method: req.method ?? '', path, instance, headers: req.headers, body, text, at: Date.now() };
    this.requests.push(record);
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      this.hanging.delete(res);
      if (res.destroyed) return;
      record.status = status;
      record.answeredAt = Date.now();
      record.answer = json;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(json));
    };

    const failure = this.failures.shift();
    if (failure) {
      switch (failure.kind) {
        case 'pass':
          break;
        case 'reset':
          req.socket.destroy();
          return;
        case 'malformed':
          record.status = 201;
          record.answeredAt = Date.now();
          res.writeHead(201, { 'content-type': 'application/json' }).end('{"key": {"id": "3EB0');
          return;
        case '429': {
          const retryAfter = failure.options.retryAfter === undefined ? '1' : failure.options.retryAfter;
          return answer(
            429,
            evolutionError(429, 'Too Many Requests', 'Too Many Requests'),
            retryAfter === null ? {} : { 'retry-after': retryAfter },
          );
        }
        case '500':
          return answer(500, evolutionError(500, 'Internal Server Error', 'Connection Closed'));
        case 'connection-closed':
          return answer(400, evolutionError(400, 'Bad Request', ['Error: Connection Closed']));
        case 'rate-overlimit':
          return answer(400, evolutionError(400, 'Bad Request', ['Error: rate-overlimit']));
        case 'license-required':
          return answer(503, {
            error: 'service not activated',
            code: 'LICENSE_REQUIRED',
            register_url: `${this.baseUrl}/manager/login`,
            instance_id: 'fake-install-id',
            message: 'This Evolution API instance is not activated.',
          });
        case 'answer':
          return answer(failure.options.status ?? 500, failure.options.body ?? {});
        case 'hang':
          this.hanging.add(res);
          if (failure.options.ms === undefined) return;
          await this.pause(failure.options.ms);
          if (res.destroyed) return;
          break;
      }
    }

    if (req.method !== 'POST' || !route || instance === '')
      return answer(404, evolutionError(404, 'Not Found', [`Cannot ${req.method ?? 'GET'} ${req.url ?? '/'}`]));
    const instanceKey = this.instances.get(instance);
    if (instanceKey === undefined) return answer(404, evolutionError(404, 'Not Found', [`The "${instance}" instance does not exist`]));
    const apikey = req.headers.apikey;
    if (typeof apikey !== 'string' || (apikey !== instanceKey && apikey !== this.globalApiKey))
      return answer(401, evolutionError(401, 'Unauthorized', 'Unauthorized'));
    const input = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, any>) : {};

    if (route === '/message/sendText/') {
      const missing = ['number', 'text'].filter((k) => input[k] === undefined);
      if (missing.length > 0)
        return answer(400, evolutionError(400, 'Bad Request', [missing.map((k) => `instance requires property "${k}"`)]));
      if (typeof input.text !== 'string' || input.text.trim() === '')
        return answer(400, evolutionError(400, 'Bad Request', ['Text is required']));
      const number = String(input.number).replace(/\D/g, '');
      if (this.notOnWhatsApp.has(number))
        return answer(400, evolutionError(400, 'Bad Request', [{ jid: `${number}@s.whatsapp.net`, exists: false, number }]));
      const delay = typeof input.delay === 'number' ? input.delay : 0;
      if (this.holdForDelay && delay > 0) await this.pause(delay);
      return answer(201, this.sentMessage(number, input.text));
    }

    const id = input.message?.key?.id;
    if (typeof id !== 'string' || id === '') return answer(400, evolutionError(400, 'Bad Request', ['Message not found']));
    const media = this.media.get(id);
    if (!media) return answer(400, evolutionError(400, 'Bad Request', ['Message not found']));
    const extension = EXTENSIONS[media.mimetype] ?? 'bin';
    return answer(201, {
      mediaType: media.mediaType ?? mediaTypeOf(media.mimetype),
      fileName: media.fileName ?? `${id}.${extension}`,
      ...(media.caption !== undefined ? { caption: media.caption } : {}),
      size: { fileLength: { low: media.bytes.length, high: 0, unsigned: true } },
      mimetype: media.mimetype,
      base64: media.bytes.toString('base64'),
      buffer: null,
    });
  }

  /** `prepareMessage(messageSent)` of a text sent through the API (reference §1.6). */
  private sentMessage(number: string, text: string): object {
    return {
      key: { remoteJid: `${number}@s.whatsapp.net`, fromMe: true, id: `3EB0${randomBytes(9).toString('hex').toUpperCase()}` },
      pushName: 'Você',
      status: 'PENDING',
      message: { conversation: text },
      contextInfo: null,
      messageType: 'conversation',
      messageTimestamp: Math.floor(Date.now() / 1000),
      instanceId: '6f1c2b9e-0d4a-4c3b-9a7e-fake00000001',
      source: 'web',
    };
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

/** Starts a fake Evolution server (see FakeEvolution). */
export function startFakeEvolution(options: FakeEvolutionOptions = {}): Promise<FakeEvolution> {
  return new FakeEvolution(options).start();
}
