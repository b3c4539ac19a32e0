// The text send uazapi and Evolution share: POST `{number, text, delay}` (plus the provider's own
// fields, e.g. uazapi's tracking tags) to the instance's send route.
import type { SendTextRequest } from './gateway-client.js';
import type { RetryPolicy } from './http-call.js';
import { type GatewayHttp, MAX_SEND_ANSWER_BYTES } from './http-client.js';

/**
 * POSTs one text to `url` as `{number, text, delay, ...extra}` and resolves with the answer object. `number`
 * must be digits (TypeError otherwise); `delay` (ms, rounded, at least 0) is sent as is and added to
 * the attempt's time limit, because the gateway holds the answer while it shows "typing…". Never
 * retried after a timeout (the text may have been delivered).
 */
export async function postPlainText(
  http: GatewayHttp,
  url: string,
  request: SendTextRequest,
  signal: AbortSignal | undefined,
  policy: RetryPolicy,
  extra: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  if (!/^\d+$/.test(request.number)) throw new TypeError('sendText: number must be digits only (country code first, no JID suffix)');
  const delay = Math.max(0, Math.round(request.delay ?? 0));
  const { object } = await http.callForObject(
    {
      method: 'POST',
      url,
      body: { number: request.number, text: request.text, delay, ...extra },
      timeoutMs: http.timeoutMs + delay,
      retryTimeouts: false,
      maxResponseBytes: MAX_SEND_ANSWER_BYTES,
      ...(signal ? { signal } : {}),
    },
    policy,
  );
  return object;
}
