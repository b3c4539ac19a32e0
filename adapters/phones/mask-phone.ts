// A phone for log lines: enough to tell numbers apart, not enough to call them.

/**
 * Keeps the first 4 digits (country + area code for Brazil) and the last 2, stars in between:
 * "5511987654321" -> "5511*******21". Numbers of 7-9 digits keep 2 + 2; 6 or fewer keep only the
 * last 2. Non-digits are dropped first (a JID masks like its digits). Empty input gives "".
 */
export function maskPhone(phone: string | null | undefined): string {
  const d = String(phone ?? '').replace(/\D/g, '');
  if (d.length === 0) return '';
  if (d.length <= 6) return '*'.repeat(Math.max(0, d.length - 2)) + d.slice(-2);
  const keep = d.length >= 10 ? 4 : 2;
  return d.slice(0, keep) + '*'.repeat(d.length - keep - 2) + d.slice(-2);
}
