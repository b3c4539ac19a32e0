// The values a successful execution gives the metrics its flow declares (`metrics:` in the flow
// file), handed to the engine observer (`flowMetrics`). The engine registers nothing itself: the
// host's metrics adapter does, from the declarations (`flowsLoaded`).
import { evaluateValue } from './expressions.js';
import { type EngineObserver, type FlowMetricObservation, notifyObserver } from './observer.js';
import type { Logger } from './logger.js';
import type { ExecutionRecord, LoadedFlow } from './types.js';

/**
 * The observations of `flow`'s declared metrics for a finished `record`: each `value` evaluated over
 * the record's output, trigger, vars and execution. A value that fails to evaluate, or is not a
 * finite number of zero or more, is left out (logged at debug). Never throws.
 */
export async function flowMetricObservations(
  flow: LoadedFlow,
  record: Readonly<ExecutionRecord>,
  logger: Logger,
): Promise<FlowMetricObservation[]> {
  const scope = {
    output: record.output ?? null,
    trigger: record.trigger,
    vars: record.vars,
    execution: { id: record.id, flow: record.flow, started_at: record.created_at },
  };
  const observations: FlowMetricObservation[] = [];
  for (const metric of flow.metrics ?? []) {
    try {
      const value = await evaluateValue(metric.compiledValue, scope);
      if (typeof value === 'number' && Number.isFinite(value) && value >= 0) observations.push({ name: metric.name, value });
    } catch (err) {
      logger.debug({ flow: flow.name, metric: metric.name, err: (err as Error).message }, 'declared metric not observed');
    }
  }
  return observations;
}

/**
 * When `record` ended normally (`success`, or `stopped` by a stop step: a flow's planned early end)
 * and its flow declares metrics, tells the observer their values
 * (`flowMetrics`); resolves once told. Nothing happens without an observer that listens. Never throws.
 */
export async function reportFlowMetrics(
  observer: EngineObserver | undefined,
  logger: Logger,
  flow: LoadedFlow,
  record: Readonly<ExecutionRecord>,
): Promise<void> {
  if (!observer?.flowMetrics || (record.status !== 'success' && record.status !== 'stopped') || !flow.metrics?.length) return;
  const observations = await flowMetricObservations(flow, record, logger);
  if (observations.length === 0) return;
  notifyObserver(observer, logger, (o) => o.flowMetrics?.({ flow: flow.name, execution: record.id, observations }));
}
