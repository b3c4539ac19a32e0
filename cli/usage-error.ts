// The error of a wrong invocation (bad argument, missing file, unknown flow): `leadflow` prints its
// message alone and exits 2. Kept in a file of its own, importing nothing, so that registering the
// commands (which parse their arguments with it) loads nothing else.
/** A wrong invocation: `leadflow` prints the message alone and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
