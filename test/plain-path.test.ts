// Plain paths (engine/plain-path.ts): `{{ a.b.c }}` read by walking the scope gives exactly what
// JSONata gives. Proven on generated scopes (a seeded generator: every run checks the same cases)
// and on targeted cases, both for the walk itself (the very value JSONata returns, same reference)
// and through compileValue/evaluateValue (the plain JSON the engine hands to nodes).
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { prng } from './helpers/prng.js';
import { trackedExpression } from './helpers/tracked-expression.js';
import { compileExpression, compileValue, evaluateValue } from '../engine/expressions.js';
import { toPlainJson } from '../engine/plain-json.js';
import { NEEDS_JSONATA, plainPathOf, plainPathOfText, readPlainPath } from '../engine/plain-path.js';

/** Names paths and scopes are made of: plain ones, and ones that exist on Object.prototype. */
const NAMES = ['a', 'b', 'c', 'steps', 'msg', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

/** A random value: scalars (null, NaN, Infinity too), arrays (empty, singleton, nested) and objects of several kinds. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const roll = random();
  if (depth <= 0 || roll < 0.3)
    return pick([null, 0, 1, -2.5, Number.NaN, Number.POSITIVE_INFINITY, '', 'text', true, false, undefined, () => 1]);
  if (roll < 0.55) {
    const length = pick([0, 1, 1, 2, 3]);
    return Array.from({ length }, () => randomValue(random, depth - 1));
  }
  const kind = pick(['plain', 'plain', 'plain', 'null-prototype', 'inherits', 'jsonata-function', 'date']);
  if (kind === 'date') return new Date(Date.UTC(2025, 0, 1));
  const proto = kind === 'null-prototype' ? null : kind === 'inherits' ? { a: 'inherited', b: { c: 'inherited' } } : Object.prototype;
  const out = Object.create(proto) as Record<string, unknown>;
  if (kind === 'jsonata-function') out._jsonata_function = true;
  const members = pick([0, 1, 2, 3, 4]);
  for (let i = 0; i < members; i++) out[pick(NAMES)] = randomValue(random, depth - 1);
  return out;
}

/**
 * A path of 1 to 4 names, mostly following the members `scope` has (through array items too, where
 * JSONata maps), sometimes a name it may not have.
 */
function randomPath(random: () => number, scope: unknown): string[] {
  const length = 1 + Math.floor(random() * 4);
  const names: string[] = [];
  let current: unknown = scope;
  for (let i = 0; i < length; i++) {
    while (Array.isArray(current) && current.length > 0) current = current[Math.floor(random() * current.length)];
    const keys = current !== null && typeof current === 'object' ? Object.keys(current) : [];
    const name =
      keys.length > 0 && random() < 0.85 ? keys[Math.floor(random() * keys.length)]! : NAMES[Math.floor(random() * NAMES.length)]!;
    names.push(name);
    current = keys.includes(name) ? (current as Record<string, unknown>)[name] : undefined;
  }
  return names;
}

/** Raw JSONata result of a path (no conversion). */
async function jsonataValue(names: string[], scope: unknown): Promise<unknown> {
  return jsonata(names.map((n) => `\`${n}\``).join('.')).evaluate(scope);
}

describe('plain paths give what JSONata gives', () => {
  it('on 4000 generated scopes and paths: the walk returns the same value (same reference) or defers to JSONata', async () => {
    const random = prng(20251125);
    let walked = 0;
    let deferred = 0;
    let defined = 0;
    for (let i = 0; i < 4000; i++) {
      const scope = random() < 0.95 ? { a: randomValue(random, 4), steps: randomValue(random, 5) } : randomValue(random, 5);
      const names = randomPath(random, scope);
      const fast = readPlainPath(names, scope);
      const expected = await jsonataValue(names, scope);
      if (fast === NEEDS_JSONATA) {
        deferred++;
        continue;
      }
      walked++;
      if (fast !== undefined) defined++;
      expect(Object.is(fast, expected), `${names.join('.')} in case ${i}`).toBe(true);
    }
    // The generator reaches every branch: many walks, many defined results, and arrays on the way.
    expect(walked).toBeGreaterThan(2500);
    expect(defined).toBeGreaterThan(800);
    expect(deferred).toBeGreaterThan(400);
  });

  it('through compileValue/evaluateValue: whole-string, template, object and array values equal the JSONata path', async () => {
    const random = prng(7);
    let plainResults = 0;
    for (let i = 0; i < 1500; i++) {
      // The scope's top level is an object, as the engine's is.
      const scope = { a: randomValue(random, 4), b: randomValue(random, 4), steps: randomValue(random, 4), msg: randomValue(random, 3) };
      const names = randomPath(random, scope);
      const source = names.join('.');
      const expression = compileValue(`{{ ${source} }}`);
      expect(expression.kind).toBe('expression');
      const expected = toPlainJson(await jsonataValue(names, scope));
      const got = await evaluateValue(expression, scope);
      expect(got, source).toStrictEqual(expected);
      if (got !== undefined) plainResults++;

      const text = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
      expect(await evaluateValue(compileValue(`<{{ ${source} }}|{{ a }}>`), scope), source).toBe(
        `<${text(expected)}|${text(toPlainJson(await jsonataValue(['a'], scope)))}>`,
      );
      const object = await evaluateValue(compileValue({ x: `{{ ${source} }}`, y: ['{{ b }}', 1], z: 'lit' }), scope);
      const b = toPlainJson(await jsonataValue(['b'], scope));
      expect(object, source).toStrictEqual({ ...(expected === undefined ? {} : { x: expected }), y: [b ?? null, 1], z: 'lit' });
    }
    expect(plainResults).toBeGreaterThan(300);
  });
});

describe('targeted cases', () => {
  const scope = {
    trigger: { auth: { instance_id: 7 }, body: { tags: ['a', 'b'], one: [7], empty: [], none: null, zero: 0, no: false, blank: '' } },
    steps: {
      msg: { phone: '5511987654321', nested: { deep: { deeper: 1 } } },
      rows: [{ id: 1 }, { id: 2, extra: [3, 4] }],
      single: [{ id: 9 }],
      nestedArrays: [[{ id: 1 }], [{ id: 2 }]],
    },
    odd: JSON.parse('{"__proto__": {"x": 1}, "`q`": 2, "a b": {"c": 3}}') as object,
    inherits: Object.assign(Object.create({ inherited: 1 }), { own: 2 }) as object,
    bare: Object.assign(Object.create(null), { k: 'v' }) as object,
    numbers: { nan: Number.NaN, inf: Number.NEGATIVE_INFINITY },
    when: new Date(Date.UTC(2025, 0, 2)),
  };

  it.each([
    'steps.msg.phone',
    'trigger.auth.instance_id',
    'steps.msg.nested.deep.deeper',
    'steps.msg.nested',
    'steps.msg.missing',
    'steps.missing.deeper.still',
    'trigger.body.tags',
    'trigger.body.one',
    'trigger.body.empty',
    'trigger.body.none',
    'trigger.body.none.below',
    'trigger.body.zero',
    'trigger.body.zero.below',
    'trigger.body.no',
    'trigger.body.blank',
    'trigger.body.blank.length',
    'trigger.body.tags.length',
    'steps.rows',
    'steps.rows.id',
    'steps.rows.extra',
    'steps.single.id',
    'steps.nestedArrays.id',
    'steps.msg.toString',
    'steps.msg.hasOwnProperty',
    'steps.msg.phone.length',
    'inherits.inherited',
    'inherits.own',
    'bare.k',
    'bare.toString',
    'odd.`__proto__`.x',
    'odd.`a b`.c',
    "odd.'a b'.c",
    'numbers.nan',
    'numbers.inf',
    'when',
    'when.getTime',
    'steps',
  ])('%s', async (source) => {
    const expected = toPlainJson(await jsonata(source).evaluate(scope));
    // Through the engine's own compile (names it refuses are checked on the walk alone).
    if (!source.includes('__proto__')) expect(await evaluateValue(compileValue(`{{ ${source} }}`), scope)).toStrictEqual(expected);
    const names = plainPathOf(jsonata(source).ast());
    expect(names).toBeDefined();
    const fast = readPlainPath(names!, scope);
    if (fast !== NEEDS_JSONATA) expect(toPlainJson(fast)).toStrictEqual(expected);
  });

  it('walks where JSONata needs nothing of its own, and defers exactly where an array comes before the end', () => {
    const read = (source: string) => readPlainPath(plainPathOf(jsonata(source).ast())!, scope);
    expect(read('steps.msg.phone')).toBe('5511987654321');
    expect(read('trigger.body.tags')).toBe(scope.trigger.body.tags);
    expect(read('trigger.body.empty')).toBe(scope.trigger.body.empty);
    expect(read('steps.msg.toString')).toBeUndefined();
    expect(read('inherits.inherited')).toBeUndefined();
    expect(read('trigger.body.tags.length')).toBe(NEEDS_JSONATA);
    expect(read('steps.rows.id')).toBe(NEEDS_JSONATA);
    expect(readPlainPath(['a'], [{ a: 1 }])).toBe(NEEDS_JSONATA);
    const sequence = Object.assign([1, 2], { sequence: true });
    expect(readPlainPath(['s'], { s: sequence })).toBe(NEEDS_JSONATA);
  });

  it('a plain path never calls JSONata unless it meets an array; other expressions always do', async () => {
    const tracked = trackedExpression;
    const plain = tracked(' steps.msg.phone ');
    expect(await evaluateValue(plain.value, scope)).toBe('5511987654321');
    expect(await evaluateValue({ kind: 'template', parts: ['+', plain.value.kind === 'expression' ? plain.value.expr : ''] }, scope)).toBe(
      '+5511987654321',
    );
    expect(plain.calls()).toBe(0);
    const overArray = tracked('steps.rows.id');
    expect(await evaluateValue(overArray.value, scope)).toEqual([1, 2]);
    expect(overArray.calls()).toBe(1);
    const computed = tracked('$string(steps.msg.phone)');
    expect(await evaluateValue(computed.value, scope)).toBe('5511987654321');
    expect(computed.calls()).toBe(1);
  });

  it('results are fresh copies: changing one never changes the scope', async () => {
    const local = { steps: { msg: { nested: { n: 1 }, list: [{ n: 2 }] } } };
    const value = (await evaluateValue(compileValue({ a: '{{ steps.msg.nested }}', b: '{{ steps.msg.list }}' }), local)) as {
      a: { n: number };
      b: Array<{ n: number }>;
    };
    value.a.n = 10;
    value.b[0]!.n = 20;
    expect(local).toEqual({ steps: { msg: { nested: { n: 1 }, list: [{ n: 2 }] } } });
  });
});

describe('what counts as a plain path', () => {
  it.each([
    ['a', ['a']],
    [' steps.msg.phone ', ['steps', 'msg', 'phone']],
    ['`a b`.c', ['a b', 'c']],
    ['a."b"', ['a', 'b']],
    ['a/* note */.b', ['a', 'b']],
    ['now', ['now']],
  ])('%s is plain', (source, names) => {
    expect(plainPathOf(jsonata(source).ast())).toEqual(names);
    expect(compileExpression(source).plainPath).toEqual(names);
  });

  it.each([
    'a[]',
    'a.b[0]',
    'a.b[]',
    'a[b = 1]',
    '$x.a',
    '$.a',
    '$$.a',
    'a.*',
    'a.**',
    'a.b#$i',
    'a@$x',
    'a.b^(x)',
    'a.(b)',
    'a{b: c}',
    '(a.b)',
    'a.b + 1',
    'a & b',
    '$string(a)',
    'a ? b : c',
    'a = null',
    '"a"',
    '1',
    'true',
    '%.a',
    '[a]',
  ])('%s is not', (source) => {
    let ast: unknown;
    try {
      ast = jsonata(source).ast();
    } catch {
      return; // not even an expression
    }
    expect(plainPathOf(ast)).toBeUndefined();
  });
});

describe('plain paths recognised from the text, without JSONata (plainPathOfText)', () => {
  /** Pieces expression texts are made of: names, literal and operator words, digits, quotes, spaces of every kind. */
  const PIECES = [
    'a',
    'steps',
    'msg',
    'b_2',
    '_x',
    'Z',
    'true',
    'false',
    'null',
    'and',
    'or',
    'in',
    'not',
    'function',
    'constructor',
    '.',
    '.',
    '.',
    ' ',
    '\t',
    '\n',
    '\r',
    '\v',
    '\u00a0',
    '\u2028',
    '1',
    '$',
    '`',
    '"',
    '[0]',
    '/* c */',
    'é',
    '-',
  ];

  it('every text it accepts is a plain path JSONata parses to the same names (2,000 generated texts)', () => {
    const random = prng(17);
    let accepted = 0;
    for (let i = 0; i < 2000; i++) {
      const length = 1 + Math.floor(random() * 6);
      const source = Array.from({ length }, () => PIECES[Math.floor(random() * PIECES.length)]!).join('');
      const names = plainPathOfText(source);
      if (!names) continue;
      accepted++;
      expect(plainPathOf(jsonata(source).ast()), JSON.stringify(source)).toEqual(names);
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it.each([
    ['a', ['a']],
    [' steps.msg.phone ', ['steps', 'msg', 'phone']],
    ['\n\tnow\r\v', ['now']],
    ['function.not', ['function', 'not']],
  ])('%j is recognised', (source, names) => {
    expect(plainPathOfText(source)).toEqual(names);
    expect(plainPathOf(jsonata(source).ast())).toEqual(names);
  });

  it.each(['true', 'a.null', 'in', 'a.and', '`a b`.c', 'a."b"', 'a/* c */.b', 'a .b', 'a\u00a0', '1a', '$x', 'a.', '.a', ''])(
    '%j is left to JSONata',
    (source) => {
      expect(plainPathOfText(source)).toBeUndefined();
    },
  );

  it('a refused name is left to JSONata, so the loader still reports it', () => {
    expect(plainPathOfText('a.constructor', new Set(['constructor']))).toBeUndefined();
    expect(() => compileExpression('steps.constructor')).toThrow(/"constructor" is not allowed/);
  });

  it("the compiled expression of a recognised path equals the one JSONata's parse gives, its JSONata expression made on first use", async () => {
    const compiled = compileExpression(' steps.msg.phone ');
    expect(compiled.plainPath).toEqual(['steps', 'msg', 'phone']);
    expect(compiled.stepRefs).toEqual(['msg']);
    expect(compileExpression('steps').stepRefs).toEqual([]);
    // Through an array only JSONata gives the result: the lazily made expression is used.
    const scope = { steps: { msg: [{ phone: '1' }, { phone: '2' }] } };
    expect(await evaluateValue({ kind: 'expression', expr: compiled }, scope)).toEqual(['1', '2']);
    expect(compiled.expression).toBe(compiled.expression);
  });
});
