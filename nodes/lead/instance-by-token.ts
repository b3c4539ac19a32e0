import { timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineServiceNode } from '../services.js';

/** Constant-time equality of two tokens (a length difference still costs one comparison). */
function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/**
 * `instance.by-token`: the WhatsApp instance (`instancias_whatsapp`) whose token is `token`.
 * Contract: output `{id, clinica_id, nome, server_url}` or null; the token itself is never output
 * (db.get would put it in the execution record). The parameter is named `token` so the recorded
 * parameters mask it. An empty token matches nothing.
 */
export default defineServiceNode({
  type: 'instance.by-token',
  services: ['db'],
  readOnly: true,
  description:
    "Finds the WhatsApp instance (`instancias_whatsapp`) an inbound gateway event belongs to, by the event's instance token (compared in constant time). The output never contains the token.",
  params: Type.Object(
    {
      token: Type.String({
        description: 'The instance token the gateway sent (`token` of the uazapi event).',
        examples: ['{{ trigger.body.token }}'],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{id, clinica_id, nome, server_url}` of the instance, or null when no instance has this token.' },
  examples: [
    {
      title: 'The instance of an inbound event',
      step: { id: 'instance', type: 'instance.by-token', params: { token: '{{ trigger.body.token }}' } },
    },
  ],
  async run(params, ctx) {
    if (params.token === '') return null;
    const rows = await ctx.services.db.find('instancias_whatsapp', { where: { token: params.token }, limit: 10 });
    const row = rows.find((r) => typeof r.token === 'string' && sameToken(r.token, params.token));
    if (!row) return null;
    return { id: row.id ?? null, clinica_id: row.clinica_id ?? null, nome: row.nome ?? null, server_url: row.server_url ?? null };
  },
});
