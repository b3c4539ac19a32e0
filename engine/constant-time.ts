// The one comparison of credentials (webhook secrets, signatures, bearer and instance tokens).
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string | Buffer): Buffer => createHash('sha256').update(value).digest();

/**
 * Whether `a` and `b` hold the same bytes (strings as UTF-8), in time that depends on neither
 * their content nor their lengths: both are reduced to SHA-256 digests, which are compared with
 * `crypto.timingSafeEqual`. Use it for every comparison with a credential. Never throws.
 *
 * @example
 * constantTimeEqual(req.header('x-webhook-secret') ?? '', secret); // true only for the same text
 */
export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
