// Generated hostile JSON (fast-check, seeded, bounded runs) thrown at the whole service wired as
// `serve` wires it (test/e2e/stack.ts, embedded backend), authenticated so bodies get past auth:
// every inbound route. The webhooks (POST /form/intake, uazapi's POST /leadagent, POST
// /handoff-agenteia; on stacks of their own Evolution's POST /leadagent/evolution with its JWT and
// the Cloud API's POST /leadagent/cloud signed with the app secret, and its verification GET), the
// admin API's bodies (cancel, replay) and its query strings, the console's sign-in (POST
// /admin/session) and lead actions (POST /admin/leads/:id/actions). Deep nesting, wide objects and
// arrays, huge strings, `__proto__` / `constructor` / `prototype` keys, lone surrogates in strings
// and keys, numbers past 2^53 and invalid bytes. Every answer must be 2xx or 4xx (errors `{"error",
// "details"}`), /healthz must still answer afterwards, and no prototype may change. After each target
// the executions it started must all end (stack.idle, whose timeout fails the target), and none may
// have failed otherwise than the flows' own way (unexpectedFailures).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../engine/types.js';
import { signCloudBody } from '../fakes/cloud-webhooks.js';
import { CLOUD_CASE, CLOUD_VERIFY_TOKEN, EVOLUTION_CASE, type ProviderCase } from './providers.js';
import { CLINIC_PHONE, INSTANCE_TOKEN, startStack, type Stack } from './stack.js';

const SECRET = 'fuzz-webhook-secret-0b7e';
const ADMIN_TOKEN = 'fuzz-admin-token-4c19';
/** Runs per target (each one request); the seed keeps every run of the suite the same. */
const RUNS = 120;
const SEED = 20261125;
/** Each target's runs take a few seconds alone; the bound leaves room for a loaded machine. */
const TARGET_TIMEOUT_MS = 60_000;
/** How long the executions a target started may take to end (stack.idle's bound; past it the target fails). */
const IDLE_TIMEOUT_MS = 30_000;

/** The own keys of the prototypes a request could pollute, before any request. */
const prototypeKeys = () => ({
  object: Reflect.ownKeys(Object.prototype).map(String).sort(),
  array: Reflect.ownKeys(Array.prototype).map(String).sort(),
  fn: Reflect.ownKeys(Function.prototype).map(String).sort(),
});

/** A request body; printed short when fast-check reports a counterexample (some are a megabyte). */
class Payload {
  constructor(readonly bytes: Buffer) {}
  [fc.toStringMethod](): string {
    const head = this.bytes.subarray(0, 80).toString('latin1');
    return `Payload(${this.bytes.length} bytes: ${JSON.stringify(head)}${this.bytes.length > 80 ? '…' : ''})`;
  }
}

// --- hostile JSON text -----------------------------------------------------------------------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'polluted', 'token', 'secret', ''),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.tuple(fc.string({ maxLength: 4 }), loneSurrogate).map(([a, b]) => a + b),
);
const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.tuple(fc.string({ maxLength: 8 }), loneSurrogate, fc.string({ maxLength: 8 })).map((parts) => parts.join('')),
  fc.integer({ min: 1, max: 200_000 }).map((n) => 'x'.repeat(n)),
);
/** Numbers as JSON text, past 2^53, past a double's range, below its precision. */
const numberText = fc.oneof(
  fc.constantFrom('9007199254740993', '-9007199254740993', '123456789012345678901234567890', '1e400', '-1e400', '1e-400', '-0', '0.1'),
  fc.double().filter(Number.isFinite).map(String),
);
/** A scalar as JSON text (strings through JSON.stringify: a lone surrogate becomes a `\udXXX` escape). */
const scalarText = fc.oneof(
  numberText,
  hostileString.map((s) => JSON.stringify(s)),
  fc.constantFrom('true', 'false', 'null'),
);
/** Small JSON values with hostile keys and scalars, as text. */
const { value: valueText } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalarText, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
}));
/** Around the limits: deep nesting, wide objects (duplicate `__proto__` keys too), wide arrays, many values. */
const shapeText = fc.oneof(
  // Just past the depth limit (32), small enough for the 4 KB bodies of the console's routes.
  fc.tuple(fc.integer({ min: 30, max: 40 }), valueText).map(([n, inner]) => `${'{"a":'.repeat(n)}${inner}${'}'.repeat(n)}`),
  fc
    .tuple(fc.integer({ min: 1, max: 50_000 }), fc.constantFrom('[', '{"a":', '{"__proto__":', '{"constructor":{"prototype":'), valueText)
    .map(([n, open, inner]) => {
      const close = open === '[' ? ']' : open.endsWith('":{"prototype":') ? '}}' : '}';
      return `${open.repeat(n)}${inner}${close.repeat(n)}`;
    }),
  fc
    .tuple(fc.integer({ min: 990, max: 1_010 }), fc.boolean())
    .map(
      ([n, proto]) => `{${Array.from({ length: n }, (_, i) => `"${proto && i % 2 ? '__proto__' : `k${i}`}":{"polluted":${i}}`).join(',')}}`,
    ),
  fc.integer({ min: 9_990, max: 10_010 }).map((n) => `[${Array(n).fill('0').join(',')}]`),
  fc.integer({ min: 9, max: 11 }).map(
    (n) =>
      `[${Array(n)
        .fill(`[${Array(10_000).fill('1').join(',')}]`)
        .join(',')}]`,
  ),
);
/** Bytes that are not JSON, or not UTF-8. */
const rawBytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc
    .uint8Array({ minLength: 1, maxLength: 8 })
    .map((b) => Buffer.concat([Buffer.from('{"nome":"'), Buffer.from([0xed, 0xa0, 0x80, ...b]), Buffer.from('"}')])),
  valueText.chain((text) => fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => Buffer.from(text.slice(0, cut)))),
  fc.integer({ min: BODY_LIMIT_PLUS(-64), max: BODY_LIMIT_PLUS(64) }).map((n) => Buffer.from(`"${'y'.repeat(n)}"`)),
);
function BODY_LIMIT_PLUS(delta: number): number {
  return 1024 * 1024 + delta;
}

/** A hostile body: a hostile value alone, or in the place of one field of the route's valid body. */
function hostileBody(valid: (hole: string) => string): fc.Arbitrary<Payload> {
  const text = fc.oneof(valueText, shapeText);
  return fc
    .oneof(
      text.map((t) => Buffer.from(t)),
      text.map((t) => Buffer.from(valid(t))),
      rawBytes,
    )
    .map((bytes) => new Payload(bytes));
}

/** A query string of percent-encoded bytes (any byte, invalid UTF-8 too), names repeated and hostile. */
const hostileQuery = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('flow', 'status', 'limit', 'version', 'containing', 'dry_run', 'secret', '__proto__', 'constructor', 'prototype'),
        fc.constantFrom('__proto__[polluted]', 'constructor[prototype][polluted]', 'a[]', 'a[b]'),
        fc.uint8Array({ maxLength: 8 }).map(percentEncode),
      ),
      fc.oneof(
        fc.uint8Array({ maxLength: 40 }).map(percentEncode),
        fc.integer({ min: 1, max: 6_000 }).map((n) => '9'.repeat(n)),
        fc.constantFrom('1', '1000', '1001', '-1', '1e3', 'true', 'failed', 'intake', '%', '%zz', '%ED%A0%80'),
      ),
    ),
    { maxLength: 150 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'))
  // Within node's 16 KB header limit (past it node answers 431 itself, before the app).
  .map((query) => (query.length > 12_000 ? query.slice(0, query.lastIndexOf('&', 12_000)) : query));

function percentEncode(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

// --- the service ---------------------------------------------------------------------------------

let stack: Stack;
let recordedId: string;
let leadId: number;
const before = prototypeKeys();
const webhookHeaders = { 'content-type': 'application/json', 'x-webhook-secret': SECRET };
const adminHeaders = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` };

/** What the current target answered: status and error (a test shows its bodies reached what it means to test). */
let answers: Array<{ status: number; error?: string }> = [];
/** The errors of json-limits.ts (depth, keys, items, values). */
const SHAPE_LIMIT = /^body (nested deeper than|has an object of more than|has an array of more than|holds more than) /;

/** 2xx, or 4xx with `{"error": string, "details": [...]}`; never 5xx. */
async function expectWellFormed(res: Response, what: string): Promise<void> {
  const text = await res.text();
  answers.push({ status: res.status, ...(res.status >= 400 ? { error: (JSON.parse(text) as { error?: string }).error } : {}) });
  expect(res.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    const json = JSON.parse(text) as { error?: unknown; details?: unknown };
    expect(typeof json.error, what).toBe('string');
    expect(Array.isArray(json.details), what).toBe(true);
  }
}

async function expectStillServing(on: Stack = stack): Promise<void> {
  const res = await fetch(`${on.url}/healthz`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: 'ok' });
  expect(prototypeKeys()).toEqual(before);
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  expect(([] as unknown as { polluted?: unknown }).polluted).toBeUndefined();
}

/** A request's headers: fixed, or made for its bytes (a signature over them, a fresh token). */
type HeadersFor = Record<string, string> | ((bytes: Buffer) => Record<string, string>);

/** Posts each generated body (with a hostile query string) to `path` on `on`; every answer well formed. Returns the answers. */
async function fuzzPost(
  path: (query: string) => string,
  body: fc.Arbitrary<Payload>,
  headers: HeadersFor,
  on: Stack = stack,
): Promise<Array<{ status: number; error?: string }>> {
  answers = [];
  await fc.assert(
    fc.asyncProperty(body, hostileQuery, async (payload, query) => {
      const url = `${on.url}${path(query)}`;
      const sent = typeof headers === 'function' ? headers(payload.bytes) : headers;
      await expectWellFormed(await fetch(url, { method: 'POST', headers: sent, body: payload.bytes }), `POST ${url.slice(0, 120)}`);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  await expectStillServing(on);
  return answers;
}

/** Some answers came from past the checks (`reached`), some were refused by a shape limit of json-limits.ts. */
function expectBothSides(answered: Array<{ status: number; error?: string }>, reached: number): void {
  expect(answered.map((a) => a.status)).toContain(reached);
  expect(answered.some((a) => a.status === 413 && SHAPE_LIMIT.test(a.error ?? ''))).toBe(true);
}

/** One line per execution, for a failure's message. */
const describeRecord = (r: ExecutionRecord): string =>
  `${r.flow} ${r.id} ${r.status}: ${r.error ? `${r.error.step ?? '-'} ${r.error.name}: ${r.error.message.slice(0, 200)}` : '-'}`;

/**
 * The errors flows raise on purpose for input they refuse (a gateway's parse step naming each path;
 * a trigger input that does not match its schema). A flow's own answers (404 no lead, a duplicate
 * form, not a lead) end `stopped` through `respond` and `stop`, with no error.
 */
const FLOWS_OWN_ERRORS = new Set([
  'GatewayEventError',
  'UazapiEventError',
  'EvolutionEventError',
  'CloudEventError',
  'InputValidationError',
]);

/**
 * The executions that failed, or hold a step error, otherwise than the flows' own way (an unexpected
 * exception: RangeError, TypeError, an internal error, a database error...), one line each.
 */
function unexpectedFailures(records: ExecutionRecord[]): string[] {
  const problems: string[] = [];
  for (const r of records) {
    if (r.status === 'failed' && !FLOWS_OWN_ERRORS.has(r.error?.name ?? '')) problems.push(describeRecord(r));
    for (const step of r.steps)
      if (step.error && !FLOWS_OWN_ERRORS.has(step.error.name))
        problems.push(`${describeRecord(r)}; step ${step.key}: ${step.error.name}: ${step.error.message.slice(0, 200)}`);
  }
  return problems;
}

/**
 * Waits until no execution of `on` is running or due (stack.idle: past IDLE_TIMEOUT_MS it throws,
 * failing the target), then checks the executions not judged before; returns how many there were.
 */
async function expectExecutionsSettled(on: Stack, judged: Set<string>): Promise<number> {
  const all = await on.idle(IDLE_TIMEOUT_MS);
  const fresh = all.filter((r) => !judged.has(r.id));
  for (const r of fresh) judged.add(r.id);
  expect(unexpectedFailures(fresh)).toEqual([]);
  return fresh.length;
}

describe('hostile JSON at every inbound surface [sqlite + in-process]', () => {
  /** The executions the targets before have checked. */
  const judged = new Set<string>();
  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_WEBHOOK_SECRET: SECRET, LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    const res = await stack.post('/handoff-agenteia', { telefone: '5511900000001' }, { 'x-webhook-secret': SECRET });
    expect(res.status).toBe(404);
    const form = await stack.post(
      '/form/intake',
      { nome: 'Ana', telefone: '11900000002', clinica_id: stack.clinic.id, respostas: {} },
      { 'x-webhook-secret': SECRET },
    );
    recordedId = ((await form.json()) as { execution_id: string }).execution_id;
    await stack.engine.waitForEnd(recordedId);
    leadId = Number((await stack.runtime.db.get('leads', { nome: 'Ana' }))!.id);
  });
  // Each target waited for its executions; what close() throws (a step that does not end) fails here.
  afterAll(() => stack?.close());

  // The admin API first, while the store holds few executions (the webhooks' runs add large ones).
  it(
    "the admin API's bodies: POST /admin/executions/:id/cancel and /replay",
    async () => {
      // Cancel: the recorded (finished) execution or an unknown id; replay: unknown ids only (a replay
      // of a real one would run the flow again, a dry run holding the database while it runs).
      answers = [];
      const target = fc.oneof(
        fc.constant({ id: recordedId, action: 'cancel' }),
        fc
          .tuple(
            fc.oneof(
              fc.uuid(),
              fc.uint8Array({ maxLength: 12 }).map((b) => percentEncode(b) || 'x'),
            ),
            fc.constantFrom('cancel', 'replay'),
          )
          .map(([id, action]) => ({ id, action })),
      );
      await fc.assert(
        fc.asyncProperty(
          target,
          hostileBody((hole) => `{"reason":${hole}}`),
          hostileQuery,
          async ({ id, action }, payload, query) => {
            const url = `${stack.url}/admin/executions/${id}/${action}?${query}`;
            await expectWellFormed(
              await fetch(url, { method: 'POST', headers: adminHeaders, body: payload.bytes }),
              `POST ${url.slice(0, 120)}`,
            );
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      await expectStillServing();
      // 404: an unknown id, after its body passed every check.
      expectBothSides(answers, 404);
      await expectExecutionsSettled(stack, judged);
    },
    TARGET_TIMEOUT_MS,
  );

  it(
    "the admin API's query strings: GET /admin/executions",
    async () => {
      await fc.assert(
        fc.asyncProperty(hostileQuery, async (query) => {
          const url = `${stack.url}/admin/executions?${query}`;
          await expectWellFormed(await fetch(url, { headers: adminHeaders }), `GET ${url.slice(0, 120)}`);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      await expectStillServing();
      expect(await expectExecutionsSettled(stack, judged)).toBe(0);
    },
    TARGET_TIMEOUT_MS,
  );

  it(
    "the console's sign-in: POST /admin/session",
    async () => {
      let seq = 0;
      const valid = (hole: string) => (++seq % 2 ? `{"token":${hole}}` : `{"token":"not-the-token","extra":${hole}}`);
      const answered = await fuzzPost((q) => `/admin/session?${q}`, hostileBody(valid), { 'content-type': 'application/json' });
      // 401: a well-formed sign-in with a wrong token; no hostile body signs in.
      expectBothSides(answered, 401);
      expect(answered.map((a) => a.status)).not.toContain(200);
      expect(await expectExecutionsSettled(stack, judged)).toBe(0);
    },
    TARGET_TIMEOUT_MS,
  );

  it(
    "the console's lead actions: POST /admin/leads/:id/actions",
    async () => {
      answers = [];
      // The seeded lead (a `pause` with any string as `confirm` runs the flow), an unknown one, or hostile ids.
      const id = fc.oneof(
        { arbitrary: fc.constant(String(leadId)), weight: 4 },
        fc.constant('999999'),
        fc.uint8Array({ maxLength: 12 }).map((b) => percentEncode(b) || 'x'),
      );
      let seq = 0;
      // The hole as the action, or beside a valid one (a member the route does not read).
      const valid = (hole: string) => (++seq % 2 ? `{"action":${hole}}` : `{"action":"pause","note":${hole}}`);
      await fc.assert(
        fc.asyncProperty(id, hostileBody(valid), hostileQuery, async (lead, payload, query) => {
          const url = `${stack.url}/admin/leads/${lead}/actions?${query}`;
          await expectWellFormed(
            await fetch(url, { method: 'POST', headers: adminHeaders, body: payload.bytes }),
            `POST ${url.slice(0, 120)}`,
          );
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      await expectStillServing();
      // 200: the action ran (lead-action's execution ended, whatever its status).
      expectBothSides(answers, 200);
      expect(await expectExecutionsSettled(stack, judged)).toBeGreaterThan(0);
    },
    TARGET_TIMEOUT_MS,
  );

  it(
    'POST /form/intake',
    async () => {
      const valid = (hole: string) => `{"nome":"Ana","telefone":"11987654321","clinica_id":${stack.clinic.id},"respostas":{"q":${hole}}}`;
      const answered = await fuzzPost((q) => `/form/intake?${q}`, hostileBody(valid), webhookHeaders);
      expectBothSides(answered, 202);
      expect(await expectExecutionsSettled(stack, judged)).toBeGreaterThan(0);
    },
    TARGET_TIMEOUT_MS,
  );

  it(
    'POST /leadagent (the instance token in the body)',
    async () => {
      const event = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/uazapi/text-conversation.json'), 'utf8'));
      Object.assign(event, { token: INSTANCE_TOKEN, owner: CLINIC_PHONE });
      event.message.fromMe = false;
      event.message.messageid = '\u0000ID';
      // The hole as the message's text (a string passes the input schema), or as an extra member.
      const asText = JSON.stringify({ ...event, message: { ...event.message, text: '\u0000HOLE' } });
      const asExtra = JSON.stringify({ ...event, message: { ...event.message, text: 'Oi', extra: '\u0000HOLE' } });
      // A fresh message id each time, so the dedupe step lets each one through to the flow.
      let seq = 0;
      const valid = (hole: string) =>
        (++seq % 2 ? asText : asExtra).replace('"\\u0000HOLE"', hole).replace('"\\u0000ID"', `"3EB0FUZZ${seq}"`);
      expect(valid('1')).toContain('"text":1');
      const answered = await fuzzPost((q) => `/leadagent?${q}`, hostileBody(valid), webhookHeaders);
      expectBothSides(answered, 200);
      expect(await expectExecutionsSettled(stack, judged)).toBeGreaterThan(0);
    },
    TARGET_TIMEOUT_MS,
  );

  it(
    'POST /handoff-agenteia',
    async () => {
      let seq = 0;
      const valid = (hole: string) => (++seq % 2 ? `{"telefone":"5511900000001","motivo":${hole}}` : `{"telefone":${hole}}`);
      const answered = await fuzzPost((q) => `/handoff-agenteia?${q}`, hostileBody(valid), webhookHeaders);
      // 404: the flow ran and found no lead for that phone.
      expectBothSides(answered, 404);
      expect(await expectExecutionsSettled(stack, judged)).toBeGreaterThan(0);
    },
    TARGET_TIMEOUT_MS,
  );
});

/** The lead the gateway events come from (seeded by each gateway stack's intake). */
const LEAD_PHONE = '5511977770000';

/**
 * A provider's message event with a hole: the text is the hole, or the text is `Oi` and the hole an
 * extra member beside it; a fresh message id each time (so dedupe lets each through to the flow).
 */
function gatewayEvent(provider: ProviderCase, on: () => Stack): (hole: string) => string {
  let seq = 0;
  return (hole) => {
    seq += 1;
    const call = provider.inbound({ phone: LEAD_PHONE, text: '\u0000HOLE', id: `3A5FFUZZ${seq}` }, on().instance);
    return call.raw.replace('"\\u0000HOLE"', seq % 2 ? hole : `"Oi","extra":${hole}`);
  };
}

for (const provider of [EVOLUTION_CASE, CLOUD_CASE]) {
  describe(`hostile JSON at the ${provider.name} gateway's routes [sqlite + in-process]`, () => {
    let other: Stack;
    const judged = new Set<string>();
    beforeAll(async () => {
      other = await startStack({ provider });
      // The events come from this lead, so they reach the agent (a stranger's stop at "not a lead").
      const form = await other.post('/form/intake', {
        nome: 'Bia',
        telefone: LEAD_PHONE.slice(2),
        clinica_id: other.clinic.id,
        respostas: {},
      });
      expect(form.status).toBe(202);
      await other.engine.waitForEnd(((await form.json()) as { execution_id: string }).execution_id);
    });
    afterAll(() => other?.close());

    it(
      `POST /leadagent/${provider.name} (authenticated as the seeded instance)`,
      async () => {
        const valid = gatewayEvent(provider, () => other);
        expect(valid('1')).toMatch(/:1[,}]/);
        // Evolution: the instance's JWT (fresh for each request); Cloud: the app secret's signature over the very bytes.
        const headers = (bytes: Buffer): Record<string, string> => ({
          'content-type': 'application/json',
          ...(provider === CLOUD_CASE
            ? { 'x-hub-signature-256': signCloudBody(bytes, other.instance.app_secret ?? '') }
            : provider.inbound({ phone: LEAD_PHONE }, other.instance).headers),
        });
        const answered = await fuzzPost((q) => `/leadagent/${provider.name}?${q}`, hostileBody(valid), headers, other);
        expectBothSides(answered, 200);
        expect(await expectExecutionsSettled(other, judged)).toBeGreaterThan(0);
      },
      TARGET_TIMEOUT_MS,
    );

    if (provider === CLOUD_CASE)
      it(
        'GET /leadagent/cloud (the webhook verification): 200 echoing a valid challenge or 403, never anything else',
        async () => {
          const challenge = fc.oneof(
            fc.constantFrom('1158201444', 'abc.DEF_~-', '%31%32', '<script>', ''),
            fc.uint8Array({ maxLength: 40 }).map(percentEncode),
            fc.integer({ min: 120, max: 140 }).map((n) => '9'.repeat(n)),
          );
          const token = fc.oneof(
            fc.constant(CLOUD_VERIFY_TOKEN),
            fc.uint8Array({ maxLength: 40 }).map(percentEncode),
            fc.constant('t'.repeat(600)),
          );
          const query = fc.oneof(
            hostileQuery,
            fc.tuple(fc.boolean(), token, challenge, hostileQuery).map(([first, t, c, rest]) => {
              const hub = `hub.mode=subscribe&hub.verify_token=${t}&hub.challenge=${c}`;
              return first ? `${hub}&${rest}` : `${rest}&${hub}`;
            }),
          );
          let verified = 0;
          await fc.assert(
            fc.asyncProperty(query, async (q) => {
              const url = `${other.url}/leadagent/cloud?${q}`;
              const res = await fetch(url);
              const text = await res.text();
              expect([200, 403], `GET ${url.slice(0, 120)}: ${text.slice(0, 100)}`).toContain(res.status);
              if (res.status === 403) return void expect(text).toBe('forbidden');
              verified += 1;
              expect(text).toMatch(/^[A-Za-z0-9._~-]{1,128}$/);
              expect(new URL(url).searchParams.getAll('hub.challenge')).toContain(text);
            }),
            { numRuns: RUNS, seed: SEED, endOnFailure: true },
          );
          expect(verified).toBeGreaterThan(0);
          await expectStillServing(other);
          // A verification starts nothing.
          expect(await expectExecutionsSettled(other, judged)).toBe(0);
        },
        TARGET_TIMEOUT_MS,
      );
  });
}
