// Simple expressions (engine/simple-expression.ts): comparisons, `and`/`or`, `&`, `? :` and a few
// functions over plain paths and literals give exactly what JSONata gives. Proven on generated
// expressions and scopes (a seeded generator: every run checks the same cases), both for the
// evaluator itself (the very value JSONata returns, or NEEDS_JSONATA) and through
// compileValue/evaluateValue (the plain JSON, or the error, the engine hands on), and on the agent
// flow's own expressions.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { prng } from './helpers/prng.js';
import { trackedExpression } from './helpers/tracked-expression.js';
import { compileExpression, compileValue, evaluateValue } from '../engine/expressions.js';
import { toPlainJson } from '../engine/plain-json.js';
import { NEEDS_JSONATA } from '../engine/plain-path.js';
import { MAX_DEPTH, simpleEvaluatorOf } from '../engine/simple-expression.js';

const NAMES = ['a', 'b', 'c', 'msg', 'text', 'n'];

/** A random value: scalars (NaN, Infinity, padded text, a function too), arrays and objects. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const roll = random();
  if (depth <= 0 || roll < 0.7)
    return pick([
      null,
      0,
      1,
      2,
      -2.5,
      0.1 + 0.2,
      1e21,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '',
      'text',
      'x',
      '  A\tb \n',
      'Ç ',
      true,
      false,
      undefined,
      () => 1,
    ]);
  if (roll < 0.85) return Array.from({ length: pick([0, 1, 1, 2, 3]) }, () => randomValue(random, depth - 1));
  const out: Record<string, unknown> = {};
  for (let i = pick([0, 1, 2, 3]); i > 0; i--) out[pick(NAMES)] = randomValue(random, depth - 1);
  return out;
}

/** A random expression in the simple subset, with some of what it leaves to JSONata mixed in. */
function randomExpression(random: () => number, depth: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const roll = random();
  if (depth <= 0 || roll < 0.3) {
    const leaf = random();
    if (leaf < 0.55) return Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(NAMES)).join('.');
    return pick(["''", "'x'", "'text'", "' a  b '", '0', '1', '2', '-2.5', '0.5', 'true', 'false', 'null', "['x', 'text', 1]", '[]']);
  }
  const sub = () => randomExpression(random, depth - 1);
  const wrap = (e: string) => (random() < 0.5 ? `(${e})` : e.includes(' ') ? `(${e})` : e);
  if (roll < 0.7) {
    const op = pick(['and', 'or', '=', '!=', '&', 'in', '<', '<=', '>', '>=', '+', '-', '*', '/', '%']);
    return `${wrap(sub())} ${op} ${wrap(sub())}`;
  }
  if (roll < 0.8) return random() < 0.8 ? `${wrap(sub())} ? ${wrap(sub())} : ${wrap(sub())}` : `${wrap(sub())} ? ${wrap(sub())}`;
  if (roll < 0.95) {
    const fn = pick(['not', 'exists', 'trim', 'lowercase', 'uppercase', 'not', 'trim', 'string', 'count', 'boolean']);
    return `$${fn}(${sub()})`;
  }
  return random() < 0.5 ? `(${sub()}; ${sub()})` : '$millis() > 0';
}

/** What the engine's JSONata gives: the plain JSON result, or 'error'. */
async function viaJsonata(source: string, scope: object): Promise<unknown> {
  try {
    return { value: toPlainJson(await compileExpression(source).expression.evaluate(scope)) };
  } catch {
    return 'error';
  }
}

/** What evaluateValue gives: the plain JSON result, or 'error'. */
async function viaEngine(source: string, scope: object): Promise<unknown> {
  try {
    return { value: await evaluateValue(compileValue(`{{ ${source} }}`), scope) };
  } catch {
    return 'error';
  }
}

describe('simple expressions give what JSONata gives', () => {
  it('on 6000 generated expressions and scopes: the same value (or NEEDS_JSONATA), and through evaluateValue the same result or error', async () => {
    const random = prng(20260115);
    let simple = 0;
    let answered = 0;
    let deferred = 0;
    for (let i = 0; i < 6000; i++) {
      const source = randomExpression(random, 4);
      const scope: Record<string, unknown> = {};
      for (const name of NAMES) if (random() < 0.85) scope[name] = randomValue(random, 3);
      const compiled = compileExpression(source);
      if (compiled.simple) {
        simple++;
        const fast = compiled.simple(scope);
        if (fast === NEEDS_JSONATA) deferred++;
        else {
          answered++;
          let expected: unknown;
          try {
            expected = await compiled.expression.evaluate(scope);
          } catch (err) {
            throw new Error(`${source} in case ${i}: JSONata throws (${(err as { code?: string }).code}), the simple evaluator answered`);
          }
          if (typeof fast === 'object' && fast !== null)
            expect(toPlainJson(fast), `${source} in case ${i}`).toStrictEqual(toPlainJson(expected));
          else expect(Object.is(fast, expected), `${source} in case ${i}: ${String(fast)} vs ${String(expected)}`).toBe(true);
        }
      }
      expect(await viaEngine(source, scope), `${source} in case ${i}`).toStrictEqual(await viaJsonata(source, scope));
    }
    // The generator reaches every branch: many simple expressions, answered and deferred.
    expect(simple).toBeGreaterThan(3000);
    expect(answered).toBeGreaterThan(1100);
    expect(deferred).toBeGreaterThan(300);
  });

  // The expressions of flows/agent.yaml before its debounce step, on scopes such as a message makes.
  const agentExpressions = [
    'steps.lead = null',
    "steps.lead.clinica_id & ':' & steps.lead.remotejid",
    "vars.key & ':' & steps.msg.message_id",
    '$not(steps.seen.first)',
    '$lowercase($trim(steps.msg.text))',
    'steps.msg.from_me and $not(steps.msg.sent_by_api)',
    '$not(steps.msg.from_me) and steps.admin_number.listed',
    "env.LEADFLOW_COMMANDS_FROM = 'any'",
    '$not(steps.msg.sent_by_api) and (steps.sender.anyone_may or steps.sender.operator or steps.sender.admin)',
    "steps.may_command.allowed ? steps.sender.command : ''",
    'steps.msg.from_me or steps.msg.sent_by_api',
    "steps.msg.kind in ['sticker', 'other', 'text'] and $trim(steps.msg.text) = ''",
    "$trim(steps.msg.text) != '' ? steps.msg.text : '[' & steps.msg.kind & ']'",
  ];

  it('the agent flow still holds each of those expressions (this list follows it)', () => {
    const flow = readFileSync(join(import.meta.dirname, '../flows/agent.yaml'), 'utf8');
    for (const source of agentExpressions) expect(flow, source).toContain(`{{ ${source} }}`);
  });

  it.each(agentExpressions)('%s: simple, and the same as JSONata on message-like scopes', async (source) => {
    expect(compileExpression(source).simple).toBeDefined();
    const lead = (over: Record<string, unknown>) => ({
      id: 5,
      clinica_id: 1,
      remotejid: '5511987654321',
      transferido: false,
      optout_at: null,
      pausado_ate: null,
      ...over,
    });
    for (const text of ['Oi, vi o anúncio', '  RESET ', '', ' \n\t ', 'parar']) {
      for (const from_me of [false, true]) {
        for (const found of [lead({}), null, lead({ optout_at: '2026-01-01T00:00:00Z', pausado_ate: '2099-01-01T00:00:00.000Z' })]) {
          const scope = {
            steps: {
              msg: {
                phone: '5511987654321',
                message_id: '3EB0A1',
                from_me,
                sent_by_api: false,
                kind: text === '' ? 'sticker' : 'text',
                text,
              },
              lead: found,
              seen: { first: !from_me },
              admin_number: { listed: from_me },
              sender: { command: text.trim().toLowerCase(), operator: from_me, admin: false, anyone_may: false },
              may_command: { allowed: from_me },
            },
            vars: { key: '1:5511987654321', lead: found },
            env: { LEADFLOW_COMMANDS_FROM: 'admins' },
          };
          expect(await viaEngine(source, scope), JSON.stringify(scope)).toStrictEqual(await viaJsonata(source, scope));
        }
      }
    }
  });
});

describe('when JSONata runs', () => {
  const tracked = trackedExpression;

  it('a simple expression is evaluated without JSONata, also inside a template', async () => {
    const scope = { steps: { lead: { clinica_id: 3, remotejid: '5511987654321' }, seen: { first: false } } };
    const key = tracked("steps.lead.clinica_id & ':' & steps.lead.remotejid");
    expect(await evaluateValue(key.value, scope)).toBe('3:5511987654321');
    const duplicate = tracked('$not(steps.seen.first)');
    expect(await evaluateValue(duplicate.value, scope)).toBe(true);
    const template = compileValue("key {{ steps.lead.clinica_id & ':' & steps.lead.remotejid }}!");
    expect(template).toMatchObject({ kind: 'template', plain: true });
    expect(await evaluateValue(template, scope)).toBe('key 3:5511987654321!');
    expect(key.calls() + duplicate.calls()).toBe(0);
  });

  it('JSONata runs where the evaluator meets what it leaves to it, and gives its result or error', async () => {
    const paused = tracked('vars.lead.pausado_ate != null and $toMillis(vars.lead.pausado_ate) > $millis()');
    expect(await evaluateValue(paused.value, { vars: { lead: { pausado_ate: null } } })).toBe(false);
    expect(paused.calls()).toBe(0);
    expect(await evaluateValue(paused.value, { vars: { lead: { pausado_ate: '2099-01-01T00:00:00.000Z' } } })).toBe(true);
    expect(paused.calls()).toBe(1);
    // An object's text, a trim of a number (JSONata's T0410): JSONata answers.
    const objectText = tracked("steps.lead & '!'");
    expect(await evaluateValue(objectText.value, { steps: { lead: { a: 1 } } })).toBe('{"a":1}!');
    expect(objectText.calls()).toBe(1);
    await expect(evaluateValue(tracked('$trim(n)').value, { n: 5 })).rejects.toThrow(/does not match function signature/);
  });

  it.each([
    ['a + 1', { a: 1 }, 2],
    ["a & ''", { a: 0.1 + 0.2 }, '0.3'],
    ["a & ''", { a: 1e21 }, '1e+21'],
    ['a & b & c', { a: true, b: null }, 'truenull'],
    ['a in b', { a: 'x', b: 'x' }, true],
    ['a in b', { a: 1, b: ['1', 1] }, true],
    ['a in b', { a: Number.NaN, b: [Number.NaN] }, false],
    ['a = b', { a: 1 }, false],
    ['a != b', { a: 1 }, false],
    ['a < b', { a: 'a', b: 'b' }, true],
    ['a < b', { a: 1 }, undefined],
    ['a ? b', { a: '' }, undefined],
    ['a ? b : c', { a: Number.NaN, c: 'c' }, 'c'],
    ['$not(a)', {}, undefined],
    ['$exists(a)', { a: null }, true],
    ['$trim(a)', { a: ' \t a \n b  ' }, 'a b'],
    ['(a; b)', { a: 1, b: 2 }, 2],
  ])('%s on %j is %j', async (source, scope, expected) => {
    expect(compileExpression(source).simple).toBeDefined();
    expect(await evaluateValue(compileValue(`{{ ${source} }}`), scope)).toStrictEqual(expected);
    expect(toPlainJson(await jsonata(source).evaluate(scope))).toStrictEqual(expected);
  });
});

describe('what gets a simple evaluator', () => {
  it.each([
    'a.b',
    'a.b[0] = 1',
    '$x = 1',
    '($x := 1; $x)',
    '$millis()',
    '$string(a)',
    '-a',
    'a.(b = 1)',
    '$not(a, b)',
    '$not()',
    'a ~> $not()',
  ])('%s does not', (source) => {
    expect(compileExpression(source).simple).toBeUndefined();
  });

  it('an expression nested deeper than MAX_DEPTH does not', () => {
    const deep = `${'('.repeat(MAX_DEPTH)}a${')'.repeat(MAX_DEPTH)}`;
    expect(simpleEvaluatorOf(jsonata(deep).ast())).toBeUndefined();
    expect(simpleEvaluatorOf(jsonata('((a))').ast())).toBeDefined();
  });

  it('a binding anywhere, even where evaluation may not reach, leaves the whole expression to JSONata', () => {
    expect(compileExpression('a or ($not := $string; $not(b))').simple).toBeUndefined();
  });
});
