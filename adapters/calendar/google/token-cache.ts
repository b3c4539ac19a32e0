// Access tokens of service accounts (reference calendar-providers.md §2.1): one POST of a signed JWT
// assertion to the token URL gives a bearer token for about an hour (`expires_in`, seconds). Tokens are
// kept per service account (e-mail and key hash) and token URL until `expires_in` minus `marginMs`
// (default 60 s) by the cache's clock; while one request for a token is under way, every other caller
// waiting for the same token awaits it (one request at a time per account). A token Google refused
// (401) is dropped with `invalidate`. Tokens and assertions are never logged or put in an error.
import type { Clock } from '../../clock.js';
import { accountCacheKey, type ServiceAccount } from './service-account.js';
import { requestToken } from './token-request.js';

/** How a token is fetched: the HTTP client, the time read for `iat` and expiry, the request's time limit (ms). */
export interface TokenFetchOptions {
  fetch: typeof fetch;
  clock: Clock;
  timeoutMs: number;
}

interface CachedToken {
  token: string;
  /** ms since the epoch, by the clock the token was fetched with. */
  expiresAt: number;
}

/** Tokens per service account and token URL (see the file's head). */
export class TokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  /** @param marginMs a token is renewed this long before it expires, ms (default 60 000). */
  constructor(readonly marginMs = 60_000) {}

  /**
   * A bearer token for `account` at `tokenUrl`: the cached one while it has more than `marginMs` left,
   * else a new one (shared with concurrent callers). Rejects with CalendarUnavailableError.
   */
  async token(account: ServiceAccount, tokenUrl: string, options: TokenFetchOptions): Promise<string> {
    const key = accountCacheKey(account, tokenUrl);
    const cached = this.tokens.get(key);
    if (cached && options.clock.now() < cached.expiresAt - this.marginMs) return cached.token;
    let pending = this.pending.get(key);
    if (!pending) {
      pending = requestToken(account, tokenUrl, options)
        .then((fresh) => {
          this.tokens.set(key, fresh);
          return fresh;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return (await pending).token;
  }

  /** Forgets `token` (refused by Google) so the next call fetches another; a newer token is kept. */
  invalidate(account: ServiceAccount, tokenUrl: string, token: string): void {
    const key = accountCacheKey(account, tokenUrl);
    if (this.tokens.get(key)?.token === token) this.tokens.delete(key);
  }
}

/** The cache every GoogleCalendar shares unless given another: clinics sharing one service account share its token. */
export const sharedTokenCache = new TokenCache();
