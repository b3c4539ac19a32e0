// The JWT a service account signs to ask Google's token endpoint for an access token (reference
// calendar-providers.md §2.1, the JWT bearer grant): header {"alg":"RS256","typ":"JWT"}, claims
// iss = client_email, scope, aud = the token URL, iat = now, exp = iat + 3600 (seconds since the
// epoch; an hour is Google's maximum). Signed with node:crypto (RSASSA-PKCS1-v1_5 over SHA-256).
import { createSign } from 'node:crypto';
import { CalendarUnavailableError } from '../calendar.js';
import type { ServiceAccount } from './service-account.js';

/** The scope LeadFlow asks for: read and write events, and freeBusy (which `calendar.events` does not cover). */
export const CALENDAR_SCOPE = 'https://www.googleapis.com/auth/calendar';

/** Lifetime asked for in the assertion, seconds (Google's maximum). */
export const ASSERTION_LIFETIME_S = 3600;

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/**
 * The signed assertion `<header>.<claims>.<signature>` (base64url) for `account` at `tokenUrl`, issued
 * at `nowMs` (ms since the epoch, rounded down to seconds). Throws CalendarUnavailableError naming the
 * account (never the key) when the key cannot sign.
 */
export function signAssertion(account: ServiceAccount, tokenUrl: string, nowMs: number, scope: string = CALENDAR_SCOPE): string {
  const iat = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(JSON.stringify({ iss: account.client_email, scope, aud: tokenUrl, iat, exp: iat + ASSERTION_LIFETIME_S }));
  const input = `${header}.${claims}`;
  let signature: Buffer;
  try {
    signature = createSign('RSA-SHA256').update(input).sign(account.private_key);
  } catch {
    // The crypto error may quote parts of the key: it is not kept as a cause.
    throw new CalendarUnavailableError(`google: the private_key of ${account.client_email} cannot sign (not a valid RSA private key)`);
  }
  return `${input}.${base64url(signature)}`;
}
