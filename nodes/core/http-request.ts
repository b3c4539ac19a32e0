import { Type } from '../../engine/typebox.js';
import { HttpStatusError } from '../../engine/errors/http-status-error.js';
import { defineNode, type JsonValue } from '../../engine/types.js';

/** Header names whose values are replaced by "***" in recorded outbound calls. */
const SECRET_HEADER = /^(authorization|token|apikey|api-key|x-api-key|cookie|x-webhook-secret)$/i;
/** Longest response body kept (characters of text); longer ones are cut. */
const MAX_BODY_CHARS = 1_000_000;

/**
 * `http.request`: calls an http(s) URL with a JSON body (optional), headers and query, giving up after
 * `timeout_ms`. A non-2xx answer fails the step with an HttpStatusError carrying `status` and `body`
 * (for `retry.when`); a body longer than MAX_BODY_CHARS is cut. The call is recorded with its secret
 * headers masked; in a dry run it is recorded, not made. Outbound.
 */
export default defineNode({
  type: 'http.request',
  description:
    'Calls an HTTP endpoint with an optional JSON body. A non-2xx answer is an error carrying `status` and `body` (use `retry.when` on them). In dry-run the call is recorded, not made.',
  outbound: true,
  params: Type.Object(
    {
      method: Type.Union([Type.Literal('GET'), Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('PATCH'), Type.Literal('DELETE')], {
        description: 'HTTP method.',
        default: 'GET',
        examples: ['POST'],
      }),
      url: Type.String({
        pattern: '^https?://',
        description: 'Absolute http(s) URL.',
        examples: ['{{ steps.instance.server_url }}/send/text'],
      }),
      headers: Type.Record(Type.String(), Type.String(), {
        description: 'Request headers.',
        default: {},
        examples: [{ token: '{{ steps.instance.token }}' }],
      }),
      query: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description: 'Query string parameters.',
        default: {},
        examples: [{ page: 1 }],
      }),
      body: Type.Optional(
        Type.Unknown({
          description: 'JSON body (sent with content-type application/json).',
          examples: [{ number: '5511987654321', text: 'Olá!' }],
        }),
      ),
      timeout_ms: Type.Integer({
        minimum: 1,
        maximum: 300000,
        default: 10000,
        description: 'Give up after this many milliseconds.',
        examples: [5000],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{status, headers, body}`; body is parsed JSON when the answer is JSON, else text. In dry-run: `{status: 0, dry_run: true, body: null}`.',
  },
  examples: [
    {
      title: 'Post JSON, retrying on 5xx',
      step: {
        id: 'notify',
        type: 'http.request',
        params: { method: 'POST', url: 'https://hooks.example/notify', body: { text: 'hi' } },
        retry: { attempts: 3, delay_ms: 500, when: '{{ error.status >= 500 }}' },
      },
    },
  ],
  async run(params, ctx) {
    const url = new URL(params.url);
    for (const [k, v] of Object.entries(params.query)) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...params.headers };
    const hasBody = params.body !== undefined && params.method !== 'GET';
    if (hasBody && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const recorded = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, SECRET_HEADER.test(k) ? '***' : v]));
    const perform = ctx.recordOutbound({
      kind: 'http',
      method: params.method,
      url: url.toString(),
      headers: recorded,
      ...(hasBody ? { body: params.body as JsonValue } : {}),
    });
    if (!perform) return { status: 0, dry_run: true, headers: {}, body: null };

    const timeout = AbortSignal.timeout(params.timeout_ms);
    const response = await fetch(url, {
      method: params.method,
      headers,
      body: hasBody ? JSON.stringify(params.body) : undefined,
      signal: AbortSignal.any([timeout, ctx.signal]),
    }).catch((err: unknown) => {
      if (timeout.aborted)
        throw Object.assign(new Error(`timed out after ${params.timeout_ms} ms: ${params.method} ${url.origin}${url.pathname}`), {
          name: 'TimeoutError',
          code: 'timeout',
        });
      throw err;
    });
    const text = (await response.text()).slice(0, MAX_BODY_CHARS);
    let body: JsonValue = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) {
      try {
        body = JSON.parse(text) as JsonValue;
      } catch {
        body = text;
      }
    }
    if (!response.ok)
      throw new HttpStatusError(response.status, typeof body === 'string' ? body.slice(0, 4096) : body, `${url.origin}${url.pathname}`);
    return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body };
  },
});
