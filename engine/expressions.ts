// Safe expressions for flow values: JSONata, never JavaScript.
// (A string is split into text and expressions by template-split.ts; results become plain JSON
// through plain-json.ts.)
//
// Contract:
// - A string holding `{{ expr }}` and nothing else evaluates to the expression's value (any JSON type).
// - A string with text around one or more `{{ expr }}` is a template: each expression's value is
//   inserted as text (strings as-is, other values as JSON, null/undefined as empty).
// - Anything else is a literal. Objects and arrays are compiled member by member.
// - Expressions are compiled once, when the flow loads; a syntax error is a load problem.
// - An expression that is only a chain of names (`steps.msg.phone`) is read by walking the scope
//   (engine/plain-path.ts) with JSONata's result, and evaluated by JSONata only where that walk meets
//   an array before the path's end; test/plain-path.test.ts compares both on generated scopes.
// - A simple expression (comparisons, `and`/`or`, `&`, `? :`, `$not`, `$trim` … over plain paths and
//   literals: engine/simple-expression.ts) is evaluated by a closure tree with JSONata's result, and by
//   JSONata wherever that tree cannot be sure; test/simple-expression.test.ts compares both.
// - Evaluation is bounded: at most EXPRESSION_TIMEOUT_MS of work and EXPRESSION_MAX_DEPTH nesting.
// - Names that reach JavaScript internals (`constructor`, `__proto__`, `prototype`) and `$eval`
//   (which would compile unchecked text at run time) are refused at load time; JSONata itself
//   never exposes prototypes either (test/expressions.test.ts shows both).
import jsonata from 'jsonata';
import { setMember, toPlainJson } from './plain-json.js';
import { splitTemplate } from './template-split.js';
import { NEEDS_JSONATA, plainPathOf, plainPathOfText, readPlainPath } from './plain-path.js';
import { type SimpleEvaluator, simpleEvaluatorOf } from './simple-expression.js';
import type { JsonValue } from './types.js';

/** Longest an expression may run when evaluated, ms; longer is an ExpressionError. */
export const EXPRESSION_TIMEOUT_MS = 1000;
/** Deepest an expression's evaluation may nest (recursion); deeper is an ExpressionError. */
export const EXPRESSION_MAX_DEPTH = 300;

const FORBIDDEN_NAMES = new Set(['constructor', '__proto__', 'prototype', '__defineGetter__', '__lookupGetter__']);
const FORBIDDEN_FUNCTIONS = new Set(['eval']);

/** One `{{ … }}` expression compiled at load: its source text, the JSONata expression and the steps it reads. */
export interface CompiledExpression {
  source: string;
  expression: jsonata.Expression;
  /** Step ids read through `steps.<id>`. */
  stepRefs: string[];
  /** The names of the path when the expression is a plain path (engine/plain-path.ts), else absent. */
  plainPath?: readonly string[];
  /** Not a plain path but a simple expression (engine/simple-expression.ts): its evaluator, else absent. */
  simple?: SimpleEvaluator;
}

/**
 * A YAML value compiled at load: a literal, a whole-string expression (any JSON result), a template
 * (text with expressions, a string result), or an object or array compiled member by member.
 * `plain: true` marks a template, object or array whose expressions are all plain paths or simple
 * expressions: it is evaluated without JSONata (evaluatePlain) unless one of them needs it (a path
 * meets an array on its way, a simple expression meets a case it leaves to JSONata).
 */
export type CompiledValue =
  | { kind: 'literal'; value: unknown }
  | { kind: 'expression'; expr: CompiledExpression }
  | { kind: 'template'; parts: Array<string | CompiledExpression>; plain?: true }
  | { kind: 'object'; entries: Array<[string, CompiledValue]>; plain?: true }
  | { kind: 'array'; items: CompiledValue[]; plain?: true };

/** A problem in one expression: `offset` counts characters from the start of the string value. */
export interface ExpressionProblem {
  path: Array<string | number>;
  offset: number;
  message: string;
}

/** An expression that failed to compile or to evaluate; `source` is its text between `{{` and `}}`. */
export class ExpressionError extends Error {
  override name = 'ExpressionError';
  constructor(
    message: string,
    readonly source: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface AstNode {
  type?: string;
  value?: unknown;
  position?: number;
  [key: string]: unknown;
}

/** Walks a JSONata AST: checks forbidden names and collects `steps.<id>` references. */
function inspectAst(node: unknown, refs: Set<string>): { message: string; position: number; token: string } | null {
  if (Array.isArray(node)) {
    for (const child of node) {
      const problem = inspectAst(child, refs);
      if (problem) return problem;
    }
    return null;
  }
  if (!node || typeof node !== 'object') return null;
  const n = node as AstNode;
  if ((n.type === 'name' || n.type === 'string') && typeof n.value === 'string' && FORBIDDEN_NAMES.has(n.value)) {
    return { message: `"${n.value}" is not allowed in expressions`, position: n.position ?? 0, token: n.value };
  }
  if (n.type === 'variable' && typeof n.value === 'string' && FORBIDDEN_FUNCTIONS.has(n.value)) {
    return { message: `$${n.value} is not allowed in expressions`, position: n.position ?? 0, token: `$${n.value}` };
  }
  if (n.type === 'path' && Array.isArray(n.steps)) {
    const [first, second] = n.steps as AstNode[];
    if (first?.type === 'name' && first.value === 'steps' && second?.type === 'name' && typeof second.value === 'string') {
      refs.add(second.value);
    }
  }
  for (const key of Object.keys(n)) {
    if (key === 'value' || key === 'position' || key === 'type') continue;
    const problem = inspectAst(n[key], refs);
    if (problem) return problem;
  }
  return null;
}

/** JSONata's compiled expression of `source`, bounded by EXPRESSION_TIMEOUT_MS and EXPRESSION_MAX_DEPTH. Throws JSONata's error. */
function jsonataOf(source: string): jsonata.Expression {
  return jsonata(source, { timeout: EXPRESSION_TIMEOUT_MS, stack: EXPRESSION_MAX_DEPTH });
}

/**
 * The compiled expression of a text that is plainly a plain path (plainPathOfText): the same as
 * JSONata's parse would give, with JSONata's expression compiled on first use (when the walk meets an
 * array, or a caller reads it), not at load.
 */
function plainPathExpression(source: string, names: string[]): CompiledExpression {
  let expression: jsonata.Expression | undefined;
  return {
    source,
    get expression() {
      expression ??= jsonataOf(source);
      return expression;
    },
    stepRefs: names[0] === 'steps' && names.length > 1 ? [names[1]!] : [],
    plainPath: names,
  };
}

/** Compiles one expression source (the text between `{{` and `}}`). Throws ExpressionError with `position`. */
export function compileExpression(source: string): CompiledExpression {
  const names = plainPathOfText(source, FORBIDDEN_NAMES);
  if (names) return plainPathExpression(source, names);
  const trimmed = source.trim();
  if (trimmed === '') throw Object.assign(new ExpressionError('empty expression', source), { position: 0 });
  let expression: jsonata.Expression;
  try {
    expression = jsonataOf(source);
  } catch (err) {
    const e = err as { message?: string; position?: number };
    throw Object.assign(new ExpressionError(e.message ?? String(err), source, { cause: err }), {
      position: Math.max(0, (e.position ?? 1) - 1),
    });
  }
  const refs = new Set<string>();
  const problem = inspectAst(expression.ast(), refs);
  if (problem) {
    // JSONata positions mark the end of a token; point at its start instead (found by text, as quotes vary).
    const start = source.lastIndexOf(problem.token, problem.position - 1);
    throw Object.assign(new ExpressionError(problem.message, source), { position: start >= 0 ? start : Math.max(0, problem.position - 1) });
  }
  const plainPath = plainPathOf(expression.ast());
  if (plainPath) return { source, expression, stepRefs: [...refs], plainPath };
  const simple = simpleEvaluatorOf(expression.ast());
  return { source, expression, stepRefs: [...refs], ...(simple ? { simple } : {}) };
}

/** Compiles any YAML value; problems are collected into `problems` (positioned by `path`), never thrown. */
export function compileValue(value: unknown, path: Array<string | number> = [], problems: ExpressionProblem[] = []): CompiledValue {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return { kind: 'literal', value };
    const segments = splitTemplate(value);
    if (!Array.isArray(segments)) {
      problems.push({ path, offset: segments.offset, message: segments.error });
      return { kind: 'literal', value };
    }
    const parts: Array<string | CompiledExpression> = [];
    for (const segment of segments) {
      if (!segment.isExpr) {
        parts.push(segment.text);
        continue;
      }
      try {
        parts.push(compileExpression(segment.text));
      } catch (err) {
        const e = err as ExpressionError & { position?: number };
        problems.push({ path, offset: segment.offset + (e.position ?? 0), message: e.message });
        return { kind: 'literal', value };
      }
    }
    // Whitespace around a single `{{ … }}` does not make it a template (the schema accepts it as an expression).
    const exprs = parts.filter((p): p is CompiledExpression => typeof p !== 'string');
    const onlyExpression = exprs.length === 1 && parts.every((p) => typeof p !== 'string' || p.trim() === '');
    if (onlyExpression) return { kind: 'expression', expr: exprs[0]! };
    return withPlain({ kind: 'template', parts }, exprs.every(isPlainExpression));
  }
  if (Array.isArray(value)) {
    const items = value.map((item, i) => compileValue(item, [...path, i], problems));
    return withPlain({ kind: 'array', items }, items.every(isPlain));
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [k, compileValue(v, [...path, k], problems)] as [string, CompiledValue]);
    return withPlain(
      { kind: 'object', entries },
      entries.every(([, v]) => isPlain(v)),
    );
  }
  return { kind: 'literal', value };
}

function withPlain<T extends CompiledValue>(value: T, plain: boolean): T {
  return plain ? { ...value, plain: true } : value;
}

/** Whether an expression may be evaluated without JSONata: a plain path or a simple expression. */
function isPlainExpression(expr: CompiledExpression): boolean {
  return expr.plainPath !== undefined || expr.simple !== undefined;
}

/** Whether every expression in a compiled value is a plain path or a simple expression (a literal has none). */
function isPlain(value: CompiledValue): boolean {
  if (value.kind === 'literal') return true;
  if (value.kind === 'expression') return isPlainExpression(value.expr);
  return value.plain === true;
}

/** Every `steps.<id>` reference inside a compiled value. */
export function stepRefsOf(value: CompiledValue): string[] {
  switch (value.kind) {
    case 'literal':
      return [];
    case 'expression':
      return value.expr.stepRefs;
    case 'template':
      return value.parts.flatMap((p) => (typeof p === 'string' ? [] : p.stepRefs));
    case 'object':
      return value.entries.flatMap(([, v]) => stepRefsOf(v));
    case 'array':
      return value.items.flatMap(stepRefsOf);
  }
}

/** Wraps what an expression threw as an ExpressionError naming it. */
function expressionFailed(expr: CompiledExpression, err: unknown): ExpressionError {
  const e = err as { message?: string; code?: string };
  return new ExpressionError(`expression {{${expr.source}}} failed: ${e.message ?? e.code ?? String(err)}`, expr.source, { cause: err });
}

/**
 * A plain path's or simple expression's value as plain JSON; NEEDS_JSONATA when the expression is
 * neither, or its walk met an array (engine/plain-path.ts), or it met a case it leaves to JSONata
 * (engine/simple-expression.ts).
 */
function plainValue(expr: CompiledExpression, scope: object): JsonValue | undefined | typeof NEEDS_JSONATA {
  if (!expr.plainPath && !expr.simple) return NEEDS_JSONATA;
  let value: unknown;
  try {
    value = expr.plainPath ? readPlainPath(expr.plainPath, scope) : expr.simple!(scope);
  } catch (err) {
    throw expressionFailed(expr, err);
  }
  // Texts, booleans and null are plain JSON already: only objects, arrays and numbers are converted.
  if (value === NEEDS_JSONATA || typeof value === 'string' || typeof value === 'boolean' || value === null)
    return value as JsonValue | typeof NEEDS_JSONATA;
  return toPlainJson(value);
}

async function evaluateExpression(expr: CompiledExpression, scope: object): Promise<JsonValue | undefined> {
  const plain = plainValue(expr, scope);
  if (plain !== NEEDS_JSONATA) return plain;
  try {
    return toPlainJson(await expr.expression.evaluate(scope));
  } catch (err) {
    throw expressionFailed(expr, err);
  }
}

function asText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * evaluateValue without JSONata and without awaiting, for a value whose expressions are all plain
 * paths or simple expressions: the same result, or NEEDS_JSONATA as soon as one of them needs JSONata (evaluateValue
 * then evaluates the value member by member; reading the scope has no effects, so that costs time only).
 */
function evaluatePlain(value: CompiledValue, scope: object): JsonValue | undefined | typeof NEEDS_JSONATA {
  switch (value.kind) {
    case 'literal':
      return value.value as JsonValue;
    case 'expression':
      return plainValue(value.expr, scope);
    case 'template': {
      let out = '';
      for (const part of value.parts) {
        if (typeof part === 'string') out += part;
        else {
          const result = plainValue(part, scope);
          if (result === NEEDS_JSONATA) return result;
          out += asText(result);
        }
      }
      return out;
    }
    case 'object': {
      const out: Record<string, JsonValue> = {};
      for (const entry of value.entries) {
        const result = evaluatePlain(entry[1], scope);
        if (result === NEEDS_JSONATA) return result;
        if (result !== undefined) setMember(out, entry[0], result);
      }
      return out;
    }
    case 'array': {
      const out: JsonValue[] = [];
      for (const item of value.items) {
        const result = evaluatePlain(item, scope);
        if (result === NEEDS_JSONATA) return result;
        out.push(result ?? null);
      }
      return out;
    }
  }
}

/**
 * Evaluates a compiled value against the scope (the execution context). Undefined members are dropped,
 * undefined array items become null. Throws ExpressionError when an expression fails or exceeds
 * EXPRESSION_TIMEOUT_MS / EXPRESSION_MAX_DEPTH.
 */
export async function evaluateValue(value: CompiledValue, scope: object): Promise<JsonValue | undefined> {
  if (isPlain(value)) {
    const result = evaluatePlain(value, scope);
    if (result !== NEEDS_JSONATA) return result;
  }
  switch (value.kind) {
    case 'literal':
      return value.value as JsonValue;
    case 'expression':
      return evaluateExpression(value.expr, scope);
    case 'template': {
      let out = '';
      for (const part of value.parts) out += typeof part === 'string' ? part : asText(await evaluateExpression(part, scope));
      return out;
    }
    case 'object': {
      const out: Record<string, JsonValue> = {};
      for (const [k, v] of value.entries) {
        const result = await evaluateValue(v, scope);
        if (result !== undefined) setMember(out, k, result);
      }
      return out;
    }
    case 'array': {
      const out: JsonValue[] = [];
      for (const item of value.items) out.push((await evaluateValue(item, scope)) ?? null);
      return out;
    }
  }
}

/** JSONata truthiness for conditions: false, null, 0, '' and empty arrays/objects are false. */
export function isTruthy(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0 && value.some((v) => isTruthy(v));
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}
