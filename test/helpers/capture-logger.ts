// A real LeadFlow logger (cli/logger.ts, pino) at debug level writing into memory, for tests that
// check what log lines hold. LOG_LEVEL is ignored while it is built.
import { Writable } from 'node:stream';
import { createLogger } from '../../cli/logger.js';

export function captureLogger(): { logger: ReturnType<typeof createLogger>; text: () => string; lines: () => Array<Record<string, any>> } {
  let out = '';
  const destination = new Writable({
    write(chunk, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  const previous = process.env.LOG_LEVEL;
  delete process.env.LOG_LEVEL;
  const logger = createLogger({ level: 'debug', destination });
  if (previous !== undefined) process.env.LOG_LEVEL = previous;
  return {
    logger,
    text: () => out,
    lines: () =>
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
  };
}
