// The one comparison of credentials (webhook secrets, signatures, bearer and instance tokens).
import * as crypto from 'node:crypto';

/** SHA-256 of `value`: the one-shot `crypto.hash` where Node has it (20.12+), else a Hash object. */
const digest: (value: string | Buffer) => Buffer =
  typeof crypto.hash === 'function'
    ? (value) => crypto.hash('sha256', value, 'buffer')
    : (value) => crypto.createHash('sha256').update(value).digest();

/**
 * Whether `a` and `b` hold the same bytes (strings as UTF-8), in time that depends on neither
 * their content nor their lengths: both are reduced to SHA-256 digests, which are compared with
 * `crypto.timingSafeEqual`. Use it for every comparison with a credential. Never throws.
 *
 * @example
 * constantTimeEqual(req.header('x-webhook-secret') ?? '', secret); // true only for the same text
 */
export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  return crypto.timingSafeEqual(digest(a), digest(b));
}

/**
 * constantTimeEqual with one side fixed: `known`'s digest is computed once, each call digests only
 * the candidate (same guarantees: time independent of either content or length; never throws).
 * For a credential compared on every request (the configured secret) or with many others in turn
 * (the token a request sent, against every stored one).
 *
 * @example
 * const isSecret = constantTimeMatcher(secret);
 * isSecret(req.header('x-webhook-secret') ?? ''); // true only for the same text
 */
export function constantTimeMatcher(known: string | Buffer): (candidate: string | Buffer) => boolean {
  const knownDigest = digest(known);
  return (candidate) => crypto.timingSafeEqual(knownDigest, digest(candidate));
}
