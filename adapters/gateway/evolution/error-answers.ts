// What an Evolution API v2 error answer means, as the HTTP status the shared retry policy
// (http-call.ts: 429 / 5xx retried, other 4xx not) understands. A fetch wrapper: the Evolution
// client hands it to its HTTP base (http-client.ts `wrapFetch`) instead of the bare fetch.
//
// Why: Evolution wraps every failure inside a send in `BadRequestException(error.toString())`
// (`sendMessageWithTyping`'s catch, evolution-foundation/evolution-api tag 2.3.7,
// src/api/integrations/channel/whatsapp/whatsapp.baileys.service.ts), so two transient failures
// arrive as HTTP 400 with Evolution's error shape `{status, error, response: {message}}`
// (src/main.ts error handler; reference whatsapp-providers.md §1.11):
//   - WhatsApp's own rate limit: Baileys throws `rate-overlimit` (Boom data 429), e.g.
//     `{"status":400,"error":"Bad Request","response":{"message":["Error: rate-overlimit"]}}`
//     (evolution-foundation/evolution-api issue #1089). Outside the try (the `onWhatsApp` check) it
//     is a 500 with `"message":"rate-overlimit"`. Either way it becomes 429.
//   - The socket to WhatsApp dropped: `{"status":400,…,"message":["Error: Connection Closed"]}`
//     (issue #2229, 2.3.6). It is thrown before the message node is written, so nothing was sent; it
//     becomes 503. (The 500 form, issues #1286, #1799, is retried as it is.)
// Every other answer passes unchanged: number not on WhatsApp (400 `exists:false`), unknown instance
// (404), wrong apikey (401), validation (400), and 2.4.0's `503 LICENSE_REQUIRED` (retried like any
// 5xx, then reported with its body). Evolution 2.3.7 has no HTTP rate limiter of its own (no 429 in
// its source); a 429 comes from a proxy in front of it and is retried as usual.
// The rewritten answer keeps Evolution's body as sent (its `status` field still says 400) and the
// Retry-After and Content-Type headers; only the HTTP status changes. At most 16 KiB of an error
// body is read to decide; a longer one passes unchanged.

import { readLimited } from '../http-call.js';

/** Largest error body inspected, bytes. */
const MAX_INSPECTED_BYTES = 16 * 1024;

/** The status an Evolution error body means, or undefined to keep the answer's own. */
export function evolutionErrorStatus(status: number, body: unknown): number | undefined {
  if (status < 400 || status === 429) return undefined;
  const text = messageText(body);
  if (/rate-overlimit/i.test(text)) return 429;
  if (status === 400 && /connection closed/i.test(text)) return 503;
  return undefined;
}

/** `response.message` of Evolution's error shape (string, array or nested arrays) as one text. */
function messageText(body: unknown): string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return '';
  const response = (body as { response?: unknown }).response;
  const message = response && typeof response === 'object' ? (response as { message?: unknown }).message : undefined;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return JSON.stringify(message);
  return '';
}

/** `inner` with Evolution's error answers given the status they mean (see the file's head). */
export function evolutionFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status < 400 || response.status === 429 || !response.body) return response;
    const text = await peek(response.clone());
    if (text === null) return response;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return response;
    }
    const meant = evolutionErrorStatus(response.status, body);
    if (meant === undefined) return response;
    await response.body.cancel().catch(() => undefined);
    const headers = new Headers();
    for (const name of ['content-type', 'retry-after']) {
      const value = response.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    return new Response(text, { status: meant, headers });
  };
}

/** The body of `copy` as text when it is at most MAX_INSPECTED_BYTES, else null (the copy is cancelled); null too when reading fails. */
async function peek(copy: Response): Promise<string | null> {
  try {
    const bytes = await readLimited(copy, MAX_INSPECTED_BYTES);
    return bytes === null ? null : bytes.toString('utf8');
  } catch {
    return null;
  }
}
