// The TickStore of the database (engine/store/tick-store.ts; migration 008): every `serve` and
// `worker` on one database claims schedule ticks here, so each tick starts one execution in all.
import type { Knex } from 'knex';
import type { TickStore } from '../../engine/store/tick-store.js';
import type { Database } from './database.js';

const TICKS = 'schedule_ticks';
const SEEN = 'schedule_seen';
const DAY_MS = 86_400_000;

/**
 * The TickStore shared by every process on one database: claims of schedule ticks in `schedule_ticks`,
 * first sightings in `schedule_seen`.
 */
export class DbTickStore implements TickStore {
  constructor(private readonly db: Database) {}

  private get knex(): Knex {
    return this.db.knex;
  }

  /** One INSERT … ON CONFLICT DO NOTHING on the primary key (flow, tick_at): the row inserted is the claim. */
  async claimTick(flow: string, tickAt: number, at: number = Date.now()): Promise<boolean> {
    const inserted = await this.knex(TICKS)
      .insert({ flow, tick_at: tickAt, claimed_at: at })
      .onConflict(['flow', 'tick_at'])
      .ignore()
      .returning('flow');
    return inserted.length === 1;
  }

  async tickStarted(flow: string, tickAt: number): Promise<void> {
    await this.knex(TICKS).where({ flow, tick_at: tickAt }).whereNull('started_at').update({ started_at: Date.now() });
  }

  async lostTicks(flow: string, claimedBefore: number): Promise<number[]> {
    const rows = (await this.knex(TICKS)
      .where({ flow })
      .whereNull('started_at')
      .where('claimed_at', '<', claimedBefore)
      .orderBy('tick_at')
      .select('tick_at')) as Array<{ tick_at: unknown }>;
    return rows.map((r) => Number(r.tick_at));
  }

  /** One conditional UPDATE: among racing callers, only the first still finds the old claim time. */
  async reclaimTick(flow: string, tickAt: number, claimedBefore: number, at: number = Date.now()): Promise<boolean> {
    const updated = await this.knex(TICKS)
      .where({ flow, tick_at: tickAt })
      .whereNull('started_at')
      .where('claimed_at', '<', claimedBefore)
      .update({ claimed_at: at });
    return Number(updated) === 1;
  }

  async lastTick(flow: string): Promise<number | undefined> {
    const row = (await this.knex(TICKS).where({ flow }).max({ last: 'tick_at' }).first()) as { last: unknown } | undefined;
    return row?.last === null || row?.last === undefined ? undefined : Number(row.last);
  }

  async scheduleSeen(flow: string, spec: string, at: number): Promise<number> {
    await this.knex(SEEN).insert({ flow, spec, first_seen_at: at }).onConflict(['flow', 'spec']).ignore();
    const row = (await this.knex(SEEN).where({ flow, spec }).first('first_seen_at')) as { first_seen_at: unknown } | undefined;
    return row ? Number(row.first_seen_at) : at;
  }

  /**
   * Deletes claims of ticks older than `olderThanDays` days (LEADFLOW_EXECUTIONS_RETAIN_DAYS), except
   * each flow's latest (so a restart never catches up a tick already run). Returns how many went.
   */
  async prune(olderThanDays: number, now: number = Date.now()): Promise<number> {
    if (!Number.isFinite(olderThanDays) || olderThanDays < 0)
      throw new Error(`prune: olderThanDays must be a number >= 0, got ${olderThanDays}`);
    const cutoff = now - olderThanDays * DAY_MS;
    const deleted = await this.knex(TICKS)
      .where('tick_at', '<', cutoff)
      .whereExists((q) =>
        q
          .select(this.knex.raw('1'))
          .from(`${TICKS} as later`)
          .whereRaw(`later.flow = ${TICKS}.flow`)
          .whereRaw(`later.tick_at > ${TICKS}.tick_at`),
      )
      .del();
    return Number(deleted);
  }
}
