// A webhook body checked against its provider's event schema, as the paths and messages a 422
// answer and GatewayEventError list (e.g. `message.chatid is required`).
import { schemaValidator } from '../../engine/run/param-validator.js';

/** One problem of an event body: where (dotted path, `(body)` for the whole) and what. */
export interface EventProblem {
  path: string;
  message: string;
}

/**
 * Every problem of `body` against `schema` (JSON Schema draft-07, compiled once per schema), in the
 * validator's order: a missing property as `<path>.<name>` `is required`, the `if` keyword's own
 * entries left out; `distinct`: each (path, message) once. Undefined when the body is valid.
 */
export function eventProblems(schema: Record<string, unknown>, body: unknown, distinct = false): EventProblem[] | undefined {
  const validator = schemaValidator(schema);
  if (validator(body)) return undefined;
  const problems: EventProblem[] = [];
  const seen = new Set<string>();
  for (const e of validator.errors ?? []) {
    if (e.keyword === 'if') continue;
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : '';
    const problem = {
      path: [base, missing].filter(Boolean).join('.') || '(body)',
      message: e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid'),
    };
    const id = `${problem.path} ${problem.message}`;
    if (distinct && seen.has(id)) continue;
    seen.add(id);
    problems.push(problem);
  }
  return problems;
}
