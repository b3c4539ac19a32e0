// Every digit string under which one Brazilian number may be stored or arrive (reference §4):
// with and without the country code 55, and for mobiles with and without the 9 after the area code
// (WhatsApp accounts made before the 9th digit keep 12-digit JIDs). Used to match a form lead to an
// inbound JID; once a real JID arrives, store that one.
//
// Rules:
//   - Input: digits (other characters are dropped). `55` + 10/11 digits, or 10/11 national digits
//     (area code 11-99 without zeros + subscriber). Anything else is returned alone, unchanged.
//   - A 9-digit subscriber `9XXXXXXXX` whose rest starts 6-9 is a mobile: its 8-digit variant drops the 9.
//     A 9-digit subscriber whose rest starts 2-5 (e.g. 9 3456-7890) has no 8-digit form: dropping
//     the 9 would name a landline.
//   - An 8-digit subscriber starting 6-9 is a legacy mobile: its variant adds the 9.
//   - An 8-digit subscriber starting 2-5 is a landline: never add a 9.
//   - Order: the input first, then the other variants with 55, then without.

/** Variants of `digits`, deduplicated, the input first. */
export function brazilianVariants(digits: string): string[] {
  const d = String(digits ?? '').replace(/\D/g, '');
  if (d === '') return [];
  const national = /^55\d{10,11}$/.test(d) ? d.slice(2) : /^\d{10,11}$/.test(d) ? d : null;
  if (!national || !isBrazilianNational(national)) return [d];
  const area = national.slice(0, 2);
  const subscriber = national.slice(2);
  const nationals = [national];
  if (subscriber.length === 9 && /^9[6-9]/.test(subscriber)) nationals.push(area + subscriber.slice(1));
  if (subscriber.length === 8 && /^[6-9]/.test(subscriber)) nationals.push(`${area}9${subscriber}`);
  const all = [d, ...nationals.map((n) => `55${n}`), ...nationals];
  return [...new Set(all)];
}

/** Area code 11-99 with no zero digit, then an 8-digit subscriber starting 2-9 or a 9-digit one starting 9. */
function isBrazilianNational(national: string): boolean {
  return /^[1-9]{2}([2-9]\d{7}|9\d{8})$/.test(national);
}
