// An execution's steps in the order they ran: status, duration, attempts, a bar whose length is
// the step's share of the longest step, and the step's input (resolved parameters), output, error
// and saved wait state as JSON text.
import type { StepView } from '../api/execution-types.js';
import { formatDuration, formatFull } from '../format.js';
import { t } from '../i18n/index.js';
import { StatusBadge } from './badges.js';
import { JsonBlock } from './json-block.js';

/** Percent of the bar for `ms` against the longest step (at least a sliver, so 0 ms is visible). */
function share(ms: number, longest: number): number {
  if (longest <= 0) return 0.5;
  return Math.max(0.5, Math.min(100, (ms / longest) * 100));
}

export function StepList({ steps }: { steps: StepView[] }) {
  if (steps.length === 0) return <p class="muted">{t.execution.noSteps}</p>;
  const longest = Math.max(...steps.map((step) => step.ms || 0));
  return (
    <ol class="steps">
      {steps.map((step) => (
        <li key={step.key} class={`step step-${step.status}`}>
          <div class="step-head">
            <span class="step-name">
              <strong>{step.key}</strong> <span class="muted mono">{step.type}</span>
            </span>
            <StatusBadge status={step.status} />
            <span class="muted">{formatDuration(step.ms)}</span>
            <span class="muted">{t.execution.attempts(step.attempt)}</span>
            <time class="muted hide-narrow" dateTime={step.started_at}>
              {formatFull(step.started_at)}
            </time>
          </div>
          <div class="bar-track" role="img" aria-label={t.execution.durationBar(step.key, formatDuration(step.ms))}>
            <div class={`bar bar-${step.status}`} style={{ width: `${share(step.ms, longest)}%` }} />
          </div>
          <div class="step-body">
            {step.params !== undefined ? <JsonBlock label={t.execution.stepInput} value={step.params} /> : null}
            {step.output !== undefined ? <JsonBlock label={t.execution.stepOutput} value={step.output} /> : null}
            {step.error ? <JsonBlock label={t.execution.stepError} value={step.error} open /> : null}
            {step.state ? <JsonBlock label={t.execution.stepState} value={step.state} /> : null}
          </div>
        </li>
      ))}
    </ol>
  );
}
