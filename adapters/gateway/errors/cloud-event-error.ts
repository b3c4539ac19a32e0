/**
 * A body given as a WhatsApp Cloud API webhook (`object: "whatsapp_business_account"`) does not have
 * its shape. `details` lists each problem with its path (e.g. `entry[0].changes[1].value.messages[0].id`);
 * answer 422 with them.
 */
export class CloudEventError extends Error {
  override name = 'CloudEventError';
  readonly code = 'invalid-event';
  readonly status = 422;
  constructor(readonly details: Array<{ path: string; message: string }>) {
    super(`not a WhatsApp Cloud API webhook: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`);
  }
}
