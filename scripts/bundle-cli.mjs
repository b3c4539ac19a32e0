// Build step (`npm run build`, last of the TypeScript ones): bundles LeadFlow's own compiled modules
// reachable from dist/cli/main.js into dist/cli/main.js plus shared chunks under dist/cli/chunks/
// (esbuild, ESM, code splitting: a command's implementation, imported inside its action, stays its own
// chunk, loaded only when that command runs). A command then loads a few files instead of hundreds of
// LeadFlow's modules one by one.
//
// npm packages stay external (imported from node_modules at run time), except INLINED: pure
// JavaScript packages the commands load (js-yaml, JSONata, the command-line parser, dates and cron,
// TypeBox, and ajv for the modules that import it: AI tool arguments, seed files, flow test files).
// Loaded from node_modules they cost a module resolution, a file read and a compile per file (ajv
// alone is ~100 CommonJS files) and the CommonJS export scan; inlined, they come in the same few
// chunks. Required at run time, outside the bundle, on purpose: `yaml`, which positions problems
// (only when a flow has one, engine/load/yaml-source.ts), and ajv with ajv-formats for a schema the
// build did not prebuild (engine/run/run-ajv.ts): a command reading the shipped flows loads neither.
// Packages that read their own files, load native code, spawn workers by path or require modules by
// computed names (knex, better-sqlite3, pg, bullmq, ioredis, pino, express, the AI SDKs…) stay
// external.
// The other files of dist/ stay as tsc wrote them (write-validators.js runs from there).
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** npm packages bundled into the CLI (with their own dependencies); every other dependency stays external. */
const INLINED = new Set(['js-yaml', 'ajv', 'jsonata', 'commander', 'luxon', 'croner', '@sinclair/typebox']);

const root = fileURLToPath(new URL('..', import.meta.url));
const cliDir = `${root}dist/cli/`;
const { dependencies } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const unknown = [...INLINED].filter((name) => !(name in dependencies));
if (unknown.length > 0) throw new Error(`bundle-cli: not a dependency of package.json: ${unknown.join(', ')}`);
const external = Object.keys(dependencies)
  .filter((name) => !INLINED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

rmSync(`${cliDir}chunks`, { recursive: true, force: true });
await build({
  entryPoints: { main: `${cliDir}main.js` },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // Inlined CommonJS packages call require() (for node: built-ins and external packages): an ES
  // module has none, so each chunk gets one.
  banner: {
    js: "import { createRequire as __leadflowCreateRequire } from 'node:module';\nconst require = __leadflowCreateRequire(import.meta.url);",
  },
  outdir: cliDir,
  chunkNames: 'chunks/[name]-[hash]',
  allowOverwrite: true,
  logLevel: 'warning',
});
// tsc's source map described main.js before the bundle.
rmSync(`${cliDir}main.js.map`, { force: true });
process.stderr.write(`cli: ${cliDir}main.js (bundled, with ${[...INLINED].join(', ')})\n`);
