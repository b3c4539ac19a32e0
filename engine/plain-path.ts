// Plain paths: expressions that are nothing but a chain of names (`steps.msg.phone`,
// `trigger.auth.instance_id`, `now`), read by walking the scope instead of running JSONata.
//
// Contract: for any scope, `readPlainPath(names, scope)` is exactly what JSONata 2.x gives for that
// path (jsonata.js `evaluatePath` / `evaluateStep` / `lookup`), or NEEDS_JSONATA where the walk would
// have to reproduce JSONata's sequence handling (then the caller evaluates with JSONata):
// - a name reads an own member only (`hasOwnProperty`: never an inherited one) of an object that is
//   not an array and not a function (JSONata's `isFunction`: a JS function or a JSONata function
//   object); anything else on the way (null, a string, a number, a missing member) ends the path:
//   undefined;
// - an array before the last name: NEEDS_JSONATA (JSONata maps the rest of the path over its items
//   and flattens the results);
// - the last name's value is the result as it is (the same reference: an object, an array, null);
//   a JSONata sequence there (an array flagged `sequence: true`, never JSON) is NEEDS_JSONATA;
// - a scope that is itself an array: NEEDS_JSONATA (JSONata treats it as one input item).
// Reading members is assumed to be free of side effects (data, not getters or proxies): the walk
// reads each member once, where JSONata may read some twice.

/** Returned by readPlainPath when only JSONata gives the exact result. */
export const NEEDS_JSONATA: unique symbol = Symbol('needs JSONata');

/**
 * The names of a JSONata AST that is a plain path, else undefined. Plain: a `path` node with only
 * `type` and `steps`, each step a `name` node with only `type`, `value` and `position` (so no
 * predicate, index, filter stage, `[]`, focus, grouping, wildcard, variable, function or operator).
 * Backquoted and quoted names parse to the same `name` nodes and are plain too.
 */
export function plainPathOf(ast: unknown): string[] | undefined {
  if (!isNode(ast) || ast.type !== 'path' || !hasOnlyKeys(ast, PATH_KEYS) || !Array.isArray(ast.steps)) return undefined;
  if (ast.steps.length === 0) return undefined;
  const names: string[] = [];
  for (const step of ast.steps) {
    if (!isNode(step) || step.type !== 'name' || typeof step.value !== 'string' || !hasOnlyKeys(step, NAME_KEYS)) return undefined;
    names.push(step.value);
  }
  return names;
}

/**
 * The names of an expression text that is, without doubt, a plain path JSONata parses as such: names
 * of ASCII letters, digits and `_` (not starting with a digit) joined by `.`, with only JSONata's
 * whitespace (space, tab, CR, LF, VT) around the whole; none of them a literal (`true`, `false`,
 * `null`), an operator word (`and`, `or`, `in`) or a name in `refused` (the loader's forbidden
 * names). Undefined for any other text, plain or not (quoted names, comments, spaces inside): that
 * text is parsed by JSONata as before. Lets the loader skip JSONata's parser for most expressions
 * (`steps.msg.phone`); test/plain-path.test.ts checks that JSONata gives the same names for every
 * text this accepts.
 */
export function plainPathOfText(source: string, refused: ReadonlySet<string> = NO_NAMES): string[] | undefined {
  const match = PLAIN_PATH_TEXT.exec(source);
  if (!match) return undefined;
  const names = match[1]!.split('.');
  for (const name of names) if (NOT_PLAIN_NAMES.has(name) || refused.has(name)) return undefined;
  return names;
}

const PLAIN_PATH_TEXT = /^[ \t\n\r\v]*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)[ \t\n\r\v]*$/;
const NOT_PLAIN_NAMES: ReadonlySet<string> = new Set(['true', 'false', 'null', 'and', 'or', 'in']);
const NO_NAMES: ReadonlySet<string> = new Set();

const PATH_KEYS = new Set(['type', 'steps']);
const NAME_KEYS = new Set(['type', 'value', 'position']);

function isNode(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnlyKeys(node: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const key of Object.keys(node)) if (!allowed.has(key)) return false;
  return true;
}

/** JSONata's `isFunction`: a JS function, or a JSONata builtin or lambda object. */
function isJsonataFunction(value: object): boolean {
  const marked = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return marked._jsonata_function === true || marked._jsonata_lambda === true || typeof value === 'function';
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The value of the plain path `names` in `scope`, as JSONata evaluates it; see the file's contract. */
export function readPlainPath(names: readonly string[], scope: unknown): unknown {
  if (Array.isArray(scope)) return NEEDS_JSONATA;
  let current: unknown = scope;
  const last = names.length - 1;
  for (let i = 0; i <= last; i++) {
    // JSONata's lookup on one input item: arrays were sent to JSONata before reaching here.
    if (current === null || typeof current !== 'object') return undefined;
    const key = names[i]!;
    if (!hasOwn.call(current, key) || isJsonataFunction(current)) return undefined;
    const value: unknown = (current as Record<string, unknown>)[key];
    if (value === undefined) return undefined;
    if (Array.isArray(value)) {
      // Last name: JSONata returns an array value itself, unless it is one of its sequences.
      if (i === last && (value as { sequence?: unknown }).sequence !== true) return value;
      return NEEDS_JSONATA;
    }
    current = value;
  }
  return current;
}
