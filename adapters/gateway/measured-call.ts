// The metrics side of one gateway call, shared by every provider's client: `retried` before each
// retry, then `ok` or `error` once when the call ends (an abort counts as `error`), each event naming
// the provider whose client made the call. The hook never breaks a call: what it throws is swallowed.
import type { GatewayCallEvent } from './gateway-client.js';

/**
 * Runs `call` with `policy` (its `onRetry` set to report the retries when `onCall` is given) and
 * reports the call's end, as an `op` call of `provider`'s client; without `onCall`, just `call(policy)`.
 */
export async function measuredCall<P extends { onRetry?: () => void }, T>(
  onCall: ((event: GatewayCallEvent) => void) | undefined,
  policy: P,
  provider: GatewayCallEvent['provider'],
  op: GatewayCallEvent['op'],
  call: (policy: P) => Promise<T>,
): Promise<T> {
  if (!onCall) return call(policy);
  const emit = (outcome: GatewayCallEvent['outcome']) => {
    try {
      onCall({ provider, op, outcome });
    } catch {
      // metrics must never break a call
    }
  };
  try {
    const result = await call({ ...policy, onRetry: () => emit('retried') });
    emit('ok');
    return result;
  } catch (err) {
    emit('error');
    throw err;
  }
}
