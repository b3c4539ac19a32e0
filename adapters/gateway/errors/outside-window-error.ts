import { GraphApiError, type GraphApiErrorInit } from './graph-api-error.js';

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
