// Turns ajv errors on a flow file into positioned load problems with stable codes.
import type { ErrorObject } from 'ajv';
import type { LoadProblem } from '../types.js';
import type { Path, YamlSource } from './yaml-source.js';

function toPath(instancePath: string, data: unknown): Path {
  const path: Path = [];
  let node: unknown = data;
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const index = Number(segment);
      path.push(index);
      node = node[index];
    } else {
      path.push(segment);
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

function isStepTypePath(path: Path): boolean {
  // steps/N/type, or .../<slot>/N/type or .../<slot>/<name>/N/type under steps (not metrics/N/type)
  return path[0] === 'steps' && path.length >= 3 && path[path.length - 1] === 'type' && typeof path[path.length - 2] === 'number';
}

function describe(path: Path): string {
  return path.length === 0 ? 'the flow' : path.join('.');
}

/** Maps ajv errors (allErrors, verbose) to problems; noise from if/then and expression alternatives is dropped. */
export function schemaProblems(errors: ErrorObject[], data: unknown, source: YamlSource, stepTypes: string[]): LoadProblem[] {
  const relevant = errors.filter(
    (e) => e.keyword !== 'if' && !e.schemaPath.includes('/$defs/expression') && !e.schemaPath.startsWith('#/$defs/expression'),
  );
  const pathsWithSpecificErrors = new Set(relevant.filter((e) => e.keyword !== 'anyOf').map((e) => e.instancePath));
  const seen = new Set<string>();
  const problems: LoadProblem[] = [];
  for (const e of relevant) {
    if (e.keyword === 'anyOf' && pathsWithSpecificErrors.has(e.instancePath)) continue;
    const problem = problemOf(e, { path: toPath(e.instancePath, data), source, stepTypes, relevant });
    const key = `${problem.line}:${problem.col}:${problem.code}:${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

interface ErrorContext {
  path: Path;
  source: YamlSource;
  stepTypes: string[];
  /** Every error kept, for keywords that fail once per alternative (`const`). */
  relevant: ErrorObject[];
}

/** The one problem an ajv error stands for, by keyword. */
function problemOf(e: ErrorObject, ctx: ErrorContext): LoadProblem {
  const { path, source } = ctx;
  switch (e.keyword) {
    case 'additionalProperties':
      return unknownFieldProblem(e, path, source);
    case 'required': {
      const field = String((e.params as { missingProperty: string }).missingProperty);
      return source.problem(path, 'missing-field', `missing required field "${field}" in ${describe(path)}`, { atKey: true });
    }
    case 'type':
      return source.problem(path, 'wrong-type', `${describe(path)} must be ${(e.params as { type: string }).type}`);
    case 'enum':
      return enumProblem(e, ctx);
    case 'const':
      return constProblem(e, ctx);
    case 'anyOf':
      return source.problem(path, 'wrong-type', `${describe(path)} has the wrong type`);
    case 'maxProperties':
    case 'minProperties':
      return fieldCountProblem(e, ctx) ?? source.problem(path, 'invalid-value', `${describe(path)} ${e.message ?? 'is invalid'}`);
    default:
      return source.problem(path, 'invalid-value', `${describe(path)} ${e.message ?? 'is invalid'}`);
  }
}

/**
 * Too many or too few fields of an object with a closed set of them that exclude one another (wait:
 * exactly one of ms and until), naming them; undefined for an object open to any field.
 */
function fieldCountProblem(e: ErrorObject, { path, source }: ErrorContext): LoadProblem | undefined {
  const parent = (e.parentSchema ?? {}) as { properties?: object; additionalProperties?: unknown };
  const fields = Object.keys(parent.properties ?? {});
  if (fields.length === 0 || parent.additionalProperties !== false) return undefined;
  const limit = (e.params as { limit: number }).limit;
  const which = e.keyword === 'maxProperties' ? `at most ${limit}` : `at least ${limit}`;
  return source.problem(path, 'invalid-value', `${describe(path)} takes ${which} of: ${fields.join(', ')}`);
}

function unknownFieldProblem(e: ErrorObject, path: Path, source: YamlSource): LoadProblem {
  const field = String((e.params as { additionalProperty: string }).additionalProperty);
  const allowed = Object.keys(((e.parentSchema ?? {}) as { properties?: object }).properties ?? {});
  const hint = closest(field, allowed);
  const suffix = hint ? ` (did you mean "${hint}"?)` : allowed.length ? ` (allowed: ${allowed.join(', ')})` : '';
  return source.problem([...path, field], 'unknown-field', `unknown field "${field}" in ${describe(path)}${suffix}`, { atKey: true });
}

/** A step `type` outside the registry is an unknown node type (with a hint); any other enum an invalid value. */
function enumProblem(e: ErrorObject, { path, source, stepTypes }: ErrorContext): LoadProblem {
  const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map(String);
  const value = String(e.data);
  if (!isStepTypePath(path)) return source.problem(path, 'invalid-value', `${describe(path)} must be one of: ${allowed.join(', ')}`);
  const hint = closest(value, stepTypes);
  return source.problem(
    path,
    'unknown-node-type',
    `unknown node type "${value}"${hint ? ` (did you mean "${hint}"?)` : ''}; see \`leadflow nodes\``,
  );
}

/** A union of literals fails once per literal: list them all, as for an enum. */
function constProblem(e: ErrorObject, { path, source, relevant }: ErrorContext): LoadProblem {
  const allowed = relevant
    .filter((o) => o.keyword === 'const' && o.instancePath === e.instancePath)
    .map((o) => String((o.params as { allowedValue: unknown }).allowedValue));
  return source.problem(
    path,
    'invalid-value',
    `${describe(path)} must be ${allowed.length > 1 ? `one of: ${allowed.join(', ')}` : allowed.join('')}`,
  );
}
