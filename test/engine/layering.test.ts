// The engine knows flows, not vendors nor the business: it imports none of nodes/, adapters/ or cli/,
// and names no form provider, gateway, lead or clinic (DESIGN.md "The house"; issues 11 and 15).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const ENGINE = join(ROOT, 'engine');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every line of engine/ matching `pattern` once `ignore` is removed from it, as `file:line: text`. */
function matches(pattern: RegExp, ignore?: RegExp): string[] {
  return sourceFiles(ENGINE).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((text, i) =>
        pattern.test(ignore ? text.replace(ignore, '') : text) ? [`${relative(ROOT, file)}:${i + 1}: ${text.trim()}`] : [],
      ),
  );
}

describe('engine layering', () => {
  it('finds engine sources to check', () => {
    expect(sourceFiles(ENGINE).length).toBeGreaterThan(20);
  });

  it('imports nothing from nodes/, adapters/ or cli/', () => {
    expect(matches(/from\s+['"](\.\.\/)+(nodes|adapters|cli)\//)).toEqual([]);
  });

  // The product's own name (the `leadflow` command, LEADFLOW_* variables) is not the business's lead.
  it('names no vendor, lead or clinic', () => {
    expect(matches(/typeform|tally|uazapi|evolution|whatsapp|lead|clinic/i, /leadflow/gi)).toEqual([]);
  });
});
