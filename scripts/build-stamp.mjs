// What dist/ was built from: a SHA-256 of the build's inputs, kept in dist/.build-inputs once
// `npm run build` succeeded, so `prepare` can skip a build that would write the same files.
//
// Why: npm runs `prepare` not only on `npm ci` but also on the first `npx leadflow …` in the
// project (npm exec installs the project's own bin into its cache, a link to this directory, and
// runs the linked package's `prepare`). A full build there cost ~20 s and rewrote dist/ — removing
// the CLI's chunks for a while — under a `leadflow serve` already running from it.
//
//   node scripts/build-stamp.mjs check   exit 0 (and say so) when dist/ was built from exactly the
//                                        current inputs; exit 1 otherwise (`prepare` then builds)
//   node scripts/build-stamp.mjs clear   forget the stamp (first step of a build: an interrupted
//                                        build leaves none)
//   node scripts/build-stamp.mjs write   stamp dist/ with the current inputs (last step of a build)
//
// Inputs: every file under the source folders the build reads (BUILD_DIRS; node_modules and dist
// excluded) and the files in BUILD_FILES (package-lock.json stands for the installed dependencies'
// versions), each as its path and content. `npm run build` itself always builds; `npm test` builds
// as `prepare` does (on a clean clone, `npm ci` has just built: CI does not build twice).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist', '.build-inputs');
/** Folders whose files the build reads (tsc, the bundlers, the validators generated from the shipped flows). */
const BUILD_DIRS = ['adapters', 'bin', 'cli', 'console', 'engine', 'flows', 'nodes', 'scripts'];
const BUILD_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const SKIPPED = new Set(['node_modules', 'dist']);

/** Every file under `dir`, relative to the root, sorted by code unit. */
function filesUnder(dir) {
  const found = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.push(relative(root, path));
    }
  };
  if (existsSync(join(root, dir))) walk(join(root, dir));
  return found;
}

/** SHA-256 (hex) of the build inputs' paths and contents. */
function buildInputsHash() {
  const files = [...BUILD_DIRS.flatMap(filesUnder), ...BUILD_FILES.filter((f) => existsSync(join(root, f)))].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function stamped() {
  return existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : undefined;
}

const command = process.argv[2];
if (command === 'check') {
  const built = existsSync(join(root, 'dist', 'cli', 'main.js')) ? stamped() : undefined;
  if (built !== undefined && built === buildInputsHash()) {
    process.stderr.write('build: dist/ is already built from these sources; not rebuilt (`npm run build` rebuilds)\n');
    process.exit(0);
  }
  process.stderr.write(built === undefined ? 'build: dist/ is not built yet\n' : 'build: the sources changed since dist/ was built\n');
  process.exit(1);
} else if (command === 'clear') {
  rmSync(STAMP, { force: true });
} else if (command === 'write') {
  writeFileSync(STAMP, `${buildInputsHash()}\n`);
} else {
  process.stderr.write('usage: node scripts/build-stamp.mjs check|clear|write\n');
  process.exit(2);
}
