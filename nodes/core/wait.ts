import { Type } from '@sinclair/typebox';
import { defineNode } from '../../engine/types.js';

export default defineNode({
  type: 'wait',
  description:
    'Pauses the execution for a duration. The wait is stored, so it survives a restart: the scheduler resumes the execution when it is due.',
  params: Type.Object(
    {
      ms: Type.Integer({
        minimum: 0,
        maximum: 31 * 24 * 3600 * 1000,
        description: 'How long to wait, milliseconds (max 31 days).',
        examples: ['{{ env.LEADFLOW_INTAKE_DELAY_MS }}', 5000],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{waited_ms}`: how long the execution actually waited.' },
  examples: [
    {
      title: 'Short pause before reading the form',
      step: { id: 'settle', type: 'wait', params: { ms: '{{ env.LEADFLOW_INTAKE_DELAY_MS }}' } },
    },
  ],
  async run(params, ctx) {
    const startedAt = typeof ctx.state?.started_at === 'number' ? ctx.state.started_at : Date.now();
    const wakeAt = startedAt + params.ms;
    if (params.ms === 0 || Date.now() >= wakeAt) return { waited_ms: Date.now() - startedAt };
    return ctx.suspend(wakeAt, { started_at: startedAt, wake_at: wakeAt });
  },
});
