// Simple expressions: the small JSONata a flow writes in conditions and keys (`steps.row = null`,
// `$not(steps.seen.first)`, `vars.key & ':' & steps.msg.message_id`, `a ? b : ''`), evaluated by a
// closure tree built once from the JSONata AST instead of by JSONata's asynchronous evaluator (which
// costs tens of microseconds per expression).
//
// Contract: for any scope, the evaluator returns exactly what JSONata 2.x's `evaluate` returns for
// the expression, or NEEDS_JSONATA wherever it cannot be sure (the caller then evaluates the whole
// expression with JSONata; reading the scope has no effects, so that costs time only). Implemented,
// with JSONata's semantics (jsonata.js, functions named in brackets):
//   - plain paths (engine/plain-path.ts, whose own NEEDS_JSONATA cases carry over), string, number,
//     `true`, `false`, `null` literals, and an array of such literals (`['a', 'b']`);
//   - `and`, `or` (short-circuit, `boolize`), `=`, `!=` (undefined on a side: false; `isDeepEqual`
//     for values that are not both objects), `&` (`fn.string` of strings, finite numbers, booleans,
//     null), `in` (strict membership), `<` `<=` `>` `>=` (strings with strings, numbers with
//     numbers; undefined on a side: undefined), `+ - * / %` on finite numbers (a non-finite result
//     is left to JSONata), `c ? a : b` (`fn.boolean`), a parenthesised block `(a; b)`;
//   - the functions `$not`, `$exists` (any argument), `$trim`, `$lowercase`, `$uppercase` (a string
//     or undefined), each with exactly one argument.
// Everything else is NEEDS_JSONATA when the evaluation reaches it — another function (`$millis()`),
// a variable, a lambda, a path with predicates, an object or array operand where JSONata's rules are
// longer (truthiness, deep equality, text of an object), a value JSONata would reject with an error —
// so `x != null and $toMillis(x) > $millis()` is evaluated here whenever `x` is null. An expression
// that binds a variable anywhere (`:=`), or nests deeper than MAX_DEPTH, gets no evaluator.
import { NEEDS_JSONATA, plainPathOf, readPlainPath } from './plain-path.js';

/** A compiled simple expression: its value in `scope`, or NEEDS_JSONATA. Never awaits. */
export type SimpleEvaluator = (scope: object) => unknown;

/** Deepest AST a simple evaluator is built for (far below JSONata's own depth limit, so it never applies). */
export const MAX_DEPTH = 64;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

function hasOnlyKeys(node: Node, allowed: readonly string[]): boolean {
  for (const key of Object.keys(node)) if (!allowed.includes(key)) return false;
  return true;
}

const LITERAL_KEYS = ['type', 'value', 'position'] as const;
const BINARY_KEYS = ['type', 'value', 'position', 'lhs', 'rhs'] as const;
const CONDITION_KEYS = ['type', 'position', 'condition', 'then', 'else'] as const;
const BLOCK_KEYS = ['type', 'position', 'expressions'] as const;
const ARRAY_KEYS = ['type', 'value', 'position', 'expressions', 'consarray'] as const;
/** `name` is always there on a call, and undefined (jsonata.js processAST copies it). */
const FUNCTION_KEYS = ['type', 'name', 'value', 'position', 'arguments', 'procedure'] as const;
const VARIABLE_KEYS = ['type', 'value', 'position'] as const;

const needsJsonata: SimpleEvaluator = () => NEEDS_JSONATA;

/**
 * The simple evaluator of a JSONata AST (`jsonata(source).ast()`), or undefined when nothing of it
 * can be evaluated here (its root is not implemented), it binds a variable, or it is too deep.
 */
export function simpleEvaluatorOf(ast: unknown): SimpleEvaluator | undefined {
  if (!withinDepth(ast, 0) || bindsVariable(ast)) return undefined;
  const evaluator = compileNode(ast);
  return evaluator === needsJsonata ? undefined : evaluator;
}

function withinDepth(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((item) => withinDepth(item, depth + 1));
  if (!isNode(value)) return true;
  return Object.values(value).every((child) => withinDepth(child, depth + 1));
}

function bindsVariable(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(bindsVariable);
  if (!isNode(value)) return false;
  if (value.type === 'bind') return true;
  return Object.values(value).some(bindsVariable);
}

function compileNode(node: unknown): SimpleEvaluator {
  if (!isNode(node)) return needsJsonata;
  switch (node.type) {
    case 'path': {
      const names = plainPathOf(node);
      return names ? (scope) => readPlainPath(names, scope) : needsJsonata;
    }
    case 'string':
    case 'number':
    case 'value':
      return literal(node) ?? needsJsonata;
    case 'binary':
      return hasOnlyKeys(node, BINARY_KEYS) ? binary(String(node.value), compileNode(node.lhs), compileNode(node.rhs)) : needsJsonata;
    case 'condition':
      return hasOnlyKeys(node, CONDITION_KEYS) && 'then' in node ? condition(node) : needsJsonata;
    case 'block':
      return hasOnlyKeys(node, BLOCK_KEYS) && Array.isArray(node.expressions) ? block(node.expressions.map(compileNode)) : needsJsonata;
    case 'unary':
      return node.value === '[' && hasOnlyKeys(node, ARRAY_KEYS) ? arrayOfLiterals(node) : needsJsonata;
    case 'function':
      return hasOnlyKeys(node, FUNCTION_KEYS) ? functionCall(node) : needsJsonata;
    default:
      return needsJsonata;
  }
}

/** A string, finite number, true, false or null literal, as a constant evaluator. */
function literal(node: Node): SimpleEvaluator | undefined {
  if (!hasOnlyKeys(node, LITERAL_KEYS)) return undefined;
  const value = node.value;
  const ok =
    (node.type === 'string' && typeof value === 'string') ||
    (node.type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
    (node.type === 'value' && (value === true || value === false || value === null));
  return ok ? () => value : undefined;
}

/** `[l1, l2, …]` of literals only: a fresh array each time (JSONata builds one per evaluation). */
function arrayOfLiterals(node: Node): SimpleEvaluator {
  if (!Array.isArray(node.expressions)) return needsJsonata;
  const values: unknown[] = [];
  for (const item of node.expressions) {
    const constant = isNode(item) ? literal(item) : undefined;
    if (!constant) return needsJsonata;
    values.push(constant({}));
  }
  return () => values.slice();
}

/** `(a; b; …)`: each in turn, the last one's value (every one is evaluated, so one left to JSONata is the whole block's). */
function block(expressions: SimpleEvaluator[]): SimpleEvaluator {
  if (expressions.includes(needsJsonata)) return needsJsonata;
  return (scope) => {
    let result: unknown;
    for (const expression of expressions) {
      result = expression(scope);
      if (result === NEEDS_JSONATA) return result;
    }
    return result;
  };
}

function condition(node: Node): SimpleEvaluator {
  const test = compileNode(node.condition);
  const then = compileNode(node.then);
  const otherwise = node.else === undefined ? undefined : compileNode(node.else);
  return (scope) => {
    const value = test(scope);
    if (value === NEEDS_JSONATA) return value;
    const truth = effectiveBoolean(value);
    if (truth === NEEDS_JSONATA) return truth;
    if (truth) return then(scope);
    return otherwise ? otherwise(scope) : undefined;
  };
}

/** JSONata's `fn.boolean` for scalars (undefined stays undefined); NEEDS_JSONATA for objects, arrays and what it rejects. */
function effectiveBoolean(value: unknown): boolean | undefined | typeof NEEDS_JSONATA {
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'boolean':
      return value;
    case 'string':
      return value.length > 0;
    case 'number':
      // NaN is not numeric to JSONata (false); an infinite number is an error (D1001).
      if (Number.isNaN(value)) return false;
      return Number.isFinite(value) ? value !== 0 : NEEDS_JSONATA;
    case 'object':
      return value === null ? false : NEEDS_JSONATA;
    default:
      return NEEDS_JSONATA;
  }
}

/** JSONata's `boolize`: fn.boolean with undefined as false. */
function boolize(value: unknown): boolean | typeof NEEDS_JSONATA {
  const truth = effectiveBoolean(value);
  return truth === undefined ? false : truth;
}

/** JSONata's `fn.string` for scalars; NEEDS_JSONATA for objects, arrays and non-finite numbers. */
function text(value: unknown): string | typeof NEEDS_JSONATA {
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) return NEEDS_JSONATA;
      return JSON.stringify(Number.isInteger(value) ? value : Number(value.toPrecision(15)));
    case 'object':
      return value === null ? 'null' : NEEDS_JSONATA;
    default:
      return NEEDS_JSONATA;
  }
}

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null;
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function binary(op: string, lhs: SimpleEvaluator, rhs: SimpleEvaluator): SimpleEvaluator {
  if (lhs === needsJsonata) return needsJsonata;
  switch (op) {
    case 'and':
    case 'or':
      return (scope) => {
        const left = lhs(scope);
        if (left === NEEDS_JSONATA) return left;
        const leftTruth = boolize(left);
        if (leftTruth === NEEDS_JSONATA) return leftTruth;
        if (leftTruth === (op === 'or')) return leftTruth;
        const right = rhs(scope);
        return right === NEEDS_JSONATA ? right : boolize(right);
      };
    case '=':
    case '!=':
      return both(lhs, rhs, (left, right) => {
        if (left === undefined || right === undefined) return false;
        // isDeepEqual: `===`, except for two objects (arrays included), compared member by member.
        if (isObject(left) && isObject(right)) return NEEDS_JSONATA;
        return (left === right) === (op === '=');
      });
    case '&':
      return both(lhs, rhs, (left, right) => {
        const l = left === undefined ? '' : text(left);
        const r = right === undefined ? '' : text(right);
        return l === NEEDS_JSONATA || r === NEEDS_JSONATA ? NEEDS_JSONATA : l + r;
      });
    case 'in':
      return both(lhs, rhs, (left, right) => {
        if (left === undefined || right === undefined) return false;
        return Array.isArray(right) ? right.some((item) => item === left) : right === left;
      });
    case '<':
    case '<=':
    case '>':
    case '>=':
      return both(lhs, rhs, (left, right) => compare(op, left, right));
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
      return both(lhs, rhs, (left, right) => arithmetic(op, left, right));
    default:
      return needsJsonata;
  }
}

/** Both sides evaluated (left first, as JSONata does), then combined; NEEDS_JSONATA from either side carries. */
function both(lhs: SimpleEvaluator, rhs: SimpleEvaluator, combine: (left: unknown, right: unknown) => unknown): SimpleEvaluator {
  if (rhs === needsJsonata) return needsJsonata;
  return (scope) => {
    const left = lhs(scope);
    if (left === NEEDS_JSONATA) return left;
    const right = rhs(scope);
    if (right === NEEDS_JSONATA) return right;
    return combine(left, right);
  };
}

/** evaluateComparisonExpression: what it throws for (other types, mixed types) is left to JSONata. */
function compare(op: string, left: unknown, right: unknown): unknown {
  const comparable = (v: unknown) => v === undefined || typeof v === 'string' || typeof v === 'number';
  if (!comparable(left) || !comparable(right)) return NEEDS_JSONATA;
  if (left === undefined || right === undefined) return undefined;
  if (typeof left !== typeof right) return NEEDS_JSONATA;
  const l = left as string | number;
  const r = right as string | number;
  if (op === '<') return l < r;
  if (op === '<=') return l <= r;
  if (op === '>') return l > r;
  return l >= r;
}

/** evaluateNumericExpression on finite numbers (undefined on a side: undefined); anything else is left to JSONata. */
function arithmetic(op: string, left: unknown, right: unknown): unknown {
  if ((left !== undefined && !isFiniteNumber(left)) || (right !== undefined && !isFiniteNumber(right))) return NEEDS_JSONATA;
  if (left === undefined || right === undefined) return undefined;
  const l = left as number;
  const r = right as number;
  const result = op === '+' ? l + r : op === '-' ? l - r : op === '*' ? l * r : op === '/' ? l / r : l % r;
  return Number.isFinite(result) ? result : NEEDS_JSONATA;
}

/** JSONata's `trim`: runs of spaces, tabs and line breaks become one space, then one space at the start and one at the end go. */
function jsonataTrim(value: string): string {
  let result = value.replace(/[ \t\n\r]+/gm, ' ');
  if (result.charAt(0) === ' ') result = result.substring(1);
  if (result.charAt(result.length - 1) === ' ') result = result.substring(0, result.length - 1);
  return result;
}

/** The builtins implemented here, each of one argument (already evaluated, never NEEDS_JSONATA). */
const FUNCTIONS: Record<string, (arg: unknown) => unknown> = {
  not: (arg) => {
    if (arg === undefined) return undefined;
    const truth = effectiveBoolean(arg);
    return truth === NEEDS_JSONATA ? truth : !truth;
  },
  exists: (arg) => arg !== undefined,
  trim: (arg) => (arg === undefined ? undefined : typeof arg === 'string' ? jsonataTrim(arg) : NEEDS_JSONATA),
  lowercase: (arg) => (arg === undefined ? undefined : typeof arg === 'string' ? arg.toLowerCase() : NEEDS_JSONATA),
  uppercase: (arg) => (arg === undefined ? undefined : typeof arg === 'string' ? arg.toUpperCase() : NEEDS_JSONATA),
};

function functionCall(node: Node): SimpleEvaluator {
  const procedure = node.procedure;
  if (node.name !== undefined || !isNode(procedure) || procedure.type !== 'variable' || !hasOnlyKeys(procedure, VARIABLE_KEYS))
    return needsJsonata;
  const name = procedure.value;
  const implementation = typeof name === 'string' && Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
  if (!implementation || !Array.isArray(node.arguments) || node.arguments.length !== 1) return needsJsonata;
  const argument = compileNode(node.arguments[0]);
  if (argument === needsJsonata) return needsJsonata;
  return (scope) => {
    const value = argument(scope);
    return value === NEEDS_JSONATA ? value : implementation(value);
  };
}
