// The service account a clinic's Google calendar is shared with (CONTRACT §12,
// `agenda.google.service_account`: the key JSON Google gives, kept whole). Only `client_email` and
// `private_key` are read. The key is a PKCS#8 PEM; a copy that went through an environment variable or
// a form often carries its newlines as the two characters backslash-n, which is repaired here.
// The key never leaves this process: it signs the JWT assertion (jwt-assertion.ts) and is never put in
// a message, log line or record; caches are keyed by its SHA-256, never by the key itself.
import { createHash } from 'node:crypto';
import { CalendarUnavailableError } from '../calendar.js';

/** The fields of a service account key JSON that LeadFlow reads. */
export interface ServiceAccount {
  /** `…@<project>.iam.gserviceaccount.com`: the JWT's `iss` and the e-mail the calendar is shared with. */
  client_email: string;
  /** PEM (`-----BEGIN PRIVATE KEY-----…`), newlines real or escaped as backslash-n. */
  private_key: string;
}

/** The key JSON as Google gives it (`type`, `project_id`, `private_key_id`… are kept but not read). */
export type ServiceAccountInput = Partial<ServiceAccount> & Record<string, unknown>;

/** The key JSON given as text; undefined when it is not a JSON object (the check then names the missing fields). */
function parseKeyJson(text: string): ServiceAccountInput | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as ServiceAccountInput) : undefined;
  } catch {
    return undefined;
  }
}

/** `pem` with literal backslash-n (and backslash-r) sequences turned into real newlines; a PEM already fine is returned as is. */
export function repairPrivateKey(pem: string): string {
  if (!pem.includes('\\n')) return pem;
  return pem.replace(/\\r/g, '').replace(/\\n/g, '\n');
}

/**
 * The account (the key JSON, as an object or its text) with its key repaired; throws CalendarUnavailableError (naming the field, never its
 * value) when `client_email` or `private_key` is missing or the key is not a PEM private key.
 */
export function checkedServiceAccount(value: ServiceAccountInput | string | null | undefined): ServiceAccount {
  const account = typeof value === 'string' ? parseKeyJson(value) : value;
  const email = account?.client_email;
  if (typeof email !== 'string' || !email.includes('@')) {
    throw new CalendarUnavailableError('google: service_account.client_email is missing or not an e-mail');
  }
  const key = account?.private_key;
  if (typeof key !== 'string' || !/-----BEGIN (RSA )?PRIVATE KEY-----/.test(key)) {
    throw new CalendarUnavailableError(`google: service_account.private_key of ${email} is missing or not a PEM private key`);
  }
  return { client_email: email, private_key: repairPrivateKey(key) };
}

/** A cache key for tokens of `account` at `tokenUrl`: e-mail, URL and the key's SHA-256 (so a changed key gets its own token). */
export function accountCacheKey(account: ServiceAccount, tokenUrl: string): string {
  const keyHash = createHash('sha256').update(account.private_key).digest('hex');
  return `${tokenUrl}\n${account.client_email}\n${keyHash}`;
}
