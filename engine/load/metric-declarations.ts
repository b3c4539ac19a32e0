// The flow-level `metrics:` block: each declared metric with its value expression compiled, and the
// checks the schema does not make (bucket order, buckets on a counter, a counter's `_total` name, a
// name declared twice in the same flow).
import type { LoadedFlowMetric, LoadProblem } from '../types.js';
import type { Compile } from './build-steps.js';
import type { YamlSource } from './yaml-source.js';

type Raw = Record<string, unknown>;

/** The declared metrics as loaded; `value` compiled at `metrics.<i>.value`. Not-a-list gives none. */
export function buildMetrics(value: unknown, compile: Compile): LoadedFlowMetric[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((item, index) => ({ item: item as Raw, index }))
    .filter(({ item }) => item && typeof item === 'object')
    .map(({ item, index }) => ({
      name: String(item.name),
      type: item.type as LoadedFlowMetric['type'],
      help: String(item.help),
      value: String(item.value),
      buckets: (item.type !== 'counter' && Array.isArray(item.buckets) ? item.buckets : []) as number[],
      compiledValue: compile(item.value, ['metrics', index, 'value']),
    }));
}

/** Prometheus convention: a counter's name ends in this. */
export const COUNTER_NAME_SUFFIX = '_total';

/**
 * `invalid-value` for buckets not strictly ascending, buckets on a counter, a counter whose name does
 * not end in `_total`, and a metric name the flow declares twice.
 */
export function metricProblems(value: unknown, source: YamlSource): LoadProblem[] {
  if (!Array.isArray(value)) return [];
  const problems: LoadProblem[] = [];
  const names = new Set<string>();
  value.forEach((item: Raw, index) => {
    if (!item || typeof item !== 'object') return;
    if (typeof item.name === 'string') {
      if (names.has(item.name))
        problems.push(source.problem(['metrics', index, 'name'], 'invalid-value', `metric "${item.name}" is declared twice`));
      names.add(item.name);
      if (item.type === 'counter' && !item.name.endsWith(COUNTER_NAME_SUFFIX))
        problems.push(
          source.problem(
            ['metrics', index, 'name'],
            'invalid-value',
            `counter "${item.name}" must end in ${COUNTER_NAME_SUFFIX} (Prometheus convention), e.g. "${item.name}${COUNTER_NAME_SUFFIX}"`,
          ),
        );
    }
    const buckets = item.buckets;
    if (item.type === 'counter' && buckets !== undefined) {
      problems.push(source.problem(['metrics', index, 'buckets'], 'invalid-value', 'a counter has no buckets (only a histogram has)'));
    } else if (Array.isArray(buckets) && buckets.some((b, i) => i > 0 && !(Number(b) > Number(buckets[i - 1])))) {
      problems.push(source.problem(['metrics', index, 'buckets'], 'invalid-value', 'metrics buckets must be strictly ascending'));
    }
  });
  return problems;
}
