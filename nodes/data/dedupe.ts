import { Type } from '../../engine/typebox.js';
import { defineServiceNode } from '../services.js';

/**
 * `dedupe`: whether `key` is seen for the first time within `ttl_ms`: `{first: true}` for the first
 * execution, `{first: false}` for every other one within the TTL. Atomic across processes with Redis.
 * The mark holds the execution id, so the same execution run again gets `first: true` again
 * (repeatable); with `replay_of`, a mark of the replayed execution is taken over (a replay runs the
 * event again, CONTRACT §1). Needs the key-value store.
 */
export default defineServiceNode({
  type: 'dedupe',
  services: ['kv'],
  description:
    'Tells whether a key (e.g. a provider message id) is seen for the first time within `ttl_ms`: the first execution gets `first: true`, every other one within the TTL `first: false` (usually followed by a stop). Atomic across processes when the store is Redis. The mark holds the execution id, so the same execution run again after a crash gets `first: true` again: running it twice is harmless (repeatable).',
  params: Type.Object(
    {
      key: Type.String({
        minLength: 1,
        description: "What makes an event the same event, e.g. the provider's message id. Start it with the lead's key (clinic and phone) so erasing the lead erases it too.",
        examples: ['{{ vars.clinic_id }}:{{ vars.phone }}:{{ trigger.body.message.messageid }}'],
      }),
      ttl_ms: Type.Integer({ minimum: 1, maximum: 30 * 24 * 3600 * 1000, default: 86_400_000, description: 'How long the key is remembered, ms (max 30 days). Default one day.', examples: [86_400_000, 600_000] }),
      replay_of: Type.String({
        default: '',
        description:
          'The execution this one replays (`{{ trigger.replay_of }}`), or empty: a mark that execution set counts as this one\'s own (taken over), so a replay runs the event again; a second replay of the same execution then finds the first replay\'s mark.',
        examples: ["{{ trigger.replay_of ? trigger.replay_of : '' }}"],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{first}`: true only the first time the key is seen within the TTL.' },
  examples: [
    {
      title: 'Process a redelivered message once',
      step: { id: 'seen', type: 'dedupe', params: { key: '{{ vars.clinic_id }}:{{ vars.phone }}:{{ trigger.body.message.messageid }}', ttl_ms: 86_400_000 } },
    },
  ],
  repeatable: true,
  async run(params, ctx) {
    const previous = params.replay_of !== '' && params.replay_of !== ctx.executionId ? params.replay_of : undefined;
    return { first: await ctx.services.kv.dedupe(params.key, params.ttl_ms, ctx.executionId, previous) };
  },
});
