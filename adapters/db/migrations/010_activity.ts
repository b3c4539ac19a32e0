// The console's overview figures (issue 14), written by the service as executions end
// (console/server/activity-recorder.ts) and read by GET /admin/overview. One row per event, per clinic:
//   kind `execution`      an execution ended: label = flow, outcome = final status, value = ms from
//                         its start to its end
//   kind `first_contact`  an intake sent its first message: value = ms from the form reaching
//                         LeadFlow to that message sent (rule 1)
//   kind `ai_call`        one AI provider call: label = provider:model, outcome = ok | error |
//                         rate_limited, value = input tokens, value2 = output tokens
//   kind `followup_sent`  one follow-up sent: value = 1
// `at` is when it happened; `clinica_id` null when the execution named no clinic. No personal data:
// no phone, name or text. Rows older than the execution retention are pruned with the executions.
import type { Knex } from 'knex';
import { timestamp } from './dialect.js';

/** Creates `activity_events` with its indexes by time and by clinic. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('activity_events', (t) => {
    t.increments('id');
    timestamp(t, 'at').notNullable();
    t.integer('clinica_id');
    t.string('kind', 32).notNullable();
    t.string('label', 200);
    t.string('outcome', 32);
    t.bigInteger('value');
    t.bigInteger('value2');
    t.string('execution_id', 64);
    t.index(['at']);
    t.index(['clinica_id', 'at']);
  });
}

/** Drops `activity_events`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('activity_events');
}
