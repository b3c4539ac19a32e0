// The shipped flows stay readable: no `{{ … }}` expression in flows/*.yaml is longer than
// MAX_EXPRESSION_CHARS (counted with its braces, runs of whitespace as one space). A longer one
// becomes a named step or a node parameter.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { splitTemplate } from '../../engine/template-split.js';

const MAX_EXPRESSION_CHARS = 120;
const FLOWS = join(import.meta.dirname, '../../flows');

interface Found {
  where: string;
  expression: string;
}

/** Every expression in a parsed flow, with where it is (step ids instead of list positions). */
function expressionsIn(value: unknown, path: string[], found: Found[]): Found[] {
  if (typeof value === 'string') {
    const segments = splitTemplate(value);
    if (Array.isArray(segments))
      for (const s of segments) if (s.isExpr) found.push({ where: path.join('.'), expression: `{{${s.text}}}`.replace(/\s+/g, ' ') });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const id = (item as { id?: unknown } | null)?.id;
      expressionsIn(item, [...path, typeof id === 'string' ? id : String(i)], found);
    });
  } else if (value && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) expressionsIn(member, [...path, key], found);
  }
  return found;
}

const flowFiles = readdirSync(FLOWS).filter((f) => /\.ya?ml$/.test(f));

describe(`expressions in flows/*.yaml are at most ${MAX_EXPRESSION_CHARS} characters`, () => {
  it('finds the flows', () => {
    expect(flowFiles).toEqual(expect.arrayContaining(['intake.yaml', 'agent.yaml', 'handoff.yaml']));
  });

  for (const file of flowFiles) {
    it(file, () => {
      const found = expressionsIn(parse(readFileSync(join(FLOWS, file), 'utf8')), [], []);
      expect(found.length).toBeGreaterThan(0);
      const tooLong = found
        .filter((f) => f.expression.length > MAX_EXPRESSION_CHARS)
        .map((f) => `${file}:${f.where} (${f.expression.length} chars): ${f.expression}`);
      expect(tooLong).toEqual([]);
    });
  }
});
