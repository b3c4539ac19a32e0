// The fast YAML reading (engine/load/core-yaml.ts) gives exactly the data the `yaml` library gives,
// on every text it accepts: the shipped flows, every YAML of the repository's fixtures, tricky
// scalars and keys, and generated documents in both libraries' styles. Whatever it cannot read the
// same way (anchors, tags, collection or null keys, directives, glued comments, under-indented
// flow and quoted lines, tabs as indentation, errors, too deep) it leaves to `yaml`. The YAML test
// suite itself: test/conformance/yaml-test-suite.test.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inspect, isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readCoreYaml } from '../../engine/load/core-yaml.js';
import { YamlSource } from '../../engine/load/yaml-source.js';
import { prng } from '../helpers/prng.js';
import { yamlReads } from '../helpers/yaml-reads.js';

const ROOT = join(import.meta.dirname, '../..');

/** Asserts that when core-yaml reads `text`, it reads what `yaml` reads; returns whether it read it. */
function agrees(text: string): boolean {
  const core = readCoreYaml(text);
  if (!core) return false;
  const expected = yamlReads(text);
  expect(expected, `yaml reports a problem in a text core-yaml reads:\n${text}`).not.toBe('problem');
  // isDeepStrictEqual compares prototypes, not `.constructor` as toStrictEqual does: a mapping may have
  // a key named `constructor` (two equal documents would then differ by that member's identity).
  expect(isDeepStrictEqual(core.value, expected), `${text}\ncore-yaml: ${inspect(core.value)}\nyaml: ${inspect(expected)}`).toBe(true);
  return true;
}

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFilesUnder(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

describe('core-yaml reads what yaml reads', () => {
  it('every shipped flow, read by core-yaml (the fast path), with the same data', () => {
    const flows = readdirSync(join(ROOT, 'flows')).filter((f) => f.endsWith('.yaml'));
    expect(flows.length).toBeGreaterThanOrEqual(5);
    for (const f of flows) expect(agrees(readFileSync(join(ROOT, 'flows', f), 'utf8')), f).toBe(true);
  });

  it("every YAML file of the repository's fixtures and seed: the same data whenever core-yaml reads it", () => {
    const files = [...yamlFilesUnder(join(ROOT, 'test/fixtures')), ...yamlFilesUnder(join(ROOT, 'seed'))];
    expect(files.length).toBeGreaterThan(20);
    const read = files.filter((file) => agrees(readFileSync(file, 'utf8')));
    expect(read.length).toBeGreaterThan(files.length / 2);
  });

  it('tricky scalars resolve as YAML 1.2 core in yaml (where js-yaml alone differs: 0b101, +0x1, -.5 …)', () => {
    const scalars = [
      ...['1', '-1', '+1', '0', '-0', '007', '0o17', '0x1F', '0b101', '1_000', '1.5', '.5', '5.', '1e3', '1E-3', '+1e3', '1.0e+3'],
      ...['.inf', '-.inf', '+.inf', '.Inf', '.INF', '.nan', '.NaN', 'NaN', 'inf', '-.5', '+.5', '+0x1', '-0x1', '-0o7', '0O7', '0X1'],
      ...['true', 'True', 'TRUE', 'tRUE', 'yes', 'no', 'on', 'off', 'y', 'n', 'null', 'Null', 'NULL', 'nULL', '~', ''],
      ...['2024-01-01', '2024-01-01T10:00:00Z', '12:30', '1:20:30', '0x', '0o', '-.', '1,000', '9007199254740993', '1e400'],
      ...['"a"', "'b'", '"\\u00e9"', '"\\x41"', "'it''s'", '"a\\\n  b"', '"multi\n  line"', 'a #c', '!!str 1', '!!str', '"\\t"'],
      ...['>\n  x\n  y', '|\n  x\n  y', '|-\n  x', '>+\n  x\n', '|2\n   x', '>-\n  a\n\n  b\n   c', '[1, 2, ~]', '{ a: [1, 2], b: ~ }'],
      ...['__proto__', '{__proto__: {polluted: 1}}', 'constructor'],
    ];
    let read = 0;
    for (const s of scalars) if (agrees(`k: ${s}\n`)) read++;
    expect(read).toBeGreaterThan(scalars.length * 0.8);
    expect(readCoreYaml('k: 0b101\n')).toEqual({ value: { k: '0b101' } });
    expect(readCoreYaml('k: -.5\n')).toEqual({ value: { k: -0.5 } });
    expect(readCoreYaml('k: +0x1\n')).toEqual({ value: { k: '+0x1' } });
    expect(({}.constructor.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keys: numbers, booleans, quoted, __proto__ as yaml reads them', () => {
    for (const key of ['1', '1.0', '0x10', 'true', 'False', '"1"', "'x'", '__proto__', '"__proto__"', '-1', '007', '.inf']) {
      expect(agrees(`${key}: v\n`), key).toBe(true);
    }
    // Names of Object.prototype's members as keys of nested mappings: own members, as in yaml.
    for (const text of ['constructor: {}\n', 'toString: {a: 1}\n', 'x:\n  constructor:\n    hasOwnProperty: []\n']) {
      expect(agrees(text), text).toBe(true);
    }
  });

  it('generated documents, as yaml and js-yaml write them, read the same', () => {
    const document = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 });
    fc.assert(
      fc.property(document, fc.constantFrom('yaml-block', 'yaml-flow', 'yaml-quoted', 'js-yaml', 'js-yaml-flow'), (value, style) => {
        const text =
          style === 'yaml-block'
            ? stringify(value)
            : style === 'yaml-flow'
              ? stringify(value, { collectionStyle: 'flow' })
              : style === 'yaml-quoted'
                ? stringify(value, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' })
                : style === 'js-yaml'
                  ? dump(value)
                  : dump(value, { flowLevel: 1 });
        agrees(text);
      }),
      // Seeded: every run checks the same 400 documents.
      { numRuns: 400, seed: 20261128 },
    );
  });

  it('hand-written documents: multi-line flow collections, quoted and block scalars at any indentation, read the same', () => {
    const random = prng(20261128);
    const int = (n: number) => Math.floor(random() * n);
    const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
    const spaces = (n: number) => ' '.repeat(Math.max(0, n));
    // A line break and the next line's indentation: around the collection's own, sometimes a tab.
    const next = (indent: number) => `\n${random() < 0.1 ? pick(['\t', ' \t', '']) : spaces(indent + int(6) - 2)}`;
    const blockScalar = (indent: number) => {
      const inner = indent + 1 + int(3);
      let text = ` ${pick(['|', '>', '|-', '>+', '|2', '|+'])}`;
      for (let i = int(4); i > 0; i--) {
        const roll = random();
        text += `\n${roll < 0.3 ? spaces(int(inner + 3)) : `${spaces(inner + (roll < 0.45 ? int(3) - 1 : 0))}${pick(['x', 'y z', '# c'])}`}`;
      }
      return text;
    };
    const value = (indent: number, depth: number): string => {
      const roll = random();
      if (roll < 0.2) return ` "${pick(['a', 'b c', ''])}${next(indent)}${pick(['d', 'e f', ''])}"`;
      if (roll < 0.3) return ` '${pick(['a', 'b c'])}${next(indent)}${pick(['d', "it''s"])}'`;
      if (roll < 0.45)
        return ` [${pick(['a', '1', '"q"'])},${next(indent)}${pick(['b', '{x: 1}', `[c,${next(indent)}d]`])}${random() < 0.5 ? next(indent) : ''}]`;
      if (roll < 0.55) return ` {${pick(['a: 1', 'b'])},${next(indent)}${pick(['c: d', 'e: [f]'])}${random() < 0.5 ? next(indent) : ''}}`;
      if (roll < 0.7) return blockScalar(indent);
      if (depth > 0 && roll < 0.85) return `\n${block(indent + 1 + int(3), depth - 1)}`;
      return ` ${pick(['plain', '1', 'true', '~', 'a b', '"x"'])}`;
    };
    const block = (indent: number, depth: number): string => {
      const sequence = random() < 0.4;
      const lines: string[] = [];
      for (let i = 1 + int(3); i > 0; i--) lines.push(`${spaces(indent)}${sequence ? '-' : `k${i}:`}${value(indent, depth)}`);
      return lines.join('\n');
    };
    let read = 0;
    for (let i = 0; i < 3000; i++) if (agrees(`${block(0, 3)}\n`)) read++;
    // Many are invalid (under-indented lines, tabs); a good share of the rest is read by core-yaml.
    expect(read).toBeGreaterThan(500);
  });
});

describe('what core-yaml leaves to yaml', () => {
  it.each([
    ['an anchor and alias', 'a: &x 1\nb: *x\n'],
    ['an anchored collection', 'a: &x [1]\nb: 2\n'],
    ['an explicit core tag', 'k: !!int 3\n'],
    ['a custom tag', 'k: !thing x\n'],
    ['a duplicate key', 'k: 1\nk: 2\n'],
    ['a flow sequence key', '[a]: b\n'],
    ['a flow mapping key', '{a: 1}: b\n'],
    ['an explicit collection key', '? [a]\n: b\n'],
    ['an explicit collection key and a comment', '? [a] # the key\n: b\n'],
    ['a collection key inside a flow mapping', 'k: {[a]: b}\n'],
    ['a null key', '~: b\n'],
    ['the key null', 'null: b\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['a syntax error', 'a: [1, 2\n'],
    ['a tab as indentation', 'a:\n\tb: 1\n'],
    // Texts js-yaml reads where `yaml` reports a problem or reads other data (cases of the YAML test
    // suite and their kin), declined by kind: an explicit scalar key, say, would read the same.
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['an unknown directive', '%FOO bar\n---\na: 1\n'],
    ['content on the document start line', '--- a: 1\n'],
    ['a line that only starts like a document start', '---word1\nword2\n'],
    ['content after a document end', 'a: 1\n... b\n'],
    ['the non-specific tag alone', '!\n'],
    ['an explicit core string tag', 'k: !!str 1\n'],
    ['an explicit scalar key', '? a\n: b\n'],
    ['an explicit mapping key without a value', 'a: 1\n? d: 2\n'],
    ['a comment glued to a quoted value', 'key: "value"# c\n'],
    ['a comment glued to a single-quoted value', "key: 'value'# c\n"],
    ['a comment glued to a flow sequence', 'k: [a, b]#c\n'],
    ['a comment glued to a comma', 'k: [a,#c\n  b]\n'],
    ["a flow sequence continued at its key's indentation", 'flow: [a,\nb]\n'],
    ["a flow mapping closed at its key's indentation", 'k:\n  m: {a: 1,\n  b: 2}\n'],
    ["a quoted scalar continued at its key's indentation", 'quoted: "a\nb"\n'],
    ['a quoted scalar continued after a tab', 'quoted: "a\n\tb"\n'],
    ['a block scalar with a tab-only line', 'k: |\n\t\nb: 1\n'],
    ['a block scalar whose leading blank line is longer than its first line', 'k: >\n \n  \n   \n # comment\n'],
    ['a lone carriage return', 'a: 1\rb: 2\n'],
    ['a byte order mark after the start', 'a: 1\n\ufeffb: 2\n'],
    ['a last line of blanks without a line break', 'k: |+\n  x\n\n '],
  ])('%s', (_name, text) => {
    expect(readCoreYaml(text)).toBeUndefined();
  });

  it('but reads multi-line flow collections and quoted scalars indented under their key, and blank texts as null', () => {
    for (const text of ['k: [a,\n  b]\nq: "a\n  b"\n', '- {a: 1,\n   b: [2,\n  3]}\n', 'k:\n  - "a\n\n    b"\n', 'a: |\n  x\n\n  y\n']) {
      expect(agrees(text), text).toBe(true);
    }
    expect(readCoreYaml('')).toEqual({ value: null });
    expect(readCoreYaml('# nothing\n')).toEqual({ value: null });
    expect(agrees('')).toBe(true);
  });

  it('nesting deeper than 100 levels', () => {
    const deep = `${'['.repeat(150)}1${']'.repeat(150)}`;
    expect(readCoreYaml(`k: ${deep}\n`)).toBeUndefined();
    expect(readCoreYaml(`k: ${'['.repeat(50)}1${']'.repeat(50)}\n`)).toBeDefined();
  });
});

describe('YamlSource', () => {
  it("takes core-yaml's data for a text within its subset, and still positions problems (with yaml)", () => {
    const source = new YamlSource('f.yaml', 'name: x\nsteps:\n  - id: a\n    type: set\n');
    expect(source.syntaxProblems()).toEqual([]);
    expect(source.toJS()).toEqual({ name: 'x', steps: [{ id: 'a', type: 'set' }] });
    expect(source.problem(['steps', 0, 'type'], 'invalid-value', 'm')).toMatchObject({ line: 4, col: 11 });
  });

  it('gives a new copy on each toJS() after the first', () => {
    const source = new YamlSource('f.yaml', 'a: {b: 1}\n');
    const first = source.toJS() as { a: { b: number } };
    first.a.b = 2;
    expect(source.toJS()).toEqual({ a: { b: 1 } });
  });

  it("reads a text outside the subset with yaml, as before: an alias's value, an unknown tag's problem", () => {
    expect(new YamlSource('f.yaml', 'a: &x [1]\nb: *x\n').toJS()).toEqual({ a: [1], b: [1] });
    const tagged = new YamlSource('f.yaml', 'a: 1\nk: !thing x\n');
    expect(tagged.syntaxProblems()).toEqual([expect.objectContaining({ line: 2, col: 4, code: 'yaml-syntax' })]);
  });
});
