// Module loader hooks of test/helpers/import-recorder.mjs (they run on the loader's thread): appends
// each resolved URL to the log file given at registration.
import { appendFileSync } from 'node:fs';

let log;

export function initialize(data) {
  log = data?.log;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (log) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
