// Reading fields of a webhook body that is JSON of unknown shape, without throwing: what is not of
// the expected type reads as absent ('' for a string).

/** A JSON object's fields by name. */
export type Fields = Record<string, unknown>;

/** `value` when it is a plain object (not null, not an array), else undefined. */
export const asObj = (value: unknown): Fields | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : undefined;

/** `value` when it is a string, else ''. */
export const asStr = (value: unknown): string => (typeof value === 'string' ? value : '');
