// A fake WhatsApp Cloud API (Meta Graph API) on 127.0.0.1 (random port) for tests, answering in the
// real shapes (Meta, developers.facebook.com/documentation/business-messaging/whatsapp/ —
// messages/text-messages, typing-indicators, business-phone-numbers/media, support/error-codes;
// reference whatsapp-providers.md §2.7-2.12):
//   POST /<version>/<phone number id>/messages
//        type "text"     -> 200 {messaging_product, contacts: [{input, wa_id}], messages: [{id: "wamid.…"}]}
//        type "template" -> 200 the same, messages[0].message_status "accepted"
//        status "read" (+ typing_indicator) -> 200 {success: true}
//   GET  /<version>/<media id>[?phone_number_id=…] -> 200 {messaging_product, url, mime_type, sha256, file_size, id}
//   GET  /media-download/<media id>?mid=…&ext=…&hash=… (the `url` above, bearer required) -> the bytes
// Authorization: `Bearer <token>` of a configured token (each token serves its phone number ids),
// else 401 with Graph error 190. Unknown phone number or media id: 400 with Graph error 100 (subcode
// 33), as Graph answers for an object that does not exist.
//
// Every request is recorded (method, path, query, headers, parsed body, arrival, answer status).
// Failures are queued with fail(n, failure, {skip}): after `skip` normal requests, the next n requests
// (any path) answer
//   <number>          that HTTP status with a generic Graph error body (code 1 for 5xx, 4 for 429, 100 otherwise)
//   GraphErrorSpec    {status (default 400), code, error_subcode, message, details, retryAfter}: see GRAPH_ERRORS
//   'reset'           the connection is destroyed without an answer
//   'hang'            no answer until close(), or, with {ms}, for that long and then the normal answer
// outsideWindow(number): free text to that number answers 131047 (HTTP 400) while templates are
// accepted, as for a lead who has not written in 24 hours.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphErrorSpec {
  /** HTTP status. Default 400 (401 for code 190). */
  status?: number;
  code: number;
  error_subcode?: number;
  type?: string;
  /** `(#code) title`, as Meta writes it. */
  message?: string;
  /** `error_data.details`. */
  details?: string;
  /** Retry-After header value. */
  retryAfter?: string;
}

/**
 * Graph errors as Meta documents them (support/error-codes; reference §2.11 for the body shape:
 * `{"error":{"message":"(#130429) Rate limit hit","type":"OAuthException","code":130429,
 * "error_data":{"messaging_product":"whatsapp","details":"…"},"error_subcode":2494055,"fbtrace_id":"…"}}`).
 * The HTTP status that accompanies a code is not documented by Meta (reference §2.11: "do not branch
 * on it"); 400 is used, so tests show the client branches on the code.
 */
export const GRAPH_ERRORS = {
  outsideWindow: {
    code: 131047,
    message: '(#131047) Re-engagement message',
    details: 'More than 24 hours have passed since the recipient last replied to the sender number.',
  },
  throughput: {
    code: 130429,
    error_subcode: 2494055,
    message: '(#130429) Rate limit hit',
    details: 'Cloud API message throughput has been reached.',
  },
  pairRate: {
    code: 131056,
    message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
    details:
      'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
  },
  spamRate: {
    code: 131048,
    message: '(#131048) Spam rate limit hit',
    details: 'Message failed to send because there are restrictions on how many messages can be sent from this phone number.',
  },
  appRate: { code: 4, message: '(#4) Application request limit reached' },
  wabaRate: { code: 80007, message: '(#80007) Rate limit issues' },
  temporary: { status: 500, code: 131000, message: '(#131000) Something went wrong' },
  templateMissing: {
    code: 132001,
    message: '(#132001) Template name does not exist in the translation',
    details: 'template name does not exist in the translation',
  },
  undeliverable: { code: 131026, message: '(#131026) Message undeliverable' },
  tokenExpired: {
    status: 401,
    code: 190,
    error_subcode: 463,
    message: 'Error validating access token: Session has expired.',
  },
  invalidParameter: { code: 100, message: '(#100) Invalid parameter' },
} satisfies Record<string, GraphErrorSpec>;

export type GraphFailure = number | GraphErrorSpec | 'reset' | 'hang';

export interface CloudMedia {
  mime_type: string;
  bytes: Buffer;
  /** The phone number id whose webhook handed out this media id. Default: the first configured. */
  phoneNumberId?: string;
  /** Answer file_size as a string (Meta's docs show both). */
  sizeAsString?: boolean;
}

export interface RecordedGraphRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when not JSON). */
  body: any;
  at: number;
  status?: number;
}

export interface FakeCloudApiOptions {
  /** Accepted access tokens, each with the phone number ids it may use. Default { 'cloud-token': ['106540352242922'] }. */
  tokens?: Record<string, string[]>;
  /** Graph API version in paths. Default v23.0. */
  version?: string;
  /** Approved template names; when set, any other name answers 132001. */
  templates?: string[];
}

interface Queued {
  failure: GraphFailure | 'pass';
  /** For 'hang': answer normally after this many ms instead of never. */
  ms?: number;
}

export class FakeCloudApi {
  readonly requests: RecordedGraphRequest[] = [];
  readonly version: string;
  private readonly tokens: Map<string, Set<string>>;
  private readonly templates: Set<string> | undefined;
  private readonly media = new Map<string, CloudMedia>();
  private readonly closedWindows = new Set<string>();
  private readonly failures: Queued[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | undefined;
  private baseUrl = '';

  constructor(options: FakeCloudApiOptions = {}) {
    this.tokens = new Map(Object.entries(options.tokens ?? { 'cloud-token': ['106540352242922'] }).map(([t, ids]) => [t, new Set(ids)]));
    this.version = options.version ?? 'v23.0';
    this.templates = options.templates ? new Set(options.templates) : undefined;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** `http://127.0.0.1:<port>` (origin only). */
  get url(): string {
    if (!this.baseUrl) throw new Error('fake Cloud API not started');
    return this.baseUrl;
  }

  /** The instance's `server_url`: `http://127.0.0.1:<port>/<version>`. */
  get graphUrl(): string {
    return `${this.url}/${this.version}`;
  }

  /** Bodies of the message sends (text and template) answered 200, in arrival order. */
  get sent(): any[] {
    return this.requests.filter((r) => r.method === 'POST' && r.status === 200 && r.body?.type !== undefined).map((r) => r.body);
  }

  /** Bodies of the read receipts / typing indicators answered 200. */
  get typing(): any[] {
    return this.requests.filter((r) => r.method === 'POST' && r.status === 200 && r.body?.status === 'read').map((r) => r.body);
  }

  /** The next `n` requests fail this way (after `skip` normal ones); a 'hang' with `ms` is answered normally after that long. */
  fail(n: number, failure: GraphFailure, options: { skip?: number; ms?: number } = {}): this {
    for (let i = 0; i < (options.skip ?? 0); i++) this.failures.push({ failure: 'pass' });
    for (let i = 0; i < n; i++) this.failures.push({ failure, ...(options.ms !== undefined ? { ms: options.ms } : {}) });
    return this;
  }

  /** Accepts `token` too, for `phoneNumberIds` (another instance of the same account or app). */
  addToken(token: string, phoneNumberIds: string[]): this {
    const ids = this.tokens.get(token) ?? new Set<string>();
    for (const id of phoneNumberIds) ids.add(id);
    this.tokens.set(token, ids);
    return this;
  }

  /** Free text to `number` (digits) answers 131047 (templates still go); `open: true` undoes it. */
  outsideWindow(number: string, outside = true): this {
    if (outside) this.closedWindows.add(number);
    else this.closedWindows.delete(number);
    return this;
  }

  setMedia(id: string, media: CloudMedia): this {
    this.media.set(id, media);
    return this;
  }

  async close(): Promise<void> {
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
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const record: RecordedGraphRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      at: Date.now(),
    };
    this.requests.push(record);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      this.hanging.delete(res);
      if (res.destroyed) return;
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(value));
    };
    const graphError = (spec: GraphErrorSpec) =>
      json(spec.status ?? (spec.code === 190 ? 401 : 400), errorBody(spec), spec.retryAfter ? { 'retry-after': spec.retryAfter } : {});

    const queued = this.failures.shift();
    if (queued && queued.failure !== 'pass') {
      const failure = queued.failure;
      if (failure === 'reset') return void req.socket.destroy();
      if (failure === 'hang' && queued.ms === undefined) return void this.hanging.add(res);
      if (failure === 'hang') {
        this.hanging.add(res);
        await new Promise((resolve) => setTimeout(resolve, queued.ms));
        if (!this.hanging.has(res) || res.destroyed) return;
        this.hanging.delete(res);
      }
      if (typeof failure === 'number') return graphError(genericError(failure));
      if (failure !== 'hang') return graphError(failure);
    }

    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const allowed = token === undefined ? undefined : this.tokens.get(token);
    if (!allowed) return graphError({ code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });

    const segments = url.pathname.split('/').filter(Boolean);
    if (req.method === 'GET' && segments[0] === 'media-download' && segments.length === 2) {
      const media = this.media.get(segments[1]!);
      if (!media) return json(404, { error: 'not found' });
      record.status = 200;
      res.writeHead(200, { 'content-type': media.mime_type, 'content-length': String(media.bytes.length) }).end(media.bytes);
      return;
    }
    if (segments[0] !== this.version) return graphError({ code: 2500, message: 'Unknown path components' });
    if (req.method === 'GET' && segments.length === 2) return this.mediaInfo(segments[1]!, url.searchParams, allowed, json, graphError);
    if (req.method === 'POST' && segments.length === 3 && segments[2] === 'messages') {
      if (!allowed.has(segments[1]!)) return graphError(missingObject('post', segments[1]!));
      return this.message(body, json, graphError);
    }
    return graphError({ code: 100, error_subcode: 33, message: 'Unsupported request - method type' });
  }

  private mediaInfo(
    id: string,
    query: URLSearchParams,
    allowed: Set<string>,
    json: (status: number, value: unknown) => void,
    graphError: (spec: GraphErrorSpec) => void,
  ) {
    const media = this.media.get(id);
    const owner = media?.phoneNumberId ?? [...allowed][0];
    const restrict = query.get('phone_number_id');
    if (!media || !owner || !allowed.has(owner) || (restrict !== null && restrict !== owner)) return graphError(missingObject('get', id));
    json(200, {
      messaging_product: 'whatsapp',
      url: `${this.url}/media-download/${id}?mid=${id}&ext=${Math.floor(Date.now() / 1000)}&hash=${randomBytes(6).toString('hex')}`,
      mime_type: media.mime_type,
      sha256: createHash('sha256').update(media.bytes).digest('hex'),
      file_size: media.sizeAsString ? String(media.bytes.length) : media.bytes.length,
      id,
    });
  }

  private message(body: unknown, json: (status: number, value: unknown) => void, graphError: (spec: GraphErrorSpec) => void) {
    const input = body && typeof body === 'object' ? (body as Record<string, any>) : {};
    if (input.messaging_product !== 'whatsapp')
      return graphError({ ...GRAPH_ERRORS.invalidParameter, details: 'messaging_product is required' });
    if (input.status === 'read') {
      if (typeof input.message_id !== 'string' || input.message_id === '')
        return graphError({ ...GRAPH_ERRORS.invalidParameter, details: 'message_id is required' });
      return json(200, { success: true });
    }
    const to = typeof input.to === 'string' ? input.to.replace(/^\+/, '') : '';
    if (!/^\d{8,15}$/.test(to)) return graphError({ ...GRAPH_ERRORS.invalidParameter, details: 'to is invalid' });
    const answer = (extra: Record<string, unknown> = {}) =>
      json(200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: input.to, wa_id: to }],
        messages: [{ id: `wamid.${randomBytes(18).toString('base64url')}`, ...extra }],
      });
    if (input.type === 'text') {
      if (typeof input.text?.body !== 'string' || input.text.body === '')
        return graphError({ ...GRAPH_ERRORS.invalidParameter, details: 'text.body is required' });
      if (this.closedWindows.has(to)) return graphError(GRAPH_ERRORS.outsideWindow);
      return answer();
    }
    if (input.type === 'template') {
      const name = input.template?.name;
      if (typeof name !== 'string' || typeof input.template?.language?.code !== 'string')
        return graphError({ ...GRAPH_ERRORS.invalidParameter, details: 'template name and language are required' });
      if (this.templates && !this.templates.has(name)) return graphError(GRAPH_ERRORS.templateMissing);
      return answer({ message_status: 'accepted' });
    }
    return graphError({ ...GRAPH_ERRORS.invalidParameter, details: `type ${String(input.type)} is not supported by this fake` });
  }
}

function errorBody(spec: GraphErrorSpec): object {
  return {
    error: {
      message: spec.message ?? `(#${spec.code}) error`,
      type: spec.type ?? 'OAuthException',
      code: spec.code,
      ...(spec.details !== undefined ? { error_data: { messaging_product: 'whatsapp', details: spec.details } } : {}),
      ...(spec.error_subcode !== undefined ? { error_subcode: spec.error_subcode } : {}),
      fbtrace_id: `A${randomBytes(9).toString('base64url')}`,
    },
  };
}

function genericError(status: number): GraphErrorSpec {
  if (status === 429) return { status, code: 4, message: '(#4) Application request limit reached' };
  if (status >= 500) return { status, code: 1, message: 'An unknown error occurred' };
  return { status, code: 100, message: '(#100) Invalid parameter' };
}

function missingObject(method: 'get' | 'post', id: string): GraphErrorSpec {
  return {
    code: 100,
    error_subcode: 33,
    type: 'GraphMethodException',
    message: `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  };
}

/** Starts a fake Cloud API (see FakeCloudApi). */
export function startFakeCloudApi(options: FakeCloudApiOptions = {}): Promise<FakeCloudApi> {
  return new FakeCloudApi(options).start();
}
