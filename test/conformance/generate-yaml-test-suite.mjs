// Writes test/fixtures/yaml-test-suite/cases.json from a git copy of yaml/yaml-test-suite (its
// `data` branch: one folder per case, some with numbered sub-folders; in.yaml, in.json when the
// data can be written as JSON, `error` when the text is invalid, `===` the title; the folders
// under name/ and tags/ are links to the same cases and are skipped), and copies the suite's
// licence (its `License`, from `main`) beside it. Reproducible: the same commits give the same files.
//
//   git clone --mirror https://github.com/yaml/yaml-test-suite yaml-test-suite.git
//   node test/conformance/generate-yaml-test-suite.mjs yaml-test-suite.git [data-ref] [licence-ref]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [gitDir, dataRef = 'data', licenceRef = 'main'] = process.argv.slice(2);
if (!gitDir) {
  console.error('usage: node test/conformance/generate-yaml-test-suite.mjs <git dir of yaml-test-suite> [data-ref] [licence-ref]');
  process.exit(2);
}
const OUT = join(import.meta.dirname, '../fixtures/yaml-test-suite');

const git = (...args) => execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
const show = (ref, path) => git('show', `${ref}:${path}`);

/** The JSON values of a text that holds several, one after another (in.json of a multi-document case). */
function jsonValues(text) {
  const values = [];
  let i = 0;
  const skipBlank = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  for (skipBlank(); i < text.length; skipBlank()) {
    const start = i;
    if (text[i] === '{' || text[i] === '[' || text[i] === '"') {
      let depth = 0;
      let inString = false;
      do {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '{' || c === '[') depth++;
        else if (c === '}' || c === ']') depth--;
        i++;
      } while (i < text.length && (depth > 0 || inString));
    } else {
      while (i < text.length && !/\s/.test(text[i])) i++;
    }
    values.push(JSON.parse(text.slice(start, i)));
  }
  return values;
}

const commit = git('rev-parse', dataRef).trim();
const licenceCommit = git('rev-parse', licenceRef).trim();
const entries = git('ls-tree', '-r', '--full-tree', commit)
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    const [meta, path] = line.split('\t');
    return { mode: meta.split(' ')[0], path };
  });
const files = new Set(entries.filter((e) => e.mode === '100644').map((e) => e.path));
const cases = [...files]
  .filter((path) => path.endsWith('/==='))
  .map((path) => path.slice(0, -'/==='.length))
  .sort()
  .map((id) => {
    const entry = { id, title: show(commit, `${id}/===`).trim(), yaml: show(commit, `${id}/in.yaml`), error: files.has(`${id}/error`) };
    if (files.has(`${id}/in.json`)) entry.json = jsonValues(show(commit, `${id}/in.json`));
    return entry;
  });

mkdirSync(OUT, { recursive: true });
const source = {
  repository: 'https://github.com/yaml/yaml-test-suite',
  ref: dataRef,
  commit,
  licence: { ref: licenceRef, commit: licenceCommit },
};
writeFileSync(join(OUT, 'cases.json'), `${JSON.stringify({ source, cases }, null, 1)}\n`);
writeFileSync(join(OUT, 'License'), show(licenceCommit, 'License'));
console.log(`${cases.length} cases from ${commit} written to ${OUT}`);
