/**
 * A table operation was asked for something it refuses before any SQL runs: a table outside the
 * allow-list, an unknown column, a value of the wrong type, an unknown operator, a missing `where`
 * on update/delete. Retrying cannot help (`code` is `bad-query`).
 */
export class DbQueryError extends Error {
  override name = 'DbQueryError';
  readonly code = 'bad-query';
}
