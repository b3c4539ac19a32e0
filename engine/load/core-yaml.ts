// The fast reading of a YAML text: js-yaml, restricted to the documents on which it gives exactly
// what the `yaml` library (the one that positions problems, yaml-source.ts) gives. Reading the
// shipped flows with `yaml` costs ~100 ms of every command that loads them (it builds a full
// document with positions); js-yaml reads them in ~15 ms, and `yaml` is then only loaded when a
// problem needs a line and column.
//
// Contract: readCoreYaml(text) returns `{ value }`, the data of the text, only when `yaml` reads the
// same data from it with no error and no warning; otherwise undefined, and the caller reads it with
// `yaml` as it always did (same data, same problems). It answers only when js-yaml reads the text
// without error and the text stays within the subset below, where both read the same data
// (test/engine/core-yaml.test.ts compares them over the shipped flows, the fixtures and generated
// documents; test/conformance/yaml-test-suite.test.ts over the whole YAML test suite, and its
// valid texts with typos). The checks are in core-yaml-checks.ts:
// - one document, or none (read as null, as `yaml` does); YAML 1.2 core schema scalars resolved as
//   `yaml` resolves them (CORE_SCALARS: `0b101`, `+0x1`, `-.5` and friends are where js-yaml's own
//   core schema differs);
// - no directive (`%YAML`, `%TAG`: `yaml` warns on versions and names it does not know), no content
//   on a `---` or `...` line, nor a line that only starts like one (js-yaml reads `---word` as `---`);
// - no tag (js-yaml loses some, reads `!` alone otherwise), anchor or alias (so nothing is shared, no
//   alias expansion to bound), no explicit key (`? `);
// - no comment glued to a quoted scalar, a flow collection or its punctuation (`"a"#c`, `[a,#c`),
//   no multi-line flow collection or quoted scalar continued at or left of its block collection's
//   indentation, no tab in a line's indentation: js-yaml reads them, `yaml` and the spec call them
//   errors; no block scalar with an indentation indicator (`|2`) or a blank line longer than its
//   content's indentation: some of those are errors, others the two read differently;
// - no lone carriage return, no byte order mark after the start, no last line of blanks without a
//   line break (the two read them differently), no U+0085, U+2028 or U+2029 (line breaks to YAML 1.1
//   and to the regular expressions of the checks);
// - no duplicate keys (js-yaml refuses them), no key that is a collection (`[a]: b`) and no null key
//   (`~: b`): `yaml` turns those into other texts than js-yaml;
// - at most MAX_DEPTH levels of nesting (js-yaml's maxDepth).
// Where the subset's edge is unclear it is drawn on the safe side: declining costs only time.
import { FAILSAFE_SCHEMA, load, type State, Type } from 'js-yaml';
import { NodeChecks, outsideByText } from './core-yaml-checks.js';

/** Deepest nesting read here (js-yaml's default, 100); a deeper document is read by `yaml`. */
const MAX_DEPTH = 100;

/**
 * Plain scalars as the `yaml` library's YAML 1.2 core schema resolves them (yaml/dist/schema/core,
 * in its order: null, bool, octal, decimal, hexadecimal int, .inf/.nan, exponent float, float).
 * Private tags, never written in a text read here (tags are left to `yaml`).
 */
const CORE_SCALARS = [
  scalar('null', /^(?:~|[Nn]ull|NULL)?$/, () => null),
  scalar('bool', /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (s) => s[0] === 't' || s[0] === 'T'),
  scalar('int-oct', /^0o[0-7]+$/, (s) => parseInt(s.substring(2), 8)),
  scalar('int', /^[-+]?[0-9]+$/, (s) => parseInt(s, 10)),
  scalar('int-hex', /^0x[0-9a-fA-F]+$/, (s) => parseInt(s.substring(2), 16)),
  scalar('float-nan', /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/, (s) =>
    s.slice(-3).toLowerCase() === 'nan' ? Number.NaN : s[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY,
  ),
  scalar('float-exp', /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, (s) => parseFloat(s)),
  scalar('float', /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, (s) => parseFloat(s)),
];

function scalar(name: string, test: RegExp, construct: (source: string) => unknown): Type {
  return new Type(`tag:leadflow.local,2026:core-${name}`, {
    kind: 'scalar',
    resolve: (source: unknown) => typeof source === 'string' && test.test(source),
    construct: (source: string) => construct(source),
  });
}

const CORE_SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: CORE_SCALARS });

/**
 * The data of `text` when js-yaml reads it within the subset of this module's contract; undefined
 * when it does not (an error, a directive, a tag or anchor, a collection or null key, too deep …).
 * Never throws.
 */
export function readCoreYaml(text: string): { value: unknown } | undefined {
  if (outsideByText(text)) return undefined;
  const checks = new NodeChecks(text);
  let value: unknown;
  try {
    const listener = (event: string, state: State) => checks.on(event, state);
    value = load(text, { schema: CORE_SCHEMA, listener, maxDepth: MAX_DEPTH } as Parameters<typeof load>[1]);
  } catch {
    return undefined;
  }
  if (checks.outside || hasNullKey(value)) return undefined;
  // No document at all (an empty text): js-yaml gives undefined, `yaml` an empty document, null.
  return { value: value === undefined ? null : value };
}

/** Whether a mapping of `value` has the key `null` (js-yaml's text of a null key; `yaml`'s is ''). */
function hasNullKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasNullKey);
  if (value === null || typeof value !== 'object') return false;
  for (const key of Object.keys(value)) {
    if (key === 'null' || hasNullKey((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}
