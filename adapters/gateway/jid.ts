// WhatsApp JIDs (reference §4): `<digits>@s.whatsapp.net` (or `@c.us`) is a phone number,
// `<id>@lid` an opaque per-user id (never a phone), `<id>@g.us` a group, `status@broadcast` status.
// A device suffix (`5511…:12@s.whatsapp.net`) may follow the user part.

/** What a JID names: a phone, a LID (never a phone), a group, the status broadcast, or something else. */
export type JidKind = 'phone' | 'lid' | 'group' | 'broadcast' | 'unknown';

/** The kind of `jid` by its server part (bare digits, with or without `+`: a phone). */
export function jidKind(jid: string): JidKind {
  const at = jid.lastIndexOf('@');
  if (at < 0) return /^\+?\d+$/.test(jid) ? 'phone' : 'unknown';
  const server = jid.slice(at + 1).toLowerCase();
  if (server === 's.whatsapp.net' || server === 'c.us') return 'phone';
  if (server === 'lid') return 'lid';
  if (server === 'g.us') return 'group';
  if (server === 'broadcast') return 'broadcast';
  return 'unknown';
}

/** Digits of a phone-number JID (or of bare digits), device suffix dropped; null for anything else. */
export function phoneFromJid(jid: string | null | undefined): string | null {
  if (typeof jid !== 'string' || jidKind(jid) !== 'phone') return null;
  const user = jid.split('@')[0]!.split(':')[0]!.replace(/^\+/, '');
  return /^\d{8,15}$/.test(user) ? user : null;
}
