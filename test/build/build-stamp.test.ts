// scripts/build-stamp.mjs, run as `prepare` runs it: in a scratch copy of the project's shape, `check`
// succeeds only while dist/ holds a stamp of exactly the current inputs — a changed or added source
// file, a changed lock file, a cleared stamp or a missing dist/cli/main.js each make `prepare` build
// again; files outside the inputs (node_modules, tests) and a touched but unchanged file do not.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'build-stamp.mjs');
const project = mkdtempSync(join(tmpdir(), 'leadflow-stamp-'));

function put(path: string, text: string): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
}

function stamp(command: string): { code: number | null; said: string } {
  const run = spawnSync(process.execPath, [join(project, 'scripts', 'build-stamp.mjs'), command], { encoding: 'utf8' });
  return { code: run.status, said: run.stderr };
}

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('build stamp', () => {
  it('check passes only while dist/ was stamped from exactly the current inputs', () => {
    put('scripts/.keep', '');
    copyFileSync(SCRIPT, join(project, 'scripts', 'build-stamp.mjs'));
    put('package.json', '{"name":"x"}');
    put('package-lock.json', '{"lockfileVersion":3}');
    put('engine/run.ts', 'export const a = 1;\n');
    put('flows/intake.yaml', 'name: intake\n');

    expect(stamp('check')).toEqual({ code: 1, said: 'build: dist/ is not built yet\n' });
    put('dist/cli/main.js', '// built\n');
    expect(stamp('check').code).toBe(1);
    expect(stamp('write').code).toBe(0);
    expect(stamp('check')).toEqual({
      code: 0,
      said: 'build: dist/ is already built from these sources; not rebuilt (`npm run build` rebuilds)\n',
    });

    // Not inputs: dependencies' own files, tests, a touch that changes no content.
    put('console/node_modules/pkg/index.js', 'changed');
    put('engine/dist/old.js', 'changed');
    put('test/run.test.ts', 'changed');
    utimesSync(join(project, 'engine/run.ts'), new Date(), new Date(Date.now() + 60_000));
    expect(stamp('check').code).toBe(0);

    // Inputs: a source's content, a new flow, the lock file.
    for (const [path, text] of [
      ['engine/run.ts', 'export const a = 2;\n'],
      ['flows/agent.yaml', 'name: agent\n'],
      ['package-lock.json', '{"lockfileVersion":3,"packages":{}}'],
    ] as const) {
      put(path, text);
      expect(stamp('check'), path).toEqual({ code: 1, said: 'build: the sources changed since dist/ was built\n' });
      expect(stamp('write').code).toBe(0);
      expect(stamp('check').code, path).toBe(0);
    }

    // A build that starts clears the stamp; without dist/cli/main.js nothing counts as built.
    expect(stamp('clear').code).toBe(0);
    expect(stamp('check').code).toBe(1);
    expect(stamp('write').code).toBe(0);
    rmSync(join(project, 'dist/cli/main.js'));
    expect(stamp('check')).toEqual({ code: 1, said: 'build: dist/ is not built yet\n' });
    expect(stamp('nonsense').code).toBe(2);
    // About twenty node processes one after another: allowed a minute on a machine busy with the
    // other test files running beside this one.
  }, 60_000);
});
