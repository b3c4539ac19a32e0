// A fake uazapi server on 127.0.0.1 (random port) for tests: /send/text and /message/download with
// the answer shapes of the uazapi v2 spec (reference §1.5-1.6), checking the `token` header against
// the configured instance tokens (401 `{"error":"Invalid token"}` otherwise).
//
// Every request is recorded (method, path, headers, parsed body, arrival time, answer status), and
// the number of requests in flight at once is tracked (sends must be sequential).
// Failures are queued with failNext(kind, n, {skip}): after `skip` normal requests, the next n
// requests (any path) answer
//   '429'       429 {"error":"Rate limit exceeded"} with Retry-After (default "1" second)
//   '500'       500 {"error":"Failed to send message"} (or "Failed to download media")
//   'hang'      no answer: until close(), or for `ms` and then the normal answer
//   'malformed' 200 with content-type application/json and a cut-off JSON body
//   'reset'     the connection is destroyed without an answer
// Deviation, for tests: /message/download answers `transcription` whenever the media has one set.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FailureKind = '429' | '500' | 'hang' | 'malformed' | 'reset';

export interface FailureOptions {
  /** Retry-After header value of a 429 (seconds or HTTP date); null sends none. Default "1". */
  retryAfter?: string | null;
  /** For 'hang': answer normally after this many ms instead of never. */
  ms?: number;
  /** Let this many requests through normally before the failures start. Default 0. */
  skip?: number;
}

export interface FakeMedia {
  mimetype: string;
  bytes: Buffer;
  transcription?: string;
  /** Send base64Data as a `data:<mime>;base64,` URL (tolerated by the client, not documented by uazapi). */
  dataUrl?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when not JSON). */
  body: any;
  text: string;
  /** Date.now() at arrival. */
  at: number;
  /** Status answered (undefined while pending, for hangs and resets). */
  status?: number;
  /** Date.now() when the answer was sent. */
  answeredAt?: number;
}

export interface FakeGatewayOptions {
  /** Accepted instance tokens; each maps to its instance's own number (`owner`). Default { 'fake-token': '5511912345678' }. */
  tokens?: Record<string, string>;
  /** Hold each /send/text answer for the body's `delay` ms (uazapi may block while "typing"). Default false. */
  holdForDelay?: boolean;
}

interface QueuedFailure {
  kind: FailureKind | 'pass';
  options: FailureOptions;
}

export class FakeGateway {
  readonly requests: RecordedRequest[] = [];
  private readonly tokens: Map<string, string>;
  private readonly holdForDelay: boolean;
  private readonly media = new Map<string, FakeMedia>();
  private readonly failures: QueuedFailure[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Server | undefined;
  private baseUrl = '';
  private inFlight = 0;
  private peak = 0;

  constructor(options: FakeGatewayOptions = {}) {
    this.tokens = new Map(Object.entries(options.tokens ?? { 'fake-token': '5511912345678' }));
    this.holdForDelay = options.holdForDelay ?? false;
  }

  /** Starts listening on 127.0.0.1 with a random port. */
  async start(): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** `http://127.0.0.1:<port>`, the instance's server_url. */
  get url(): string {
    if (!this.baseUrl) throw new Error('fake gateway not started');
    return this.baseUrl;
  }

  /** Most requests handled at the same time so far. */
  get maxInFlight(): number {
    return this.peak;
  }

  /** Bodies of the /send/text requests answered 200, in arrival order. */
  get sent(): Array<{ number: string; text: string; delay: number }> {
    return this.requests.filter((r) => r.path === '/send/text' && r.status === 200).map((r) => r.body);
  }

  /** Requests to one path. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** The next `n` requests fail in this way. */
  failNext(kind: FailureKind, n = 1, options: FailureOptions = {}): this {
    for (let i = 0; i < (options.skip ?? 0); i++) this.failures.push({ kind: 'pass', options: {} });
    for (let i = 0; i < n; i++) this.failures.push({ kind, options });
    return this;
  }

  /** Media answered by /message/download for this message id. */
  setMedia(id: string, media: FakeMedia): this {
    this.media.set(id, media);
    return this;
  }

  addToken(token: string, owner = '5511912345678'): this {
    this.tokens.set(token, owner);
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
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: new URL(req.url ?? '/', 'http://x').pathname,
      headers: req.headers,
      body,
      text,
      at: Date.now(),
    };
    this.requests.push(record);
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      this.hanging.delete(res);
      if (res.destroyed) return;
      record.status = status;
      record.answeredAt = Date.now();
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(json));
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
          record.status = 200;
          record.answeredAt = Date.now();
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"messageid": "3EB0');
          return;
        case '429': {
          const retryAfter = failure.options.retryAfter === undefined ? '1' : failure.options.retryAfter;
          return answer(429, { error: 'Rate limit exceeded' }, retryAfter === null ? {} : { 'retry-after': retryAfter });
        }
        case '500':
          return answer(500, { error: record.path === '/message/download' ? 'Failed to download media' : 'Failed to send message' });
        case 'hang':
          this.hanging.add(res);
          if (failure.options.ms === undefined) return;
          await this.pause(failure.options.ms);
          if (res.destroyed) return;
          break;
      }
    }

    if (req.method !== 'POST') return answer(405, { error: 'Method not allowed' });
    if (record.path !== '/send/text' && record.path !== '/message/download') return answer(404, { error: 'Not found' });
    const token = req.headers.token;
    const owner = typeof token === 'string' ? this.tokens.get(token) : undefined;
    if (owner === undefined) return answer(401, { error: 'Invalid token' });
    if (!body || typeof body !== 'object') return answer(400, { error: 'Invalid request body' });
    const input = body as Record<string, unknown>;
    if (record.path === '/send/text') {
      if (typeof input.number !== 'string' || input.number === '' || typeof input.text !== 'string' || input.text === '')
        return answer(400, { error: 'Missing number or text' });
      const delay = typeof input.delay === 'number' ? input.delay : 0;
      if (this.holdForDelay && delay > 0) await this.pause(delay);
      return answer(200, this.sentMessage(owner, input.number, input.text, input));
    }
    if (typeof input.id !== 'string' || input.id === '') return answer(400, { error: 'Missing id' });
    const media = this.media.get(input.id);
    if (!media) return answer(404, { error: 'Message not found' });
    const base64 = media.bytes.toString('base64');
    return answer(200, {
      mimetype: media.mimetype,
      ...(input.return_base64 === true ? { base64Data: media.dataUrl ? `data:${media.mimetype};base64,${base64}` : base64 } : {}),
      ...(input.return_link !== false ? { fileURL: `${this.baseUrl}/files/${input.id}` } : {}),
      ...(media.transcription !== undefined ? { transcription: media.transcription } : {}),
    });
  }

  /** The stored Message object plus `response`, as uazapi answers a send. */
  private sentMessage(owner: string, number: string, text: string, input: Record<string, unknown>): object {
    const messageid = `3EB0${randomBytes(8).toString('hex').toUpperCase()}`;
    return {
      id: `${owner}:${messageid}`,
      messageid,
      chatid: `${number}@s.whatsapp.net`,
      sender: `${owner}@s.whatsapp.net`,
      senderName: '',
      isGroup: false,
      fromMe: true,
      messageType: 'ExtendedTextMessage',
      source: 'api',
      messageTimestamp: Date.now(),
      status: 'Pending',
      text,
      quoted: '',
      edited: '',
      reaction: '',
      vote: '',
      convertOptions: '',
      buttonOrListid: '',
      owner,
      error: '',
      content: { text },
      wasSentByApi: true,
      sendFunction: '/send/text',
      track_source: typeof input.track_source === 'string' ? input.track_source : '',
      track_id: typeof input.track_id === 'string' ? input.track_id : '',
      response: { status: 'success', message: 'Message sent successfully' },
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

/** Starts a fake gateway (see FakeGateway). */
export function startFakeGateway(options: FakeGatewayOptions = {}): Promise<FakeGateway> {
  return new FakeGateway(options).start();
}
