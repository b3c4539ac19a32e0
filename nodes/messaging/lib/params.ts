// Parameter fragments shared by the messaging node types (and any node that takes a phone).
import { Type } from '../../../engine/typebox.js';

/** Id of a row of `instancias_whatsapp`; the node looks up its server and token. */
export function instanceIdParam() {
  return Type.Integer({
    minimum: 1,
    description:
      'Id of the WhatsApp instance (`instancias_whatsapp.id`) to use; its server_url and token are looked up when the step runs, so the token never appears in the execution.',
    examples: ['{{ vars.lead.instancia_id }}', 1],
  });
}

/** A phone as stored everywhere: digits, country code first, no `+`, no JID suffix. */
export function phoneParam(description: string) {
  return Type.String({
    pattern: '^[0-9]{8,15}$',
    description: `${description} Digits only, country code first (e.g. 5543999806366), no "+" and no "@s.whatsapp.net".`,
    examples: ['5543999806366', '{{ vars.lead.remotejid }}'],
  });
}
