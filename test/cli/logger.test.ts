// cli/logger.ts: what a log line never holds (credentials, phone numbers) and what it keeps intact.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, maskPhonesDeep, maskPhonesIn, REDACT_PATHS } from '../../cli/logger.js';
import { captureLogger } from '../helpers/capture-logger.js';

describe('createLogger', () => {
  it('prints credential fields as *** at the top level and two levels down', () => {
    const { logger, lines } = captureLogger();
    logger.info(
      {
        token: 'tok-1',
        instance_token: 'tok-2',
        headers: { authorization: 'Bearer b-1', 'x-webhook-secret': 's-1', 'x-api-key': 'k-1', cookie: 'c-1' },
        err: { response: { token: 'tok-3', api_key: 'k-2', apiKey: 'k-3', password: 'p-1' } },
      },
      'x',
    );
    const text = JSON.stringify(lines());
    for (const secret of ['tok-1', 'tok-2', 'tok-3', 'b-1', 's-1', 'k-1', 'k-2', 'k-3', 'c-1', 'p-1']) expect(text).not.toContain(secret);
    expect(lines()[0]!.headers).toEqual({ authorization: '***', 'x-webhook-secret': '***', 'x-api-key': '***', cookie: '***' });
  });

  it('masks phone numbers in fields, nested values, errors and the message; keeps ids, dates and numbers', () => {
    const { logger, lines } = captureLogger();
    logger.warn(
      {
        key: '3:5511987654321',
        jid: '5511987654321@s.whatsapp.net',
        nested: { typed: '+55 (11) 98765-4321' },
        err: new Error('no lead 5511987654321'),
        execution: '123e4567-e89b-12d3-a456-426614174000',
        at: '2025-01-02T00:00:00.000Z',
        ms: 1765454975000,
      },
      'lock lost for 3:5511987654321',
    );
    const [line] = lines();
    expect(line).toMatchObject({
      key: '3:5511*******21',
      jid: '5511*******21@s.whatsapp.net',
      nested: { typed: '5511*******21' },
      execution: '123e4567-e89b-12d3-a456-426614174000',
      at: '2025-01-02T00:00:00.000Z',
      ms: 1765454975000,
      msg: 'lock lost for 3:5511*******21',
    });
    expect(line!.err.message).toBe('no lead 5511*******21');
    expect(JSON.stringify(line)).not.toContain('987654321');
  });

  it('maskPhonesIn leaves short numbers and words with digits alone', () => {
    expect(maskPhonesIn('port 3000, attempt 2, id abc1234567890, 554399806366')).toBe(
      'port 3000, attempt 2, id abc1234567890, 5543******66',
    );
    expect(maskPhonesIn('at 2025-01-02 10:30:00')).toBe('at 2025-01-02 10:30:00');
  });
});

describe('createLogger redaction', () => {
  /** Lines as written, without `time` (each logger reads the clock itself). */
  function writer(): { destination: { write(line: string): void }; lines: string[] } {
    const lines: string[] = [];
    return { destination: { write: (line: string) => void lines.push(line.replace(/"time":\d+,/, '')) }, lines };
  }

  /**
   * The logger as configured before censorNested: pino redacting every path of REDACT_PATHS itself
   * (the reference: the same lines are expected from createLogger).
   */
  function referenceLogger(destination: { write(line: string): void }): pino.Logger {
    return pino(
      {
        level: 'debug',
        redact: { paths: REDACT_PATHS, censor: '***' },
        base: { service: 'leadflow' },
        formatters: { log: (fields) => maskPhonesDeep(fields) as Record<string, unknown> },
        hooks: {
          logMethod(args, method) {
            const masked = args.map((a) => (typeof a === 'string' ? maskPhonesIn(a) : a)) as Parameters<typeof method>;
            method.apply(this, masked);
          },
        },
      },
      destination,
    );
  }

  /** A deterministic pseudo-random source (mulberry32). */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const KEYS = [
    'token',
    'authorization',
    'x-api-key',
    'set-cookie',
    'password',
    'headers',
    'err',
    'body',
    'a',
    'b',
    'list',
    'api_key',
    'apiKey',
  ];
  const TEXTS = ['plain', 'Bearer b-1', '5511987654321', 'lone \ud83d surrogate', 'quote " and \\ slash', 'tab\there', '', '***'];

  function value(next: () => number, depth: number): unknown {
    const pick = Math.floor(next() * 12);
    if (depth > 4 || pick < 4) {
      const scalars = [TEXTS[Math.floor(next() * TEXTS.length)], 42, null, undefined, true, Number.NaN, -0];
      return scalars[Math.floor(next() * scalars.length)];
    }
    if (pick < 6) return Array.from({ length: Math.floor(next() * 3) }, () => value(next, depth + 1));
    if (pick === 6) return Object.assign(new Error(`failed for 5511987654321 ${depth}`), { token: 'e-1', code: 'E1' });
    if (pick === 7) return JSON.parse('{"__proto__": {"token": "p-1"}, "x": 1}');
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) object[KEYS[Math.floor(next() * KEYS.length)]!] = value(next, depth + 1);
    return object;
  }

  it('prints the same lines as pino redacting every path itself', () => {
    const reference = writer();
    const actual = writer();
    const before = referenceLogger(reference.destination);
    const previous = process.env.LOG_LEVEL;
    delete process.env.LOG_LEVEL;
    const logger = createLogger({ level: 'debug', destination: actual.destination as never });
    if (previous !== undefined) process.env.LOG_LEVEL = previous;
    const next = random(7);
    for (let i = 0; i < 3000; i++) {
      const fields = value(next, 0);
      const object = fields && typeof fields === 'object' && !Array.isArray(fields) ? fields : { value: fields };
      const message = TEXTS[i % TEXTS.length]!;
      before.info(object, message);
      logger.info(object, message);
    }
    expect(actual.lines).toHaveLength(3000);
    for (let i = 0; i < reference.lines.length; i++) expect(actual.lines[i], `line ${i}`).toBe(reference.lines[i]);
    // Censored one and two levels down somewhere in the sample (the comparison covers that case).
    expect(actual.lines.some((l) => /"(headers|body|a|b|list)":\{[^{}]*"(token|authorization|password)":"\*\*\*"/.test(l))).toBe(true);
  });

  it('never changes the object logged', () => {
    const { logger } = captureLogger();
    const fields = { headers: { authorization: 'Bearer b-1', nested: { token: 't-1' } }, list: [{ password: 'p-1' }] };
    const copy = structuredClone(fields);
    logger.info(fields, 'x');
    expect(fields).toEqual(copy);
  });
});
