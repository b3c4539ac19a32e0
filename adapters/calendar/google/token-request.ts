// One request to the token endpoint (reference calendar-providers.md §2.1):
//   POST <token_url>  application/x-www-form-urlencoded
//   grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<signed JWT>
//   -> 200 {"access_token":"ya29.…","expires_in":3599,"token_type":"Bearer"}
//   -> 400 {"error":"invalid_grant","error_description":"Invalid JWT Signature."}
// Errors are GoogleUnavailableError naming the account's e-mail and the endpoint's answer, with the
// assertion and any token removed; the status is undefined for a timeout (GoogleTimeoutError) or network
// failure.
import { GoogleTimeoutError, GoogleUnavailableError, errorInfo } from './google-errors.js';
import { signAssertion } from './jwt-assertion.js';
import type { ServiceAccount } from './service-account.js';
import type { TokenFetchOptions } from './token-cache.js';

/** `expires_in` assumed when the answer gives none, seconds. */
const DEFAULT_EXPIRES_IN_S = 3600;

/** Fetches a new token for `account`; resolves to it and its expiry (ms since the epoch by `options.clock`). */
export async function requestToken(
  account: ServiceAccount,
  tokenUrl: string,
  options: TokenFetchOptions,
): Promise<{ token: string; expiresAt: number }> {
  const issuedAt = options.clock.now();
  const assertion = signAssertion(account, tokenUrl, issuedAt);
  const who = `token request for ${account.client_email} at ${displayUrl(tokenUrl)}`;
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
  let status: number;
  let text: string;
  try {
    const response = await options.fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: AbortSignal.timeout(Math.max(1, Math.floor(options.timeoutMs))),
    });
    status = response.status;
    text = await response.text();
  } catch (err) {
    if ((err as Error)?.name === 'TimeoutError')
      throw new GoogleTimeoutError(`google: ${who}: timeout after ${options.timeoutMs} ms`, options.timeoutMs);
    throw new GoogleUnavailableError(`google: ${who}: ${networkText(err)}`);
  }
  const body = parse(text);
  const token = (body as { access_token?: unknown } | undefined)?.access_token;
  const redact = (t: string) => t.split(assertion).join('***');
  if (status < 200 || status > 299 || typeof token !== 'string' || token === '') {
    const info = errorInfo(body);
    const detail = [info.reason, info.message].filter(Boolean).join(': ');
    const why = status >= 200 && status <= 299 ? 'answer without access_token' : `refused: HTTP ${status}`;
    throw new GoogleUnavailableError(redact(`google: ${who} ${why}${detail ? ` (${detail.slice(0, 300)})` : ''}`), status, info.reason);
  }
  const expiresIn = Number((body as { expires_in?: unknown }).expires_in);
  const lifetimeS = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_EXPIRES_IN_S;
  return { token, expiresAt: issuedAt + lifetimeS * 1000 };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Origin and path of a URL (no query, no user info). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** `network error (ECONNREFUSED)` from a fetch failure (the code of its cause when there is one). */
export function networkText(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : (err as Error)?.name;
  return `network error${code ? ` (${code})` : ''}`;
}
