#!/usr/bin/env node
// Entry point of the `leadflow` command: runs the compiled CLI (built by `npm ci` via `prepare`).
import('../dist/cli/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
    console.error('leadflow: the CLI is not built yet; run `npm run build` (npm ci does it for you).');
    process.exit(2);
  }
  throw err;
});
