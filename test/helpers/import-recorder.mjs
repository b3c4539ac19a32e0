// Preload (`node --import <this file>`) that records every module the process resolves — through
// the ES module loader (every `import` and `import()`) and through CommonJS `require` (a package
// required at run time, such as the generated validators' helpers or `yaml` when a flow has a
// problem) — as one URL per line appended to the file named by LEADFLOW_IMPORT_LOG. Used by
// test/cli/lazy-imports.test.ts to check what a command loads.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';

const log = process.env.LEADFLOW_IMPORT_LOG;
register(new URL('./import-recorder-hooks.mjs', import.meta.url), { data: { log } });

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function recordRequire(...args) {
  const file = resolveFilename.apply(this, args);
  if (log && isAbsolute(file)) appendFileSync(log, `${pathToFileURL(file).href}\n`);
  return file;
};
