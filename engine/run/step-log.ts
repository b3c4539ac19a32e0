// Where a step ends (success, error after its last attempt, stopped): its `step` debug line and the
// observer's stepEnded. Retries in between are not reported.
import type { Logger } from '../logger.js';
import { notifyObserver, type EngineObserver, type StepEndedEvent } from '../observer.js';
import type { ExecutionRecord, StepRecord } from '../types.js';

/** Tells the observer a step ended (a function of its own: no closure per step). */
function stepEnded(observer: EngineObserver, event: StepEndedEvent): unknown {
  return observer.stepEnded?.(event);
}

/**
 * Logs the end of step `record` of `execution` (flow `flow`) at debug when `debugSteps` (the logger
 * writes debug lines: asked once per drive, so the line is built only then), and tells `observer`
 * when the step ended (success, error or stopped); its errors are logged and ignored.
 */
export function logStepEnd(
  logger: Logger,
  observer: EngineObserver | undefined,
  debugSteps: boolean,
  execution: ExecutionRecord,
  flow: string,
  record: StepRecord,
): void {
  if (debugSteps) {
    logger.debug(
      {
        execution: execution.id,
        flow,
        step: record.id,
        type: record.type,
        status: record.status,
        attempt: record.attempt,
        ms: record.ms,
        ...(record.error ? { error: record.error.message } : {}),
      },
      'step',
    );
  }
  const status = record.status;
  if (observer?.stepEnded && (status === 'success' || status === 'error' || status === 'stopped')) {
    const event: StepEndedEvent = {
      flow,
      execution: execution.id,
      step: record.id,
      node_type: record.type,
      status,
      ms: record.ms,
      attempt: record.attempt,
    };
    notifyObserver(observer, logger, stepEnded, event);
  }
}
