// Which errors park a step (a dependency of the process is unreachable) rather than fail it.
import { describe, expect, it } from 'vitest';
import { isDependencyUnavailable } from '../../engine/errors/dependency-unavailable.js';

const withCode = (message: string, code: string, name = 'Error') => Object.assign(new Error(message), { code, name });

describe('isDependencyUnavailable', () => {
  it('is true for the database and Redis being unreachable', () => {
    expect(isDependencyUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isDependencyUnavailable(withCode('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isDependencyUnavailable(withCode('connection failure', '08006'))).toBe(true);
    expect(isDependencyUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isDependencyUnavailable(
        Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
      ),
    ).toBe(true);
    expect(isDependencyUnavailable(new Error('Connection is closed.'))).toBe(true);
  });

  it("is false for a step's own failures and for outside calls, which have their own retries", () => {
    expect(isDependencyUnavailable(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(
      isDependencyUnavailable(new TypeError('fetch failed', { cause: withCode('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED') })),
    ).toBe(false);
    expect(isDependencyUnavailable(withCode('gateway unreachable', 'ECONNREFUSED', 'GatewayNetworkError'))).toBe(false);
    expect(isDependencyUnavailable(Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' }))).toBe(false);
    expect(isDependencyUnavailable(new Error('boom'))).toBe(false);
    expect(isDependencyUnavailable(undefined)).toBe(false);
  });
});
