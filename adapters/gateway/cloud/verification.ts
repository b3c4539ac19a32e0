// The WhatsApp Cloud API webhook verification request (GET /leadagent/cloud, CONTRACT §11). Meta
// calls the callback URL with `hub.mode=subscribe`, `hub.challenge=<int>` and `hub.verify_token=<the
// token typed in the App Dashboard>`; the endpoint answers 200 with the challenge as the raw body
// when the token is right, else 403 (developers.facebook.com/docs/graph-api/webhooks/getting-started,
// as quoted in reference whatsapp-providers.md §2.2).
//
// Rules: `hub.mode` must be `subscribe`; `hub.verify_token` 1-512 characters and one instance's
// `verify_token` (the lookup compares in constant time: verifyTokenMatches / verifyTokenLookup);
// `hub.challenge` is echoed only when it is 1-128 URL-safe characters (`A-Z a-z 0-9 . _ ~ -`: Meta
// sends digits), so nothing else can be reflected. Any other request: 403. Each parameter must be a
// single string (a repeated name is refused). Both query shapes are read: literal dotted keys
// (`{"hub.mode": …}`, Node's and Express 5's default parser) and nested ones (`{hub: {mode}}`).
import { createHash, timingSafeEqual } from 'node:crypto';

/** The answer to Meta's verification GET: 200 with the challenge as plain text, or 403. */
export type CloudVerificationResult = { status: 200; body: string; type: 'text/plain' } | { status: 403 };

/** Whether some instance has this verify token. Must compare in constant time; may reject when its store is down. */
export type VerifyTokenLookup = (token: string) => Promise<boolean>;

const CHALLENGE = /^[A-Za-z0-9._~-]{1,128}$/;
const MAX_VERIFY_TOKEN_CHARS = 512;
const FORBIDDEN = { status: 403 } as const;

function param(query: URLSearchParams | Record<string, unknown>, name: 'mode' | 'verify_token' | 'challenge'): string | undefined {
  if (query instanceof URLSearchParams) {
    const all = query.getAll(`hub.${name}`);
    return all.length === 1 ? all[0] : undefined;
  }
  const flat = query[`hub.${name}`];
  const hub = query.hub;
  const nested = hub && typeof hub === 'object' && !Array.isArray(hub) ? (hub as Record<string, unknown>)[name] : undefined;
  const value = flat ?? nested;
  return typeof value === 'string' ? value : undefined;
}

/** Answers Meta's verification GET (see the rules above). Rejects only when the lookup rejects. */
export async function verifyCloudSubscription(
  query: URLSearchParams | Record<string, unknown>,
  lookupVerifyToken: VerifyTokenLookup,
): Promise<CloudVerificationResult> {
  if (!query || typeof query !== 'object') return FORBIDDEN;
  const mode = param(query, 'mode');
  const token = param(query, 'verify_token');
  const challenge = param(query, 'challenge');
  if (mode !== 'subscribe' || challenge === undefined || !CHALLENGE.test(challenge)) return FORBIDDEN;
  if (token === undefined || token.length === 0 || token.length > MAX_VERIFY_TOKEN_CHARS) return FORBIDDEN;
  if (!(await lookupVerifyToken(token))) return FORBIDDEN;
  return { status: 200, body: challenge, type: 'text/plain' };
}

/** Constant-time equality of two tokens (hashed first, so their lengths do not show either). Empty never matches. */
export function verifyTokenMatches(candidate: string, expected: string | null | undefined): boolean {
  if (typeof expected !== 'string' || expected === '' || typeof candidate !== 'string') return false;
  const a = createHash('sha256').update(candidate, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** A VerifyTokenLookup over the instances' verify tokens: compares against every one (no early exit). */
export function verifyTokenLookup(tokens: () => Promise<Iterable<string | null | undefined>>): VerifyTokenLookup {
  return async (candidate) => {
    let found = false;
    for (const expected of await tokens()) found = verifyTokenMatches(candidate, expected) || found;
    return found;
  };
}
