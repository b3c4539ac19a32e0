// JSON Schema (draft-07) fragments the providers' event schemas share: fields some captures of a
// provider's webhook body leave null. Plain data, so a schema built from them serialises the same.

/** A string that some captures leave null. */
export const optionalString = { anyOf: [{ type: 'string' }, { type: 'null' }] };

/** A boolean that some captures leave null. */
export const optionalBoolean = { anyOf: [{ type: 'boolean' }, { type: 'null' }] };
