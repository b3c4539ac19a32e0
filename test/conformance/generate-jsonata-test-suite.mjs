// Writes test/fixtures/jsonata-test-suite/suite.json from a git copy of jsonata-js/jsonata (its
// test/test-suite at the tag of the version package-lock.json installs): every case file of
// groups/<group>/ and every dataset of datasets/, each embedded as its own JSON text, unchanged
// (so it parses to exactly what jsonata's own runner, test/run-test-suite.js, reads), and the text
// of every expression file (`expr-file`); and copies jsonata's LICENSE beside it. Reproducible:
// the same tag gives the same files.
//
//   git clone --mirror https://github.com/jsonata-js/jsonata jsonata.git
//   node test/conformance/generate-jsonata-test-suite.mjs jsonata.git [tag]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [gitDir, tag = 'v2.2.2'] = process.argv.slice(2);
if (!gitDir) {
  console.error('usage: node test/conformance/generate-jsonata-test-suite.mjs <git dir of jsonata> [tag]');
  process.exit(2);
}
const OUT = join(import.meta.dirname, '../fixtures/jsonata-test-suite');
const SUITE = 'test/test-suite';

const git = (...args) => execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
const commit = git('rev-parse', `${tag}^{commit}`).trim();
const show = (path) => git('show', `${commit}:${path}`);
const files = git('ls-tree', '-r', '--name-only', commit, SUITE).split('\n').filter(Boolean);

/** A JSON text, checked, embedded as it is (trailing blanks dropped). */
function embedded(path) {
  const text = show(path).trimEnd();
  JSON.parse(text);
  return text;
}

const datasets = files.filter((f) => f.startsWith(`${SUITE}/datasets/`) && f.endsWith('.json')).sort();
const cases = files.filter((f) => f.startsWith(`${SUITE}/groups/`) && f.endsWith('.json') && f.split('/').length === 5).sort();
const exprFiles = files.filter((f) => f.startsWith(`${SUITE}/groups/`) && f.endsWith('.jsonata')).sort();

const source = { repository: 'https://github.com/jsonata-js/jsonata', tag, commit, path: SUITE };
const name = (path) =>
  JSON.stringify(
    path
      .split('/')
      .pop()
      .replace(/\.json$/, ''),
  );
const lines = [
  '{',
  ` "source": ${JSON.stringify(source)},`,
  ' "datasets": {',
  datasets.map((f) => `  ${name(f)}: ${embedded(f)}`).join(',\n'),
  ' },',
  ' "cases": [',
  cases
    .map((f) => `  {"group": ${JSON.stringify(f.split('/')[3])}, "file": ${JSON.stringify(f.split('/')[4])}, "spec": ${embedded(f)}}`)
    .join(',\n'),
  ' ],',
  ' "exprFiles": {',
  exprFiles.map((f) => `  ${JSON.stringify(f.split('/').slice(3).join('/'))}: ${JSON.stringify(show(f))}`).join(',\n'),
  ' }',
  '}',
];
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'suite.json'), `${lines.join('\n')}\n`);
writeFileSync(join(OUT, 'LICENSE'), show('LICENSE'));
console.log(
  `${cases.length} case files, ${datasets.length} datasets, ${exprFiles.length} expression files from ${commit} written to ${OUT}`,
);
