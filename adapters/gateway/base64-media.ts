// Media bytes a gateway answers as base64 text (uazapi's `base64Data`, Evolution's `base64`).

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The bytes of `data`, base64 or base64url (whitespace ignored; `-` or `_` means base64url). Throws
 * what `invalid()` returns when `data` is neither.
 */
export function decodeBase64Media(data: string, invalid: () => Error): Buffer {
  const compact = data.replace(/\s+/g, '');
  if (!BASE64.test(compact)) throw invalid();
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
}
