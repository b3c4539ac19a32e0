// The fast reading of a YAML text: js-yaml, restricted to the documents on which it gives exactly
// what the `yaml` library (the one that positions problems, yaml-source.ts) gives. Reading the
// shipped flows with `yaml` costs ~100 ms of every command that loads them (it builds a full
// document with positions); js-yaml reads them in ~15 ms, and `yaml` is then only loaded when a
// problem needs a line and column.
//
// Contract: readCoreYaml(text) returns `{ value }`, the data of the text, only when js-yaml reads it
// without error and the text stays within the subset below; otherwise undefined, and the caller
// reads it with `yaml` as it always did (same data, same problems). Within the subset both read
// the same data (test/load/core-yaml.test.ts compares them over the shipped flows, the fixtures and
// generated documents):
// - one document; YAML 1.2 core schema scalars resolved as `yaml` resolves them (CORE_SCALARS:
//   `0b101`, `+0x1`, `-.5` and friends are where js-yaml's own core schema differs);
// - no anchors (so no aliases: nothing is shared, no alias expansion to bound), no tags but
//   `!!str`, `!!seq`, `!!map` (any other tag: `yaml`, which reports unknown tags as problems);
// - no duplicate keys (js-yaml refuses them), no key that is a collection (`[a]: b`, `? {a: 1}`)
//   and no null key (`~: b`): `yaml` turns those into other texts than js-yaml;
// - at most MAX_DEPTH levels of nesting (js-yaml's maxDepth).
import { FAILSAFE_SCHEMA, load, type State, Type } from 'js-yaml';

/** Deepest nesting read here (js-yaml's default, 100); a deeper document is read by `yaml`. */
const MAX_DEPTH = 100;

/**
 * Plain scalars as the `yaml` library's YAML 1.2 core schema resolves them (yaml/dist/schema/core,
 * in its order: null, bool, octal, decimal, hexadecimal int, .inf/.nan, exponent float, float).
 * Private tags: an explicit `!!int` or `!!null` is then an unknown tag here, read by `yaml`.
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

/** Characters between a node and what follows it on its line or the next ones. */
const BLANK = /[ \t\r\n]/;

/**
 * The data of `text` when js-yaml reads it within the subset of this module's contract; undefined
 * when it does not (an error, an anchor, an unknown tag, a collection or null key, too deep).
 * Never throws.
 */
export function readCoreYaml(text: string): { value: unknown } | undefined {
  let outside = false;
  const listener = (event: string, state: State) => {
    if (event !== 'close' || outside) return;
    const node = state as State & { anchor: string | null; kind: string | null; tag: string | null; position: number };
    if (node.anchor !== null) outside = true;
    // A collection followed by `:` is a key (`[a]: b`, `{a: 1}: b`, `? [a]\n: b`).
    else if ((node.kind === 'sequence' || node.kind === 'mapping') && nextSignificant(text, node.position) === ':') outside = true;
  };
  let value: unknown;
  try {
    value = load(text, { schema: CORE_SCHEMA, listener, maxDepth: MAX_DEPTH } as Parameters<typeof load>[1]);
  } catch {
    return undefined;
  }
  if (outside || hasNullKey(value)) return undefined;
  return { value };
}

/** The first character at or after `from` that is not a space, tab, line break or comment ('' at the end). */
function nextSignificant(text: string, from: number): string {
  let i = from;
  for (;;) {
    while (i < text.length && BLANK.test(text[i]!)) i++;
    if (text[i] !== '#') return text[i] ?? '';
    while (i < text.length && text[i] !== '\n') i++;
  }
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
