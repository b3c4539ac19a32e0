import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';
import { instantOf } from '../time/lib/instant.js';

/** Longest `ms`: 31 days. */
const MAX_WAIT_MS = 31 * 24 * 3600 * 1000;

/**
 * `wait`: suspends the execution for `ms` (at most 31 days) or until the instant `until` (ISO 8601 with
 * its offset, or ms since epoch); exactly one of them. The wait is stored and survives a restart: the
 * scheduler resumes it when due; an instant already past goes on at once. Outputs `{waited_ms}` (and
 * `until`, ISO, for an instant).
 */
export default defineNode({
  type: 'wait',
  description:
    'Pauses the execution for a duration (`ms`) or until an instant (`until`); exactly one of them. The wait is stored, so it survives a restart: the scheduler resumes the execution when it is due. An instant already past goes on at once.',
  params: Type.Object(
    {
      ms: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_WAIT_MS,
          description: 'How long to wait, milliseconds (max 31 days).',
          examples: ['{{ env.LEADFLOW_INTAKE_DELAY_MS }}', 5000],
        }),
      ),
      until: Type.Optional(
        Type.Union([Type.String({ minLength: 1 }), Type.Number()], {
          description: 'When to go on: an ISO 8601 timestamp (with its offset, e.g. `2025-03-01T09:00:00-03:00`) or ms since epoch.',
          examples: ['{{ $fromMillis($toMillis(now) + 86400000) }}', 1767261600000],
        }),
      ),
    },
    { additionalProperties: false, minProperties: 1, maxProperties: 1 },
  ),
  output: { description: '`{waited_ms}`: how long the execution actually waited (and `until`, ISO, when waiting until an instant).' },
  examples: [
    {
      title: 'Short pause before reading the form',
      step: { id: 'settle', type: 'wait', params: { ms: '{{ env.LEADFLOW_INTAKE_DELAY_MS }}' } },
    },
    {
      title: 'Wait until a day after the message',
      step: { id: 'next_day', type: 'wait', params: { until: '{{ $fromMillis($toMillis(trigger.body.sent_at) + 86400000) }}' } },
    },
  ],
  async run(params, ctx) {
    if ((params.ms === undefined) === (params.until === undefined)) throw new Error('wait: give exactly one of ms or until');
    // One reading of the clock: a wait that goes on at once, in its first run, waited 0 ms.
    const now = Date.now();
    const startedAt = typeof ctx.state?.started_at === 'number' ? ctx.state.started_at : now;
    const stored = typeof ctx.state?.wake_at === 'number' ? ctx.state.wake_at : undefined;
    const wakeAt = stored ?? (params.until !== undefined ? instantOf(params.until, 'wait: until') : startedAt + (params.ms ?? 0));
    const untilIso = params.until !== undefined ? { until: new Date(wakeAt).toISOString() } : {};
    if (params.ms === 0 || now >= wakeAt) return { waited_ms: now - startedAt, ...untilIso };
    return ctx.suspend(wakeAt, { started_at: startedAt, wake_at: wakeAt });
  },
});
