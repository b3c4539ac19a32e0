// cli/logger.ts: what a log line never holds (credentials, phone numbers) and what it keeps intact.
import { describe, expect, it } from 'vitest';
import { maskPhonesIn } from '../../cli/logger.js';
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
