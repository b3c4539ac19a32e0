// Console passwords (CONTRACT.md §13): only a memory-hard hash is stored, never the password.
//   hash      scrypt (node:crypto), N = 2^15, r = 8, p = 1 (32 MiB of memory per hash), a 16-byte
//             random salt, a 32-byte key; stored self-describing as
//             `scrypt$<N>$<r>$<p>$<salt base64url>$<key base64url>`, so stronger parameters can come
//             later and old hashes still verify with their own.
//   verify    recomputes with the stored parameters and compares with timingSafeEqual; a malformed
//             stored value (or parameters past the limits below) is simply "no match".
//   generate  20 characters from a 57-letter alphabet without look-alikes (0/O, 1/l/I), grouped
//             by dashes in fives for reading aloud: about 116 bits of randomness.
import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt cost (N) of new hashes. */
export const SCRYPT_N = 2 ** 15;
/** scrypt block size (r) of new hashes. */
export const SCRYPT_R = 8;
/** scrypt parallelism (p) of new hashes. */
export const SCRYPT_P = 1;
/** Random salt bytes of a new hash. */
const SALT_BYTES = 16;
/** Derived key bytes of a new hash. */
const KEY_BYTES = 32;
/** The largest N a stored hash may name (refused beyond: a stored value must not exhaust memory). */
const MAX_N = 2 ** 20;
/** Memory scrypt may use: 128·N·r bytes plus room (node's default, 32 MiB, is just too small for N = 2^15, r = 8). */
const maxmemFor = (n: number, r: number): number => 128 * n * r * 2;

/** A hash computed for nothing (unknown email), so a sign-in takes as long whether or not the account exists. */
let dummyHash: Promise<string> | undefined;

function derive(password: string, salt: Buffer, n: number, r: number, p: number, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, { N: n, r, p, maxmem: maxmemFor(n, r) }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** The stored form of `password`: `scrypt$N$r$p$salt$key` (see the header). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_BYTES);
  return ['scrypt', SCRYPT_N, SCRYPT_R, SCRYPT_P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** The parts of a stored hash, or undefined when it is malformed or its parameters are out of bounds. */
function parseHash(stored: string): { n: number; r: number; p: number; salt: Buffer; key: Buffer } | undefined {
  const match = /^scrypt\$([0-9]{1,8})\$([0-9]{1,2})\$([0-9]{1,2})\$([A-Za-z0-9_-]{16,128})\$([A-Za-z0-9_-]{32,128})$/.exec(stored);
  if (!match) return undefined;
  const [n, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const powerOfTwo = n >= 2 && (n & (n - 1)) === 0;
  if (!powerOfTwo || n > MAX_N || r < 1 || r > 32 || p < 1 || p > 16) return undefined;
  return { n, r, p, salt: Buffer.from(match[4]!, 'base64url'), key: Buffer.from(match[5]!, 'base64url') };
}

/** True when `password` is the one `stored` was made from (constant-time comparison of the keys). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = parseHash(stored);
  if (!parts) return false;
  const key = await derive(password, parts.salt, parts.n, parts.r, parts.p, parts.key.length);
  return timingSafeEqual(key, parts.key);
}

/** Spends the time of one verification and answers false: for a sign-in with an unknown email. */
export async function verifyNothing(password: string): Promise<false> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummyHash);
  return false;
}

/** Letters and digits of generated passwords: no 0/O, 1/l/I look-alikes. */
const ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Random characters of a generated password (dashes aside). */
const GENERATED_LENGTH = 20;

/** A new random password: 20 characters of ALPHABET in groups of five joined by `-` (23 characters). */
export function generatePassword(): string {
  const chars = Array.from({ length: GENERATED_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]!);
  const groups: string[] = [];
  for (let i = 0; i < chars.length; i += 5) groups.push(chars.slice(i, i + 5).join(''));
  return groups.join('-');
}

/** Shortest password a person may choose (PasswordChangeRequest). */
export const MIN_PASSWORD_LENGTH = 10;
/** Longest password accepted anywhere. */
export const MAX_PASSWORD_LENGTH = 200;
