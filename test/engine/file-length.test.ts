// The core reads in one sitting: no source file of engine/ runs over 400 lines, nor any file of the
// database execution store (adapters/db/execution-store/, split by concern). A file that grows past
// this is split by what it does, not trimmed of its comments.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
/** Longest a file of these folders may be, in lines (comments and blank lines count). */
const MAX_LINES = 400;
const FOLDERS = ['engine', 'adapters/db/execution-store'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

describe(`source files of the core are at most ${MAX_LINES} lines`, () => {
  it.each(FOLDERS)('%s/ exists and holds source files', (folder) => {
    const dir = join(ROOT, folder);
    expect(existsSync(dir) && statSync(dir).isDirectory(), `${folder}/ is a folder`).toBe(true);
    expect(sourceFiles(dir).length).toBeGreaterThan(0);
  });

  it.each(FOLDERS)(`no file of %s/ runs over ${MAX_LINES} lines`, (folder) => {
    const dir = join(ROOT, folder);
    const long = existsSync(dir) ? sourceFiles(dir).filter((file) => lineCount(file) > MAX_LINES) : [];
    expect(long.map((file) => `${relative(ROOT, file)}: ${lineCount(file)} lines`)).toEqual([]);
  });
});
