/** A model reference is not `provider:model` with a known provider, or names a provider that cannot do the task. */
export class ModelRefError extends Error {
  override name = 'ModelRefError';
  readonly code = 'bad_model_ref';
  constructor(message: string) {
    super(message);
  }
}
