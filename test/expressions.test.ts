// Expressions: `{{ … }}` values compiled once and evaluated against the execution context.
// The security part shows hostile expressions and hostile input cannot reach the process.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import {
  compileExpression,
  compileValue,
  evaluateValue,
  ExpressionError,
  isTruthy,
  stepRefsOf,
  type CompiledValue,
  type ExpressionProblem,
} from '../engine/expressions.js';
import type { JsonValue } from '../engine/types.js';

const scope = {
  trigger: { body: { name: 'Ana', age: 31, tags: ['a', 'b'], one: [7], vip: true, none: null, address: { city: 'Recife' } } },
  steps: { fetch: { status: 200, body: { items: [1, 2, 3] } } },
  vars: { count: 2 },
  env: { GREETING: 'Olá' },
};

/** Compiles a value that must have no problems. */
function compiled(value: unknown): CompiledValue {
  const problems: ExpressionProblem[] = [];
  const result = compileValue(value, [], problems);
  expect(problems).toEqual([]);
  return result;
}

const evaluate = (value: unknown, s: object = scope) => evaluateValue(compiled(value), s);

/** Problems of compiling one string value. */
function problemsOf(value: string): ExpressionProblem[] {
  const problems: ExpressionProblem[] = [];
  compileValue(value, ['v'], problems);
  return problems;
}

describe('a whole-string expression keeps its JSON type', () => {
  it.each<[string, JsonValue | undefined]>([
    ['{{ trigger.body.age + 1 }}', 32],
    ['{{ trigger.body.address }}', { city: 'Recife' }],
    ['{{ trigger.body.tags }}', ['a', 'b']],
    ['{{ trigger.body.one }}', [7]],
    ['{{ trigger.body.age > 30 }}', true],
    ['{{ trigger.body.none }}', null],
    ['{{ trigger.body.name }}', 'Ana'],
    ['{{ $count(steps.fetch.body.items) * vars.count }}', 6],
    ['{{ trigger.body.missing }}', undefined],
  ])('%s', async (source, expected) => {
    const value = compiled(source);
    expect(value.kind).toBe('expression');
    expect(await evaluateValue(value, scope)).toEqual(expected);
  });
});

describe('templates', () => {
  it('stringify each inserted value: strings as-is, others as JSON, null and missing as empty', async () => {
    const value = compiled(
      's={{ trigger.body.name }} n={{ trigger.body.age }} b={{ trigger.body.vip }} o={{ trigger.body.address }} a={{ trigger.body.tags }} z={{ trigger.body.none }} m={{ trigger.body.missing }}.',
    );
    expect(value.kind).toBe('template');
    expect(await evaluateValue(value, scope)).toBe('s=Ana n=31 b=true o={"city":"Recife"} a=["a","b"] z= m=.');
  });

  it('text around a single expression makes a string; whitespace alone does not', async () => {
    expect(await evaluate('{{ trigger.body.age }} years')).toBe('31 years');
    expect(await evaluate(' {{ trigger.body.age }}')).toBe(31);
  });

  it('strings without {{ are literals, braces or not', async () => {
    for (const s of ['plain', '{ a }', '}}', '{ {x} }']) {
      expect(compiled(s)).toEqual({ kind: 'literal', value: s });
    }
  });
});

describe('nested values are compiled and evaluated member by member', () => {
  const value = {
    url: 'https://api.example/{{ trigger.body.name }}',
    body: { who: '{{ trigger.body.name }}', n: 5, ok: true, nothing: null, gone: '{{ trigger.body.missing }}' },
    list: ['x', '{{ trigger.body.age }}', { city: '{{ trigger.body.address.city }}' }, '{{ trigger.body.missing }}'],
  };

  it('keeps literals, evaluates expressions, drops undefined object members and nulls undefined array items', async () => {
    expect(await evaluate(value)).toEqual({
      url: 'https://api.example/Ana',
      body: { who: 'Ana', n: 5, ok: true, nothing: null },
      list: ['x', 31, { city: 'Recife' }, null],
    });
  });

  it('has the shape of the input', () => {
    const c = compiled(value);
    expect(c.kind).toBe('object');
    if (c.kind !== 'object') return;
    expect(c.entries.map(([k, v]) => [k, v.kind])).toEqual([
      ['url', 'template'],
      ['body', 'object'],
      ['list', 'array'],
    ]);
  });

  it('reports each problem with the path of its value and the offset inside the string', () => {
    const problems: ExpressionProblem[] = [];
    compileValue({ a: ['ok', 'x {{ 1 + }}'], b: '{{ $eval("1") }}' }, ['params'], problems);
    expect(problems).toEqual([
      { path: ['params', 'a', 1], offset: 8, message: 'Unexpected end of expression' },
      { path: ['params', 'b'], offset: 3, message: '$eval is not allowed in expressions' },
    ]);
  });
});

describe('splitting {{ … }} honours braces and quotes inside the expression', () => {
  it.each<[string, JsonValue]>([
    ['{{ {"a": {"b": 1}}.a.b }}', 1],
    ['{{ "}}" }}', '}}'],
    ["{{ '{{' }}", '{{'],
    ['{{ "a\\"}}" }}', 'a"}}'],
    ['{{ {"k": "}}"}.k }}', '}}'],
    ['a{{ {"x": 1}.x }}b{{ "}}" }}c', 'a1b}}c'],
    ['{{ [1, 2, 3][$ > 1] }}', [2, 3]],
  ])('%s', async (source, expected) => {
    expect(await evaluate(source)).toEqual(expected);
  });

  it('an unclosed {{ is a problem at the {{', () => {
    expect(problemsOf('Hi {{ trigger.body.name')).toEqual([{ path: ['v'], offset: 3, message: 'unclosed "{{": expected "}}"' }]);
    expect(problemsOf('{{ "}} }}')).toEqual([{ path: ['v'], offset: 0, message: 'unclosed "{{": expected "}}"' }]);
  });

  it('an empty expression is a problem', () => {
    expect(problemsOf('a {{  }}')).toEqual([{ path: ['v'], offset: 4, message: 'empty expression' }]);
  });

  it('a JSONata syntax error is a problem at the offending character', () => {
    const value = 'x {{ trigger.body ! 1 }}';
    expect(problemsOf(value)).toEqual([{ path: ['v'], offset: value.indexOf('!'), message: 'Unknown operator: "!"' }]);
  });

  it('compileExpression throws an ExpressionError carrying the source and position', () => {
    let error: unknown;
    try {
      compileExpression(' a ! b ');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect(error).toMatchObject({ name: 'ExpressionError', source: ' a ! b ', position: 3 });
  });
});

describe('step references', () => {
  it.each<[unknown, string[]]>([
    ['{{ steps.fetch.body }}', ['fetch']],
    ['{{ steps.a.x + steps.b.y + steps.a.z }}', ['a', 'b']],
    ['Hi {{ steps.lead.name }}, {{ $count(steps.history.rows) }} messages', ['lead', 'history']],
    [{ x: ['{{ steps.one }}', { y: '{{ steps.two.v }}' }] }, ['one', 'two']],
    ['{{ $map([1, 2], function($v) { steps.inner.k + $v }) }}', ['inner']],
    ['{{ steps.list[0].v }}', ['list']],
    ['{{ trigger.steps.x }}', []],
    ['{{ steps }}', []],
    ['steps.fetch', []],
  ])('%j -> %j', (value, refs) => {
    expect(stepRefsOf(compiled(value))).toEqual(refs);
  });
});

describe('isTruthy', () => {
  it.each<[JsonValue | undefined, boolean]>([
    [undefined, false],
    [null, false],
    [false, false],
    [0, false],
    ['', false],
    [[], false],
    [{}, false],
    [[0, '', null], false],
    [[[]], false],
    [true, true],
    [1, true],
    [-1, true],
    ['false', true],
    ['0', true],
    [[0, 1], true],
    [{ a: null }, true],
  ])('%j -> %s', (value, expected) => {
    expect(isTruthy(value)).toBe(expected);
  });
});

describe('security', () => {
  describe('compile time refuses names that reach JavaScript internals, and $eval', () => {
    it.each([
      ['{{ trigger.constructor }}', 'constructor'],
      ['{{ trigger.body.__proto__ }}', '__proto__'],
      ['{{ $string.prototype }}', 'prototype'],
      ['{{ trigger.__defineGetter__ }}', '__defineGetter__'],
      ['{{ trigger.`constructor` }}', 'constructor'],
      ['{{ $lookup(trigger, "constructor") }}', 'constructor'],
      ["{{ $lookup(trigger, '__proto__') }}", '__proto__'],
      ['{{ trigger.body["__proto__"] }}', '__proto__'],
      ['{{ {"__proto__": {"x": 1}} }}', '__proto__'],
      ['{{ trigger.body{"constructor": 1} }}', 'constructor'],
      ['{{ $map([1], function($v) { $v.constructor }) }}', 'constructor'],
      ['ok {{ 1 }} then {{ $eval("1 + 1") }}', '$eval'],
      ['{{ ($e := $eval; $e("1")) }}', '$eval'],
    ])('%s', (source, name) => {
      const problems = problemsOf(source);
      expect(problems).toHaveLength(1);
      expect(problems[0]!.message).toMatch(/is not allowed in expressions/);
      expect(problems[0]!.offset).toBe(source.indexOf(name));
    });

    it('a refused value compiles to an inert literal', () => {
      expect(compileValue('{{ trigger.constructor }}', [], [])).toEqual({ kind: 'literal', value: '{{ trigger.constructor }}' });
    });
  });

  describe('at run time JSONata reaches neither prototypes nor JavaScript functions', () => {
    // Bypasses the compile-time refusal on purpose: JSONata itself must hold.
    const raw = async (source: string, input: object = scope): Promise<unknown> =>
      jsonata(source, { timeout: 1000, stack: 300 }).evaluate(input);

    it.each([
      '$string.constructor',
      '$string.prototype',
      '{}.constructor',
      '"text".constructor',
      'trigger.constructor',
      'trigger.__proto__',
      'trigger.toString',
      'trigger.hasOwnProperty',
      '$lookup({}, "constructor")',
      '$lookup($string, "implementation")',
      '$string.implementation',
      '$keys($string)',
    ])('%s is undefined', async (source) => {
      expect(await raw(source)).toBeUndefined();
    });

    it('names built at run time do not reach prototypes', async () => {
      for (const source of [
        '$lookup(trigger, "con" & "structor")',
        '$lookup({}, "__pro" & "to__")',
        '$lookup($lookup({}, "con" & "structor"), "con" & "structor")',
      ]) {
        expect(await evaluate(`{{ ${source} }}`), source).toBeUndefined();
      }
    });

    it('$keys, $each, $sift and ** see only own data', async () => {
      expect(await evaluate('{{ $keys($) }}')).toEqual(['trigger', 'steps', 'vars', 'env']);
      expect(await evaluate('{{ $each(trigger.body.address, function($v, $k) { $k }) }}')).toBe('city');
      expect(await evaluate('{{ $sift(trigger.body.address, function() { true }) }}')).toEqual({ city: 'Recife' });
      expect(await evaluate('{{ trigger.body.address.** }}')).toEqual([{ city: 'Recife' }, 'Recife']);
    });

    it('$sift, $each and $merge refuse functions', async () => {
      await expect(evaluate('{{ $sift($string, function() { true }) }}')).rejects.toThrow(/does not match function signature/);
      await expect(evaluate('{{ $each($string, function($v, $k) { $k }) }}')).rejects.toThrow(/does not match function signature/);
      await expect(evaluate('{{ $merge([{}, $string]) }}')).rejects.toThrow(/must be an array of "objects"/);
    });

    it('process, require and globals are plain missing names; calling them fails', async () => {
      for (const name of ['process', 'require', 'globalThis', 'global', 'module', '$process', '$require']) {
        expect(await evaluate(`{{ ${name} }}`), name).toBeUndefined();
      }
      await expect(evaluate('{{ $require("fs") }}')).rejects.toThrow(ExpressionError);
      await expect(evaluate('{{ trigger.body.name() }}')).rejects.toThrow(/non-function/);
    });

    it('a function value is not data: it evaluates to nothing, never to a function or its internals', async () => {
      for (const source of ['{{ $spread($string) }}', '{{ $uppercase }}', '{{ function($x) { $x } }}']) {
        expect(await evaluate(source), source).toBeUndefined();
      }
      expect(await evaluate('{{ [$string, 1, function() { trigger }] }}')).toEqual([1]);
      expect(await evaluate('{{ {"f": $string, "n": 1} }}')).toEqual({ n: 1 });
      expect(await evaluate('f={{ $string }}')).toBe('f=');
    });
  });

  describe('hostile input is data, never code', () => {
    const hostile = {
      trigger: {
        body: JSON.parse('{"__proto__": {"isAdmin": true}, "name": "{{ process }}", "nested": {"__proto__": {"x": 1}}}') as object,
      },
    };

    it('a string holding {{ … }} is returned as text, not evaluated', async () => {
      expect(await evaluate('{{ trigger.body.name }}', hostile)).toBe('{{ process }}');
      expect(await evaluate('Hi {{ trigger.body.name }}!', hostile)).toBe('Hi {{ process }}!');
    });

    it('a "__proto__" key stays an own data member and sets no prototype', async () => {
      const body = (await evaluate('{{ trigger.body }}', hostile)) as Record<string, unknown>;
      expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
      expect(body.isAdmin).toBeUndefined();
      expect(Object.keys(body)).toEqual(['__proto__', 'name', 'nested']);
      expect(JSON.stringify(body)).toBe('{"__proto__":{"isAdmin":true},"name":"{{ process }}","nested":{"__proto__":{"x":1}}}');
      const copy = (await evaluate({ copy: '{{ trigger.body.nested }}' }, hostile)) as { copy: Record<string, unknown> };
      expect(copy.copy.x).toBeUndefined();
    });

    it('merging or transforming hostile objects pollutes no prototype', async () => {
      const merged = (await evaluate('{{ $merge([{}, trigger.body]) }}', hostile)) as Record<string, unknown>;
      expect(merged.isAdmin).toBeUndefined();
      await evaluate('{{ trigger.body ~> | $ | {"__pro" & "to__": {"polluted": true}} | }}', hostile);
      await evaluate('{{ {"a": 1} ~> | $ | trigger.body | }}', hostile);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      expect(Object.keys(Object.prototype)).toEqual([]);
    });
  });

  describe('evaluation is bounded', () => {
    it('endless tail recursion fails with a timeout instead of hanging', async () => {
      const started = Date.now();
      await expect(evaluate('{{ ($f := function($x) { $f($x) }; $f(1)) }}')).rejects.toThrow(/timeout/i);
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('endless deep recursion fails with a stack-depth error instead of crashing', async () => {
      await expect(evaluate('{{ ($f := function($x) { $x + $f($x) }; $f(1)) }}')).rejects.toThrow(/stack overflow/i);
    });

    it('a huge range fails instead of exhausting memory', async () => {
      await expect(evaluate('{{ $count([1..1000000000]) }}')).rejects.toThrow(ExpressionError);
    });

    it('the error names the expression', async () => {
      await expect(evaluate('{{ $f(1) }}')).rejects.toThrow(/expression \{\{ \$f\(1\) \}\} failed/);
    });
  });

  describe('no code evaluation anywhere in the shipped source', () => {
    const FORBIDDEN: Array<[string, RegExp]> = [
      ['eval(', /\beval\s*\(/],
      ['new Function(', /\bnew\s+Function\s*\(/],
      ['vm import', /(from\s+|import\s*\(\s*|require\s*\(\s*)['"](node:)?vm['"]/],
    ];
    const root = join(import.meta.dirname, '..');

    function sourceFiles(dir: string): string[] {
      return readdirSync(dir).flatMap((name) => {
        const file = join(dir, name);
        if (statSync(file).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(file);
        return /\.(ts|js|mjs|cjs|mts|cts)$/.test(name) ? [file] : [];
      });
    }

    it('scans the source files', () => {
      expect(sourceFiles(join(root, 'engine')).map((f) => f.slice(root.length + 1))).toContain('engine/expressions.ts');
    });

    for (const dir of ['engine', 'nodes', 'cli', 'adapters', 'bench']) {
      it(`${dir}/ has no eval(, new Function( or vm import`, () => {
        const files = sourceFiles(join(root, dir));
        const hits = files.flatMap((file) =>
          FORBIDDEN.filter(([, pattern]) => pattern.test(readFileSync(file, 'utf8'))).map(
            ([what]) => `${file.slice(root.length + 1)}: ${what}`,
          ),
        );
        expect(hits).toEqual([]);
      });
    }

    it('the patterns do catch what they look for', () => {
      const samples = [
        'eval("x")',
        'globalThis.eval (code)',
        'new Function("return 1")',
        "import vm from 'node:vm'",
        'import { runInNewContext } from "vm"',
        "require('vm')",
        "await import('node:vm')",
      ];
      for (const sample of samples)
        expect(
          FORBIDDEN.some(([, p]) => p.test(sample)),
          sample,
        ).toBe(true);
      expect(FORBIDDEN.some(([, p]) => p.test("const FORBIDDEN_FUNCTIONS = new Set(['eval']); isFunction(x); retrieval(1)"))).toBe(false);
    });
  });
});

describe('whitespace around a single expression', () => {
  it('keeps the value typed, as the schema accepts it as an expression', async () => {
    const { compileValue: compile, evaluateValue: evaluate } = await import('../engine/expressions.js');
    expect(await evaluate(compile('  {{ 2 + 3 }} '), {})).toBe(5);
    expect(await evaluate(compile('x {{ 2 + 3 }}'), {})).toBe('x 5');
  });
});
