// Schedule triggers (engine/triggers/schedule-runner.ts), shared by every `serve` and `worker` on
// the database. `schedule_ticks`: one row per tick of a flow's schedule that a process claimed (and
// so started); the primary key (flow, tick_at) is what lets exactly one process claim each tick.
// `started_at` is set once its execution is recorded: a claim left without it past a minute is a
// claimer that died in between, and another process takes the tick over.
// `schedule_seen`: when each schedule (flow and spec: its cron and time zone) was first served, so a
// tick from before a schedule existed is never caught up. Times are ms since the epoch.
import type { Knex } from 'knex';

/** Creates `schedule_ticks` and `schedule_seen` (see the file comment). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('schedule_ticks', (t) => {
    t.string('flow', 200).notNullable();
    t.bigInteger('tick_at').notNullable();
    t.bigInteger('claimed_at').notNullable();
    t.bigInteger('started_at');
    t.primary(['flow', 'tick_at']);
  });
  await knex.schema.createTable('schedule_seen', (t) => {
    t.string('flow', 200).notNullable();
    t.string('spec', 400).notNullable();
    t.bigInteger('first_seen_at').notNullable();
    t.primary(['flow', 'spec']);
  });
}

/** Drops `schedule_ticks` and `schedule_seen`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('schedule_seen');
  await knex.schema.dropTableIfExists('schedule_ticks');
}
