// Turns ajv errors on a flow test file into positioned problems. The flow loader's mapping does the
// work; the two union shapes of the format get plainer words first: a mock is exactly one of
// `output` / `error`, and `outbound` is a list of calls or `{count, contains}` (only the errors of
// the shape actually written are kept).
import type { ErrorObject } from 'ajv';
import { schemaProblems } from '../load/schema-problems.js';
import type { YamlSource } from '../load/yaml-source.js';
import type { LoadProblem } from '../types.js';

const MOCK_PATH = /^\/cases\/(\d+)\/mocks\/([^/]+)$/;
const OUTBOUND_PATH = /^\/cases\/(\d+)\/expect\/outbound(\/|$)/;
const OUTBOUND_LIST_BRANCH = '/outbound/anyOf/0';
const OUTBOUND_COUNT_BRANCH = '/outbound/anyOf/1';

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Maps ajv errors on a test file to positioned problems with the same codes as flow files
 * (`unknown-field`, `missing-field`, `wrong-type`, `invalid-value`), one per error kind and place.
 */
export function testFileProblems(errors: ErrorObject[], data: unknown, source: YamlSource): LoadProblem[] {
  const cases = (data as { cases?: unknown[] }).cases ?? [];
  const problems: LoadProblem[] = [];
  const rest: ErrorObject[] = [];
  const reportedOutbound = new Set<number>();
  for (const e of errors) {
    const mock = MOCK_PATH.exec(e.instancePath);
    if (mock && (e.keyword === 'minProperties' || e.keyword === 'maxProperties')) {
      const id = unescapePointer(mock[2]!);
      problems.push(
        source.problem(
          ['cases', Number(mock[1]), 'mocks', id],
          'invalid-value',
          `cases.${mock[1]}.mocks.${id} must have exactly one of "output" or "error"`,
        ),
      );
      continue;
    }
    const outbound = OUTBOUND_PATH.exec(e.instancePath);
    if (outbound && e.schemaPath.includes('/outbound/anyOf')) {
      const index = Number(outbound[1]);
      const value = (cases[index] as { expect?: { outbound?: unknown } } | undefined)?.expect?.outbound;
      const isList = Array.isArray(value);
      const isObject = typeof value === 'object' && value !== null && !isList;
      if (isList && e.schemaPath.includes(OUTBOUND_LIST_BRANCH)) rest.push(e);
      else if (isObject && e.schemaPath.includes(OUTBOUND_COUNT_BRANCH)) rest.push(e);
      else if (!isList && !isObject && !reportedOutbound.has(index)) {
        reportedOutbound.add(index);
        problems.push(
          source.problem(
            ['cases', index, 'expect', 'outbound'],
            'wrong-type',
            `cases.${index}.expect.outbound must be a list of calls or an object {count, contains}`,
          ),
        );
      }
      continue;
    }
    rest.push(e);
  }
  return [...problems, ...schemaProblems(rest, data, source, [])].sort((a, b) => a.line - b.line || a.col - b.col);
}
