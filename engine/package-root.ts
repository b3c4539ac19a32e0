// Where LeadFlow's package is on disk, for the files the build writes into it (dist/console/, the
// generated flow validator): found by walking up from a module, so it holds whether the module runs
// from its own file, from source, or from the bundled command line in dist/cli/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest directory at or above `from` holding package.json; `from` itself when there is none. */
export function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}
