// The Cloud API's own errors: a webhook body that is not a Cloud webhook (CloudEventError), and a
// Graph API error answer (GraphApiError; OutsideWindowError for Meta's 24-hour rule, 131047). What a
// Graph error code means for a retry is error-codes.ts.
import type { JsonValue } from '../../../engine/types.js';
import { GatewayHttpError } from '../errors/gateway-http-error.js';

/** The Graph API error object of a non-2xx answer (`{"error": {message, type, code, error_subcode, error_data, fbtrace_id}}`). */
export interface GraphErrorInfo {
  /** Meta's error code (e.g. 131047, 130429, 190): what handling branches on. */
  code?: number;
  error_subcode?: number;
  type?: string;
  /** `(#code) title`; titles are to be deprecated by Meta, never branch on them. */
  message?: string;
  /** `error_data.details`: Meta's explanation, the second thing to branch on after `code`. */
  details?: string;
  fbtrace_id?: string;
}

/** What a GraphApiError is built from: the answer's status, body (token removed) and call, and Meta's error object when it sent one. */
export interface GraphApiErrorInit {
  status: number;
  /** The answer's JSON (else its text cut to 4 KiB), the access token removed. */
  body: JsonValue;
  /** Origin and path of the call (no query, no credentials). */
  url: string;
  method: 'GET' | 'POST';
  info?: GraphErrorInfo | undefined;
  /** One of Meta's rate-limit codes (or HTTP 429), whether or not it was retried. */
  rateLimited: boolean;
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * The WhatsApp Cloud (Graph) API answered with a non-2xx status. A GatewayHttpError (`status`,
 * `body`, `url`, `retryAfterMs`) with Meta's error fields lifted out: `graphCode`, `graphSubcode`,
 * `details`, `fbtraceId`, and `rateLimited` for Meta's rate-limit codes (reference §2.11). The
 * message names the HTTP method, the code and Meta's message; never the access token.
 */
export class GraphApiError extends GatewayHttpError {
  override name = 'GraphApiError';
  readonly method: 'GET' | 'POST';
  readonly graphCode: number | undefined;
  readonly graphSubcode: number | undefined;
  readonly details: string | undefined;
  readonly fbtraceId: string | undefined;
  readonly rateLimited: boolean;

  constructor(init: GraphApiErrorInit) {
    super(init.status, init.body, init.url, init.retryAfterMs, init.cause === undefined ? undefined : { cause: init.cause });
    const info = init.info ?? {};
    this.method = init.method;
    this.graphCode = info.code;
    this.graphSubcode = info.error_subcode;
    this.details = info.details;
    this.fbtraceId = info.fbtrace_id;
    this.rateLimited = init.rateLimited;
    const what = [info.code !== undefined && !info.message?.startsWith(`(#${info.code})`) ? `(#${info.code})` : '', info.message ?? '']
      .filter(Boolean)
      .join(' ');
    const detail = [what, info.details ?? ''].filter(Boolean).join(': ');
    this.message = `Graph API answered HTTP ${init.status} to ${init.method} ${init.url}${detail ? `: ${detail}` : ''}`;
  }
}

/**
 * The WhatsApp Cloud API refused a free-form message because the recipient has not written to this
 * business number in the last 24 hours (Meta error 131047, "Re-engagement message": "More than 24
 * hours have passed since the recipient last replied to the sender number"; reference §2.10-2.11).
 * Never retried: only an approved template reaches the recipient now. Catch it (instanceof, or
 * `name === 'OutsideWindowError'`) to send the template instead, once.
 */
export class OutsideWindowError extends GraphApiError {
  override name = 'OutsideWindowError';
  readonly outsideWindow = true;

  constructor(init: Omit<GraphApiErrorInit, 'rateLimited'>) {
    super({ ...init, rateLimited: false });
  }
}

/**
 * A body given as a WhatsApp Cloud API webhook (`object: "whatsapp_business_account"`) does not have
 * its shape. `details` lists each problem with its path (e.g. `entry[0].changes[1].value.messages[0].id`);
 * answer 422 with them.
 */
export class CloudEventError extends Error {
  override name = 'CloudEventError';
  readonly code = 'invalid-event';
  readonly status = 422;
  constructor(readonly details: Array<{ path: string; message: string }>) {
    super(`not a WhatsApp Cloud API webhook: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`);
  }
}
