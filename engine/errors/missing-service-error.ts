/**
 * The host did not provide a service some registered node type declares (`NodeDefinition.services`).
 * Thrown by `NodeRegistry.requireServices` while a host builds its engine, before any execution
 * runs. `missing` lists every node type and service name absent, in registry order.
 */
export class MissingServiceError extends Error {
  override name = 'MissingServiceError';
  readonly code = 'missing-service';
  constructor(readonly missing: ReadonlyArray<{ type: string; service: string }>) {
    super(
      `the host does not provide every service its node types need: ${missing
        .map((m) => `node type "${m.type}" needs service "${m.service}"`)
        .join('; ')}`,
    );
  }
}
