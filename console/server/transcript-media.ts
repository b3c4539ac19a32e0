// GET /admin/leads/:id/messages/:mid/media (issue 30): the medium of one transcript row (a received
// audio, image, video or document), downloaded again from the provider through the lead's instance
// (gateway.download's client, whatever the provider), for the lead's page to play or open.
//   200 the bytes. audio/*, image/*, video/* and application/pdf: inline with the type stored with
//       the row (mensagens.midia_tipo; the provider's answer when none was stored). Anything else:
//       `Content-Disposition: attachment`, application/octet-stream (never rendered by the browser;
//       SVG included).
//       Always `Cache-Control: private, max-age=300` and `X-Content-Type-Options: nosniff`.
//   404 {error}  no such lead, one outside the principal's scope (lead-scope.ts), a row that is not
//                that lead's, or a row without a medium (texts, events, media recorded before 017)
//   502 {error}  the provider failed or no longer has the medium (WhatsApp keeps media for a while)
// The gateway reference (midia_ref) never leaves the server. Nothing is cached here beyond what the
// gateway layer does; the clients' own download size limits apply (a larger medium is a 502).
import type { Request, Response, Router } from 'express';
import type { Database } from '../../adapters/db/database.js';
import type { GatewayClientFactory } from '../../adapters/gateway/gateway-client.js';
import type { InstanceDirectory } from '../../adapters/gateway/instance-directory.js';
import { instanceClient } from '../../nodes/messaging/lib/instance-client.js';
import { leadIdParam, sendApiError } from './lead-rows.js';
import { visibleLead } from './lead-scope.js';
import { principalOf } from './principal.js';
import { hasMedium } from './transcript.js';

/** What the media route downloads with: the runtime's gateway client factory and instance directory. */
export interface TranscriptMediaDeps {
  db: Database;
  gateway: GatewayClientFactory;
  instances: InstanceDirectory;
}

/** The 502 answer's text (a receptionist reads it). */
export const MEDIA_GONE = 'A mídia não está mais disponível no WhatsApp.';

/**
 * Types a browser may show inline (audio/*, image/*, video/*, PDF); others download as files. SVG is
 * not one: opened in a tab it is a document that can run scripts on the console's origin.
 */
export function inlineType(mimetype: string): boolean {
  const base = mimetype.split(';')[0]!.trim().toLowerCase();
  if (base === 'image/svg+xml') return false;
  return /^(audio|image|video)\/[a-z0-9.+-]+$/.test(base) || base === 'application/pdf';
}

/** A stored or reported MIME type as a header value: printable ASCII only, else empty. */
const cleanType = (value: unknown): string => (typeof value === 'string' && /^[\x20-\x7e]{1,255}$/.test(value) ? value.trim() : '');

async function sendMedium(deps: TranscriptMediaDeps, req: Request, res: Response): Promise<void> {
  const leadId = leadIdParam(req.params.id);
  const rowId = leadIdParam(req.params.mid);
  const lead = leadId === undefined ? undefined : await visibleLead(deps.db, principalOf(res), leadId);
  if (!lead || rowId === undefined) return sendApiError(res, 404, 'no such lead');
  const row = await deps.db.get('mensagens', { id: rowId, lead_id: leadId! });
  if (!row || !hasMedium(row)) return sendApiError(res, 404, 'no such medium');
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  let media: { mimetype: string; bytes: Buffer };
  try {
    const { client } = await instanceClient(deps, Number(lead.instancia_id));
    media = await client.downloadMedia(String(row.midia_ref), { signal: abort.signal });
  } catch {
    if (!res.headersSent && !abort.signal.aborted) sendApiError(res, 502, MEDIA_GONE);
    return;
  }
  const type = cleanType(row.midia_tipo) || cleanType(media.mimetype);
  res.set('Cache-Control', 'private, max-age=300');
  res.set('X-Content-Type-Options', 'nosniff');
  if (type && inlineType(type)) res.type(type).set('Content-Disposition', 'inline');
  else res.type('application/octet-stream').set('Content-Disposition', 'attachment');
  res.send(media.bytes);
}

/** Mounts `GET /leads/:id/messages/:mid/media` on the admin router (see the file's head). */
export function mountTranscriptMedia(router: Router, deps: TranscriptMediaDeps): void {
  router.get('/leads/:id/messages/:mid/media', (req, res, next) => {
    sendMedium(deps, req, res).catch(next);
  });
}
