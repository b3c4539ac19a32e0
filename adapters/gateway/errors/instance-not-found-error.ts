/** No WhatsApp instance (row of `instancias_whatsapp`) has this id. Retrying cannot help. */
export class InstanceNotFoundError extends Error {
  override name = 'InstanceNotFoundError';
  readonly code = 'instance-not-found';
  constructor(readonly instanceId: number) {
    super(`WhatsApp instance ${instanceId} not found`);
  }
}
