// Phone numbers typed into forms -> digits with country code (`5543999806366`), the form every
// table stores (CONTRACT §3). Uses libphonenumber-js with the full ("max") metadata, which knows
// which ranges exist today; reference §4 explains why that metadata is for form input only: it
// calls the legacy 8-digit Brazilian mobiles of old WhatsApp JIDs invalid.
//
// Parsing with that metadata costs ~0.1 ms a number, and the agent flow normalises every inbound
// message's phone (the same leads' numbers over and over): results are kept in an LRU of
// CACHE_ENTRIES by (country, text). The result is a pure function of those two (the metadata is fixed
// for the life of the process), so a cached answer is the answer; texts over CACHE_KEY_MAX_CHARS are
// computed every time and never kept. Sized for the leads a busy instance hears from in turn (about
// 1 MiB when full): an LRU smaller than the set of numbers read in rotation never hits.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { LruCache } from './lru-cache.js';

/** Most (country, text) results kept. */
export const CACHE_ENTRIES = 10_000;
/** Longest text whose result is kept, characters (a phone as typed is far shorter). */
export const CACHE_KEY_MAX_CHARS = 64;

const cache = new LruCache<string, string | null>(CACHE_ENTRIES);

/**
 * Digits with country code, or null when the input is not a valid number.
 *
 * - National input is read in `defaultCountry` (default BR): "(43) 99980-6366" -> "5543999806366";
 *   the trunk prefix and the old "0xx" long-distance prefix are accepted ("0xx43 99980-6366").
 * - International input keeps its country: "+1 415 555 2671" -> "14155552671".
 * - Landlines stay as they are: "(45) 3278-2153" -> "554532782153".
 * - A Brazilian mobile typed in the pre-2016 8-digit form (subscriber starting 6-9), which today's
 *   numbering plan does not have, gets its 9 back: "+55 43 9980-6366" -> "5543999806366". WhatsApp may
 *   still know it as the 12-digit JID: match it with brazilianVariants(), not by equality.
 * - Numbers with no area code ("99980-6366"), too short or too long: null.
 */
export function normalizeFormPhone(input: unknown, defaultCountry: CountryCode = 'BR'): string | null {
  if (typeof input !== 'string' && !(typeof input === 'number' && Number.isSafeInteger(input))) return null;
  const typed = String(input);
  if (typed.length > CACHE_KEY_MAX_CHARS) return parseFormPhone(typed, defaultCountry);
  const key = `${defaultCountry}:${typed}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const digits = parseFormPhone(typed, defaultCountry);
  cache.set(key, digits);
  return digits;
}

/** normalizeFormPhone's work, uncached. */
function parseFormPhone(typed: string, defaultCountry: CountryCode): string | null {
  const text = typed.trim().replace(/^0\s*x\s*x\s*/i, '0');
  if (text === '' || !/\d/.test(text)) return null;
  const parsed = parsePhoneNumberFromString(text, defaultCountry);
  if (!parsed) return null;
  if (parsed.isValid()) return parsed.number.slice(1);
  if (parsed.countryCallingCode === '55' && /^[1-9]{2}[6-9]\d{7}$/.test(parsed.nationalNumber)) {
    const national = parsed.nationalNumber;
    const modern = parsePhoneNumberFromString(`+55${national.slice(0, 2)}9${national.slice(2)}`);
    if (modern?.isValid() && modern.getType() === 'MOBILE') return modern.number.slice(1);
  }
  return null;
}
