// The version `leadflow --version` prints: package.json's `version`, read when asked (one small file
// read), never copied into the code.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Package name whose package.json holds the version (stops the upward search at the right file). */
const PACKAGE_NAME = 'leadflow';

/**
 * The `version` of the nearest package.json named `leadflow` above this module (dist/cli/ when built,
 * cli/ from source). Throws when none is found.
 */
export function packageVersion(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      /* no (readable) package.json here: look further up */
    }
    if (dirname(dir) === dir) throw new Error(`no package.json of ${PACKAGE_NAME} above ${from}`);
  }
}
